#include "base/io/proc_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <charconv>

#include "base/text/strings.h"

namespace rtgate::proc {

std::optional<std::string> read_file(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string out(4096, '\0');
  std::size_t used = 0;
  bool failed = false;
  while (true) {
    const ssize_t n = read(fd, out.data() + used, out.size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) failed = true;
    if (n <= 0) break;
    used += static_cast<std::size_t>(n);
    if (used == out.size()) out.resize(out.size() * 2);
  }
  close(fd);
  if (failed) return std::nullopt;
  out.resize(used);
  return out;
}

std::string read_trimmed(const std::string& path) {
  return std::string(text::trim(read_file(path).value_or("")));
}

std::int64_t read_int(const std::string& path, std::int64_t fallback) {
  const std::string text = read_trimmed(path);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return (ec == std::errc() && end != text.data()) ? value : fallback;
}

}  // namespace rtgate::proc
