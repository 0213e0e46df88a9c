// Reading the small text files of /proc and /sys: raw read(2) to EOF (cheaper than iostreams
// across the thousands of per-thread files a hygiene snapshot walks), trimmed and numeric forms.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rtgate::proc {

// The whole file, or nullopt when it cannot be opened or read. An empty file is "".
std::optional<std::string> read_file(const std::string& path);
// The file without surrounding whitespace; "" when unreadable.
std::string read_trimmed(const std::string& path);
// The first integer in the file, or `fallback`.
std::int64_t read_int(const std::string& path, std::int64_t fallback);

}  // namespace rtgate::proc
