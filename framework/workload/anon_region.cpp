#include "framework/workload/anon_region.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "base/io/proc_files.h"

namespace rtgate::workload {

void* map_unlocked(std::size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  munlock(p, bytes);  // a no-op without mlockall
  if (mprotect(p, bytes, PROT_READ | PROT_WRITE) != 0) {
    const int err = errno;
    munmap(p, bytes);
    errno = err;
    return nullptr;
  }
  return p;
}

AnonRegion::AnonRegion(std::size_t bytes, bool allow_huge_pages) {
  void* p = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    error_ = "mmap of " + std::to_string(bytes >> 20) + " MiB: " + std::strerror(errno);
    return;
  }
  munlock(p, bytes);
  // EINVAL without THP support: then there is nothing to refuse.
  if (!allow_huge_pages) madvise(p, bytes, MADV_NOHUGEPAGE);
  if (mprotect(p, bytes, PROT_READ | PROT_WRITE) != 0) {
    error_ = std::string("mprotect: ") + std::strerror(errno);
    munmap(p, bytes);
    return;
  }
  data_ = static_cast<char*>(p);
  size_ = bytes;
}

AnonRegion::AnonRegion(AnonRegion&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      error_(std::move(other.error_)) {}

AnonRegion& AnonRegion::operator=(AnonRegion&& other) noexcept {
  if (this != &other) {
    reset();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    error_ = std::move(other.error_);
  }
  return *this;
}

bool AnonRegion::discard() { return data_ == nullptr || madvise(data_, size_, MADV_DONTNEED) == 0; }

void AnonRegion::reset() {
  if (data_ != nullptr) munmap(data_, size_);
  data_ = nullptr;
  size_ = 0;
}

std::string check_memory_available(std::size_t bytes) {
  const std::optional<std::string> meminfo = proc::read_file("/proc/meminfo");
  if (!meminfo) return "";  // cannot tell: let the mapping decide
  const std::size_t at = meminfo->find("MemAvailable:");
  if (at == std::string::npos) return "";
  const std::size_t kib = std::strtoull(meminfo->c_str() + at + 13, nullptr, 10);
  if (bytes / 1024 <= kib) return "";
  return "needs " + std::to_string(bytes >> 20) + " MiB of memory, " + std::to_string(kib >> 10) +
         " MiB available";
}

std::size_t AnonRegion::page_size() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }

}  // namespace rtgate::workload
