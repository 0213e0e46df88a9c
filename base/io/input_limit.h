// The most rtgate reads from one input file that somebody else may have written (a result, an
// imported tool's output, a policy): a bound on memory and time that a hostile or broken file
// cannot pass. One limit for the process, raised for a big farm by `--max-input MB` or
// RTGATE_MAX_INPUT_MB.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace rtgate::io {

inline constexpr std::size_t kDefaultMaxInputBytes = std::size_t{256} << 20;
// The largest number of MiB the limit may be set to (16 TiB: beyond any real input).
inline constexpr std::size_t kMaxInputMiB = std::size_t{1} << 24;

// The limit in bytes: the last set_max_input_mib, else RTGATE_MAX_INPUT_MB when it is a whole
// number of MiB from 1 to kMaxInputMiB, else kDefaultMaxInputBytes.
std::size_t max_input_bytes();
// 0 goes back to the environment's limit or the default; past kMaxInputMiB is ignored.
void set_max_input_mib(std::size_t mib);

// The whole of `path`, at most `limit` bytes: a regular file, a pipe or a process substitution.
// A FIFO nobody writes to reads as empty rather than blocking the open. nullopt with the reason
// in *why, for the caller to name the file with ("No such file or directory", "larger than 3
// MiB"); *too_big, when given, says which of the two it was.
std::optional<std::string> read_bounded(const std::string& path, std::size_t limit,
                                        std::string* why, bool* too_big = nullptr);

}  // namespace rtgate::io
