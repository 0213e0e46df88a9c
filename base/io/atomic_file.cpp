#include "base/io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rtgate {
namespace {

// Beside the target, so that the rename stays within one file system.
std::string temp_path_for(const std::string& path) {
  return path + ".tmp." + std::to_string(getpid());
}

std::string dir_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string err(const std::string& what, const std::string& path, int e) {
  return "cannot " + what + " '" + path + "': " + std::strerror(e);
}

}  // namespace

int write_pieces(int fd, std::span<const std::string_view> pieces) {
  for (const std::string_view piece : pieces) {
    std::size_t off = 0;
    while (off < piece.size()) {
      const ssize_t n = ::write(fd, piece.data() + off, piece.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return errno;
      if (n == 0) return EIO;
      off += static_cast<std::size_t>(n);
    }
  }
  return 0;
}

std::string write_file_atomically(const std::string& path, const std::string& content) {
  const std::string_view whole = content;
  return write_file_atomically(path, {&whole, 1});
}

std::string write_file_atomically(const std::string& path,
                                  std::span<const std::string_view> pieces) {
  const std::string tmp = temp_path_for(path);
  mode_t mode = 0644;
  if (struct stat old{}; ::stat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode)) {
    mode = old.st_mode & 07777;
  }
  // O_NOFOLLOW: a symlink planted at the temporary name is not followed.
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) return err("write", path, errno);
  const auto fail = [&](int e) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return err("write", path, e);
  };
  if (::fchmod(fd, mode) != 0) return fail(errno);  // the umask must not narrow it
  if (const int e = write_pieces(fd, pieces); e != 0) return fail(e);
  if (::fsync(fd) != 0) return fail(errno);
  if (::close(fd) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    return err("write", path, e);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    return err("replace", path, e);
  }
  // The rename is durable once the directory is; a failure here loses nothing already written.
  if (const int dfd = ::open(dir_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return "";
}

std::string check_atomically_writable(const std::string& path, const std::string& shown) {
  const std::string tmp = temp_path_for(path);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return err("write", shown, errno);
  ::close(fd);
  ::unlink(tmp.c_str());
  return "";
}

}  // namespace rtgate
