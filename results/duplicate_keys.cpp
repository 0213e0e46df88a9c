#include "results/duplicate_keys.h"

#include <unordered_set>
#include <vector>

namespace rtgate {
namespace {

// The end of the string whose opening quote is at `at` (the index of its closing quote), or npos.
std::size_t string_end(std::string_view s, std::size_t at) {
  for (std::size_t i = at + 1; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == '"') {
      return i;
    }
  }
  return std::string_view::npos;
}

}  // namespace

std::optional<std::string> first_duplicate_key(std::string_view json) {
  // One entry per open container: an object's keys, or nullopt for an array.
  std::vector<std::optional<std::unordered_set<std::string_view>>> open;
  bool expect_key = false;  // just after '{' or after ',' inside an object
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c == '"') {
      const std::size_t end = string_end(json, i);
      if (end == std::string_view::npos) return std::nullopt;
      if (expect_key && !open.empty() && open.back()) {
        const std::string_view key = json.substr(i + 1, end - i - 1);
        if (!open.back()->insert(key).second) return std::string(key);
      }
      expect_key = false;
      i = end;
    } else if (c == '{') {
      open.emplace_back(std::unordered_set<std::string_view>{});
      expect_key = true;
    } else if (c == '[') {
      open.emplace_back(std::nullopt);
      expect_key = false;
    } else if (c == '}' || c == ']') {
      if (open.empty()) return std::nullopt;
      open.pop_back();
      expect_key = false;
    } else if (c == ',') {
      expect_key = !open.empty() && open.back().has_value();
    }
  }
  return std::nullopt;
}

}  // namespace rtgate
