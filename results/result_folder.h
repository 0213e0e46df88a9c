// The results a folder holds: every *.json and *.json.gz under it, recursively, in path order.
// One rule for every reader of a board's results (gate --history, rtgate history, report
// --history).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rtgate {

// A file name a folder of results holds: *.json or *.json.gz.
bool is_result_name(std::string_view filename);

// The result files under `dir`, sorted by path; nullopt and *error ("DIR: why", or "DIR is not a
// directory") when it cannot be listed.
std::optional<std::vector<std::string>> result_files(const std::string& dir, std::string* error);

}  // namespace rtgate
