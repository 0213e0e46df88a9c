#include "framework/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace rtgate {
namespace {

std::string temp_path_for(const std::string& path) {
  return path + ".tmp." + std::to_string(getpid());
}

std::string err(const std::string& what, const std::string& path) {
  return "cannot " + what + " '" + path + "': " + std::strerror(errno);
}

}  // namespace

std::string write_file_atomically(const std::string& path, const std::string& content) {
  const std::string tmp = temp_path_for(path);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return err("create", tmp);
  std::size_t off = 0;
  while (off < content.size()) {
    const ssize_t n = ::write(fd, content.data() + off, content.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = err("write", tmp);
      ::close(fd);
      ::unlink(tmp.c_str());
      return why;
    }
    off += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const std::string why = err("flush", tmp);
    ::unlink(tmp.c_str());
    return why;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = err("rename to", path);
    ::unlink(tmp.c_str());
    return why;
  }
  return "";
}

std::string check_writable(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) return "'" + path + "' is a directory";
  const std::string tmp = temp_path_for(path);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return err("write", path);
  ::close(fd);
  ::unlink(tmp.c_str());
  return "";
}

}  // namespace rtgate
