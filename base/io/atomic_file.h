// Atomic replacement of a regular file: a reader sees the old file or the new one, never half of
// either, and a crash (SIGKILL, power loss after the fsyncs) leaves one of the two whole.
// Only for a path that is, or will be, a regular file: output_file.h decides that (a rename over
// a device, FIFO or symlink would replace the node itself).
#pragma once

#include <sys/types.h>

#include <span>
#include <string>
#include <string_view>

namespace rtgate {

// Writes `content` to a temporary file in `path`'s directory, fsyncs it, renames it over `path`
// (keeping an existing file's permission bits) and fsyncs the directory. On failure the old file
// is untouched and the temporary removed. Returns "" on success, else a one-line reason naming
// `path`.
std::string write_file_atomically(const std::string& path, const std::string& content);
// The same for content given in pieces, written one after the other (never joined in memory).
std::string write_file_atomically(const std::string& path,
                                  std::span<const std::string_view> pieces);

// Writes `pieces` to a new file beside `path` (in its directory), named `.BASE.XXXXXX` when
// `hidden`, else `BASE.XXXXXX`: created O_EXCL under a name nobody can guess (nothing planted
// there is ever opened), with `mode`, fsynced. Returns 0 and its name in *created, or the errno
// of the failure (nothing is left behind).
int write_new_file_beside(const std::string& path, bool hidden, mode_t mode,
                          std::span<const std::string_view> pieces, std::string* created);

// Writes every piece to `fd` in order, through short writes and EINTR. Returns 0, or the errno
// of the failure (EIO for a write that wrote nothing).
int write_pieces(int fd, std::span<const std::string_view> pieces);

// Checks, without leaving anything behind, that `path`'s directory accepts a new file (what
// write_file_atomically needs). Returns "" when it does, else a one-line reason naming `shown`.
std::string check_atomically_writable(const std::string& path, const std::string& shown);

}  // namespace rtgate
