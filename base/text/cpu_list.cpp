#include "base/text/cpu_list.h"

#include <algorithm>
#include <charconv>
#include <iterator>

#include "base/text/strings.h"

namespace rtgate::text {
namespace {

// Digits only: from_chars would also take a leading '-', which is the range separator here.
std::optional<int> parse_cpu_number(std::string_view s) {
  if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  int value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || value >= kMaxCpu) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::vector<int>> parse_cpu_list(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  // Ranges first, expanded once after merging: "0-65535" repeated in one long argument would
  // otherwise expand every repetition (gigabytes for a 128 KiB --cpus).
  std::vector<std::pair<int, int>> ranges;
  while (true) {
    const std::size_t comma = text.find(',');
    const std::string_view token = text.substr(0, comma);
    const std::size_t dash = token.find('-');
    const auto first = parse_cpu_number(token.substr(0, dash));
    if (!first) return std::nullopt;
    int last = *first;
    if (dash != std::string_view::npos) {
      const auto parsed_last = parse_cpu_number(token.substr(dash + 1));
      if (!parsed_last || *parsed_last < *first) return std::nullopt;
      last = *parsed_last;
    }
    ranges.emplace_back(*first, last);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  std::sort(ranges.begin(), ranges.end());
  std::vector<int> cpus;
  int next = 0;  // the lowest CPU not yet in cpus
  for (const auto& [first, last] : ranges) {
    for (int cpu = std::max(first, next); cpu <= last; ++cpu) cpus.push_back(cpu);
    next = std::max(next, last + 1);
  }
  return cpus;
}

std::string format_cpu_list(const std::vector<int>& cpus) {
  std::vector<int> sorted;
  std::copy_if(cpus.begin(), cpus.end(), std::back_inserter(sorted), [](int c) { return c >= 0; });
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::string out;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(sorted[i]);
    if (j > i) out += '-' + std::to_string(sorted[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace rtgate::text
