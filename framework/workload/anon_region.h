// AnonRegion: private anonymous memory that really page-faults when touched, even in a process
// that called mlockall(MCL_CURRENT | MCL_FUTURE) (rtgate does, before RT suites).
//
// Under MCL_FUTURE a new mapping is locked and populated inside mmap(): a 1 GiB buffer would be
// faulted in (or fail) before the workload starts, and the fault storm a suite means to cause
// would never happen. So the region is mapped PROT_NONE (populating skips inaccessible mappings)
// and MAP_NORESERVE (no commit charge for what is never touched), munlock()ed to drop the
// inherited lock, and only then made readable and writable. Transparent huge pages are refused
// unless asked for, so one touch is one 4 KiB fault, not one per 2 MiB.
//
// Unmapped by the destructor: a suite that stops early (SIGINT, watchdog) leaves nothing mapped.
#pragma once

#include <cstddef>
#include <string>

namespace rtgate::workload {

class AnonRegion {
 public:
  AnonRegion() = default;
  // On failure, ok() is false and error() says why (one line, with strerror).
  explicit AnonRegion(std::size_t bytes, bool allow_huge_pages = false);
  ~AnonRegion() { reset(); }
  AnonRegion(AnonRegion&& other) noexcept;
  AnonRegion& operator=(AnonRegion&& other) noexcept;
  AnonRegion(const AnonRegion&) = delete;
  AnonRegion& operator=(const AnonRegion&) = delete;

  bool ok() const { return data_ != nullptr; }
  const std::string& error() const { return error_; }
  char* data() const { return data_; }
  std::size_t size() const { return size_; }
  // Drops the pages (MADV_DONTNEED): the next touch of each faults again. false on failure.
  bool discard();
  void reset();

  static std::size_t page_size();

 private:
  char* data_ = nullptr;
  std::size_t size_ = 0;
  std::string error_;
};

// "" when `bytes` of fresh memory fit in MemAvailable (/proc/meminfo), else a one-line reason. A
// MAP_NORESERVE mapping never fails for want of memory; touching it would (the OOM killer), so a
// suite checks first and skips with the reason instead.
std::string check_memory_available(std::size_t bytes);

// The same three steps for one short-lived mapping, for suites whose workload is mmap/munmap
// itself. Returns nullptr and sets errno on failure; release with munmap().
void* map_unlocked(std::size_t bytes);

}  // namespace rtgate::workload
