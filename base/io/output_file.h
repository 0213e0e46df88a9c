// Every file rtgate writes on a user's say (-o, --junit, --textfile, --policy-out, trace
// excerpts) goes through here, so that an output path never damages what it names:
//   - a regular file, or a symlink (chain) to one, is replaced atomically (atomic_file.h) at the
//     symlink's target, in the target's directory; a dangling symlink creates its target;
//   - a character device (/dev/null, a tty) or a FIFO is opened and written to, as `>` would:
//     renaming over it would replace the device node, and a FIFO's reader would get nothing;
//   - "-", and any path that is this process's stdout (/dev/stdout, /proc/self/fd/1, the file
//     stdout was redirected to), is written to fd 1;
//   - a directory, block device or socket is refused.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace rtgate {

struct OutputTarget {
  enum class Kind { kFile, kStream, kInvalid };
  Kind kind = Kind::kInvalid;
  // kFile: the regular file to replace, symlinks resolved; kStream: the node to open.
  std::string path;
  int fd = -1;        // kStream onto stdout: STDOUT_FILENO (written to, never opened or closed)
  std::string error;  // kInvalid: the one-line reason
};

// Classifies `path` as it is now (nothing is opened or created).
OutputTarget resolve_output(const std::string& path);

// True when `path` is streamed to (device, FIFO, stdout): such an output is written once, at
// the end, since a reader would see every intermediate write one after the other.
bool output_is_stream(const std::string& path);
// True when `path` is written to this process's stdout.
bool output_is_stdout(const std::string& path);

// Writes `content` to `path` as above. Returns "" or a one-line reason naming `path`.
std::string write_output(const std::string& path, const std::string& content);
// The same for content in pieces, written in order and never joined in memory.
std::string write_output(const std::string& path, std::span<const std::string_view> pieces);

// Checks, leaving nothing behind and without opening a device or FIFO (a FIFO's reader would see
// EOF), that `path` could be written. Returns "" or a one-line reason naming `path`.
std::string check_output(const std::string& path);

}  // namespace rtgate
