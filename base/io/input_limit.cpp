#include "base/io/input_limit.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace rtgate::io {
namespace {

std::size_t from_environment() {
  const char* v = std::getenv("RTGATE_MAX_INPUT_MB");
  char* end = nullptr;
  const unsigned long long mib = v != nullptr ? std::strtoull(v, &end, 10) : 0;
  if (mib == 0 || end == nullptr || *end != '\0' || mib > kMaxInputMiB) {
    return kDefaultMaxInputBytes;
  }
  return static_cast<std::size_t>(mib) << 20;
}

// 0 until set: the environment's (or the default) is read at the first use.
std::atomic<std::size_t> g_set_bytes{0};

}  // namespace

std::size_t max_input_bytes() {
  static const std::size_t from_env = from_environment();
  const std::size_t set = g_set_bytes.load(std::memory_order_relaxed);
  return set != 0 ? set : from_env;
}

void set_max_input_mib(std::size_t mib) {
  if (mib <= kMaxInputMiB) g_set_bytes.store(mib << 20, std::memory_order_relaxed);
}

std::optional<std::string> read_bounded(const std::string& path, std::size_t limit,
                                        std::string* why, bool* too_big_out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (too_big_out != nullptr) *too_big_out = false;
  if (fd < 0) {
    *why = std::strerror(errno);
    return std::nullopt;
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  struct stat st {};
  std::string text;
  bool too_big =
      ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) > limit;
  char buf[1 << 16];
  while (!too_big) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *why = std::strerror(errno);
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    too_big = text.size() > limit;
  }
  ::close(fd);
  if (too_big_out != nullptr) *too_big_out = too_big;
  if (too_big) {
    *why = "larger than " + (limit >= (std::size_t{1} << 20) ? std::to_string(limit >> 20) + " MiB"
                                                             : std::to_string(limit) + " bytes");
    return std::nullopt;
  }
  return text;
}

}  // namespace rtgate::io
