// The machine's /proc and /sys as files under a root: "/" on a real run, a fixture directory in
// tests. What the readiness checks read, and nothing else: every read is small and bounded.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rtgate::readiness {

class SysRoot {
 public:
  explicit SysRoot(std::string root = "/");
  // A file's text (at most 1 MiB), nullopt when it cannot be read.
  std::optional<std::string> read(const std::string& path) const;
  // Without surrounding white space; "" when unreadable.
  std::string trimmed(const std::string& path) const;
  // The first integer in the file, nullopt when there is none.
  std::optional<std::int64_t> integer(const std::string& path) const;
  // The names in a directory, sorted; none when it cannot be read.
  std::vector<std::string> list(const std::string& dir) const;
  bool exists(const std::string& path) const;
  // The word in [brackets] of a sysfs choice ("always [madvise] never" -> "madvise").
  std::string chosen(const std::string& path) const;

 private:
  std::string at(const std::string& path) const;
  std::string root_;
};

}  // namespace rtgate::readiness
