// Atomic file writes: a reader sees the old file or the new one, never half of either.
#pragma once

#include <string>

namespace rtgate {

// Writes `content` to a temporary file beside `path`, fsyncs it and renames it over `path`.
// Returns "" on success, else a one-line reason.
std::string write_file_atomically(const std::string& path, const std::string& content);

// Checks, without leaving anything behind, that `path` could be written atomically (its
// directory exists and accepts a new file). Returns "" when it could, else a one-line reason.
std::string check_writable(const std::string& path);

}  // namespace rtgate
