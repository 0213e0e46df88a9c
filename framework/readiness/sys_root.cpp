#include "framework/readiness/sys_root.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "base/text/strings.h"

namespace rtgate::readiness {

SysRoot::SysRoot(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

std::string SysRoot::at(const std::string& path) const {
  return root_ == "/" ? path : root_ + path;
}

std::optional<std::string> SysRoot::read(const std::string& path) const {
  constexpr std::size_t kMax = std::size_t{1} << 20;
  const int fd = open(at(path).c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  std::string out;
  char buf[4096];
  ssize_t n = 0;
  while (out.size() < kMax && (n = ::read(fd, buf, sizeof buf)) > 0) {
    out.append(buf, static_cast<std::size_t>(n));
  }
  close(fd);
  if (n < 0) return std::nullopt;
  if (out.size() > kMax) out.resize(kMax);
  return out;
}

std::string SysRoot::trimmed(const std::string& path) const {
  return std::string(text::trim(read(path).value_or("")));
}

std::optional<std::int64_t> SysRoot::integer(const std::string& path) const {
  const std::string t = trimmed(path);
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  const long long v = std::strtoll(t.c_str(), &end, 10);
  if (end == t.c_str()) return std::nullopt;
  return v;
}

std::vector<std::string> SysRoot::list(const std::string& dir) const {
  std::vector<std::string> out;
  DIR* d = opendir(at(dir).c_str());
  if (d == nullptr) return out;
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") out.push_back(name);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

bool SysRoot::exists(const std::string& path) const {
  struct stat st {};
  return stat(at(path).c_str(), &st) == 0;
}

std::string SysRoot::chosen(const std::string& path) const {
  const std::string t = trimmed(path);
  const auto open = t.find('[');
  const auto close = t.find(']', open);
  if (open == std::string::npos || close == std::string::npos) return t;
  return t.substr(open + 1, close - open - 1);
}

}  // namespace rtgate::readiness
