#include "results/result_folder.h"

#include <algorithm>
#include <filesystem>

namespace rtgate {
namespace fs = std::filesystem;

bool is_result_name(std::string_view n) {
  return n.ends_with(".json") || n.ends_with(".json.gz");
}

std::optional<std::vector<std::string>> result_files(const std::string& dir, std::string* error) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    *error = dir + " is not a directory";
    return std::nullopt;
  }
  std::vector<std::string> files;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && is_result_name(it->path().filename().string())) {
      files.push_back(it->path().string());
    }
  }
  if (ec) {
    *error = dir + ": " + ec.message();
    return std::nullopt;
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace rtgate
