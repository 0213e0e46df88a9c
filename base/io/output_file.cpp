#include "base/io/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/io/atomic_file.h"

namespace rtgate {
namespace {

std::string in_quotes(const std::string& path) { return "'" + path + "'"; }

OutputTarget invalid(std::string why) {
  return {.kind = OutputTarget::Kind::kInvalid, .path = "", .fd = -1, .error = std::move(why)};
}

OutputTarget file(std::string path) {
  return {.kind = OutputTarget::Kind::kFile, .path = std::move(path), .fd = -1, .error = ""};
}

OutputTarget stream(std::string path, int fd) {
  return {.kind = OutputTarget::Kind::kStream, .path = std::move(path), .fd = fd, .error = ""};
}

bool same_node(const struct stat& a, int fd) {
  struct stat b {};
  return fstat(fd, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

std::string dir_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash + 1);
}

// A path that does not exist (stat: ENOENT) may be a dangling symlink, whose target is what
// `>` would create. Follows the chain by hand (realpath needs the target to exist).
OutputTarget resolve_missing(const std::string& path) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return file(p);
    char buf[4096];
    const ssize_t n = readlink(p.c_str(), buf, sizeof buf - 1);
    if (n < 0)
      return invalid("cannot read the symlink " + in_quotes(p) + ": " + std::strerror(errno));
    const std::string target(buf, static_cast<std::size_t>(n));
    p = target.front() == '/' ? target : dir_of(p) + target;
  }
  return invalid(in_quotes(path) + ": too many levels of symbolic links");
}

// Opens a device or FIFO for writing (no O_TRUNC: neither has anything to truncate). A FIFO
// is opened without blocking, retried while its reader may still be coming: a FIFO nobody reads,
// planted where a result goes, must not hang the writer in open(), deaf to signals. Returns the
// fd in blocking mode, or -1 with errno (ENXIO: no reader came).
int open_stream(const std::string& path) {
  constexpr int kTries = 100;  // 2 s in 20 ms steps
  for (int i = 0;; ++i) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    if (fd >= 0) {
      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      return fd;
    }
    if (errno != ENXIO || i + 1 == kTries) return -1;
    ::usleep(20'000);
  }
}

// The output's node would not take the content (a FIFO without a reader): the content goes to a
// new regular file beside it instead, and the message says where, so nothing measured is lost.
std::string write_elsewhere(const std::string& shown, const std::string& node,
                            std::span<const std::string_view> pieces) {
  std::string other;
  if (const int e = write_new_file_beside(node, /*hidden=*/false, 0644, pieces, &other); e != 0) {
    return "cannot write " + in_quotes(shown) +
           " (no reader) nor a file beside it: " + std::strerror(e);
  }
  return in_quotes(shown) + " is a FIFO that nobody read for 2 s: written to " + in_quotes(other) +
         " instead";
}

}  // namespace

OutputTarget resolve_output(const std::string& path) {
  if (path == "-") return stream("stdout", STDOUT_FILENO);
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return resolve_missing(path);
    return invalid("cannot write " + in_quotes(path) + ": " + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) return invalid(in_quotes(path) + " is a directory");
  // Whatever the node, written through fd 1 when it is stdout's: a second open of a redirected
  // stdout's file would overwrite what was printed, a rename would detach it.
  if (same_node(st, STDOUT_FILENO)) return stream(path, STDOUT_FILENO);
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return stream(path, -1);
  if (S_ISBLK(st.st_mode)) return invalid(in_quotes(path) + " is a block device, not a file");
  if (!S_ISREG(st.st_mode)) return invalid(in_quotes(path) + " is a socket, not a file");
  char* real = realpath(path.c_str(), nullptr);
  if (real == nullptr)
    return invalid("cannot resolve " + in_quotes(path) + ": " + std::strerror(errno));
  std::string resolved = real;
  std::free(real);
  return file(resolved);
}

bool output_is_stream(const std::string& path) {
  return resolve_output(path).kind == OutputTarget::Kind::kStream;
}

bool output_is_stdout(const std::string& path) { return resolve_output(path).fd == STDOUT_FILENO; }

std::string write_output(const std::string& path, const std::string& content) {
  const std::string_view whole = content;
  return write_output(path, {&whole, 1});
}

std::string write_output(const std::string& path, std::span<const std::string_view> pieces) {
  const OutputTarget t = resolve_output(path);
  switch (t.kind) {
    case OutputTarget::Kind::kInvalid:
      return t.error;
    case OutputTarget::Kind::kFile:
      return write_file_atomically(t.path, pieces);
    case OutputTarget::Kind::kStream:
      break;
  }
  if (t.fd >= 0) {
    // What stdio holds for fd 1 goes first, so the two never interleave mid-line.
    std::fflush(stdout);
    const int e = write_pieces(t.fd, pieces);
    return e == 0 ? "" : "cannot write " + in_quotes(path) + ": " + std::strerror(e);
  }
  const int fd = open_stream(t.path);
  if (fd < 0 && errno == ENXIO) return write_elsewhere(path, t.path, pieces);
  if (fd < 0) return "cannot write " + in_quotes(path) + ": " + std::strerror(errno);
  int e = write_pieces(fd, pieces);
  if (::close(fd) != 0 && e == 0) e = errno;
  return e == 0 ? "" : "cannot write " + in_quotes(path) + ": " + std::strerror(e);
}

std::string check_output(const std::string& path) {
  const OutputTarget t = resolve_output(path);
  switch (t.kind) {
    case OutputTarget::Kind::kInvalid:
      return t.error;
    case OutputTarget::Kind::kFile:
      return check_atomically_writable(t.path, path);
    case OutputTarget::Kind::kStream:
      break;
  }
  if (t.fd >= 0 || access(t.path.c_str(), W_OK) == 0) return "";
  return "cannot write " + in_quotes(path) + ": " + std::strerror(errno);
}

}  // namespace rtgate
