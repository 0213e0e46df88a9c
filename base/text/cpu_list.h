// CPU lists in the kernel's text form ("0-3,5,7-8"), as used by sysfs, /proc and `--cpus`.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rtgate::text {

// Far above any CONFIG_NR_CPUS; stops "0-2000000000" from allocating gigabytes.
inline constexpr int kMaxCpu = 1 << 16;

// Parses "0-3,5,7-8" into sorted, de-duplicated CPU numbers. Surrounding whitespace and a trailing
// newline are accepted; anything else the kernel would not print ("1-", "a", "3-1", "1,,2",
// " 1, 2") is nullopt. So is an empty list: as user input it is a mistake, and callers reading
// a sysfs mask that may be empty (e.g. "isolated") check for that first.
std::optional<std::vector<int>> parse_cpu_list(std::string_view text);

// The inverse: {0,1,2,5} -> "0-2,5". Input need not be sorted; duplicates and negatives ignored.
std::string format_cpu_list(const std::vector<int>& cpus);

}  // namespace rtgate::text
