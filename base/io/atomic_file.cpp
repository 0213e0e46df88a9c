#include "base/io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace rtgate {
namespace {

std::string dir_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Opens a new file beside `path` (the rename stays within one file system), `.BASE.XXXXXX` when
// hidden, else `BASE.XXXXXX`: mkostemp opens it O_CREAT|O_EXCL under a name nobody can guess, so
// whatever another user planted there in advance (a symlink, a hard link to their file, a FIFO)
// is never opened, and a name that is taken is simply retried. Returns the fd (mode 0600) or -1
// with errno.
int create_beside(const std::string& path, bool hidden, std::string& name) {
  const std::size_t slash = path.rfind('/');
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  name = dir + (hidden ? "." : "") + base.substr(0, 200) + ".XXXXXX";
  return ::mkostemp(name.data(), O_CLOEXEC);
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

int write_new_file_beside(const std::string& path, bool hidden, mode_t mode,
                          std::span<const std::string_view> pieces, std::string* created) {
  const int fd = create_beside(path, hidden, *created);
  if (fd < 0) return errno;
  int e = ::fchmod(fd, mode) == 0 ? 0 : errno;  // the umask must not narrow it
  if (e == 0) e = write_pieces(fd, pieces);
  if (e == 0 && ::fsync(fd) != 0) e = errno;
  if (::close(fd) != 0 && e == 0) e = errno;
  if (e != 0) ::unlink(created->c_str());
  return e;
}

std::string write_file_atomically(const std::string& path,
                                  std::span<const std::string_view> pieces) {
  // A new file is 0644; a replaced one keeps its bits, except set-id ones: a result is data.
  mode_t mode = 0644;
  if (struct stat old{}; ::lstat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode)) {
    mode = old.st_mode & 0777;
  }
  std::string tmp;
  if (const int e = write_new_file_beside(path, /*hidden=*/true, mode, pieces, &tmp); e != 0) {
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
  std::string tmp;
  const int fd = create_beside(path, /*hidden=*/true, tmp);
  if (fd < 0) return err("write", shown, errno);
  ::close(fd);
  ::unlink(tmp.c_str());
  return "";
}

}  // namespace rtgate
