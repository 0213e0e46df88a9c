#include "importers/tool_options.h"

#include <charconv>
#include <cmath>
#include <sstream>

namespace rtgate::importers {
namespace {

const OptionSpec* by_short(const std::vector<OptionSpec>& specs, char c) {
  for (const OptionSpec& s : specs) {
    if (s.short_name == c) return &s;
  }
  return nullptr;
}

// getopt_long accepts any unambiguous prefix of a long option; an exact match wins.
const OptionSpec* by_long(const std::vector<OptionSpec>& specs, std::string_view name) {
  const OptionSpec* prefix = nullptr;
  int prefixes = 0;
  for (const OptionSpec& s : specs) {
    if (s.long_name.empty()) continue;
    if (s.long_name == name) return &s;
    if (s.long_name.compare(0, name.size(), name) == 0) {
      prefix = &s;
      ++prefixes;
    }
  }
  return prefixes == 1 ? prefix : nullptr;
}

}  // namespace

ToolOptions::ToolOptions(const std::vector<std::string>& args,
                         const std::vector<OptionSpec>& specs) {
  using Arg = OptionSpec::Arg;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      positional_.insert(positional_.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                         args.end());
      return;
    }
    if (a.rfind("--", 0) == 0) {
      const std::size_t eq = a.find('=');
      const std::string name = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      const OptionSpec* s = by_long(specs, name);
      if (s == nullptr) {
        unknown_.push_back(a);
        continue;
      }
      std::optional<std::string> v;
      if (eq != std::string::npos) {
        v = a.substr(eq + 1);
      } else if (s->arg == Arg::kRequired && i + 1 < args.size()) {
        v = args[++i];
      }
      given_.emplace_back(s->key(), std::move(v));
      continue;
    }
    if (a.size() < 2 || a[0] != '-') {
      positional_.push_back(a);
      continue;
    }
    // A cluster of short options: flags, until one that takes an argument takes the rest.
    for (std::size_t k = 1; k < a.size(); ++k) {
      const OptionSpec* s = by_short(specs, a[k]);
      if (s == nullptr) {
        unknown_.push_back(std::string("-") + a[k]);
        continue;
      }
      if (s->arg == Arg::kNone) {
        given_.emplace_back(s->key(), std::nullopt);
        continue;
      }
      std::optional<std::string> v;
      if (k + 1 < a.size()) {
        v = a.substr(k + 1);
      } else if (s->arg == Arg::kRequired && i + 1 < args.size()) {
        v = args[++i];
      }
      given_.emplace_back(s->key(), std::move(v));
      break;
    }
  }
}

bool ToolOptions::has(std::string_view key) const {
  for (const auto& [k, v] : given_) {
    if (k == key) return true;
  }
  return false;
}

std::optional<std::string> ToolOptions::value(std::string_view key) const {
  std::optional<std::string> out;
  for (const auto& [k, v] : given_) {
    if (k == key) out = v;
  }
  return out;
}

std::vector<std::string> split_command(std::string_view cmdline) {
  std::istringstream in{std::string(cmdline)};
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::optional<double> parse_tool_duration(std::string_view text) {
  double v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc() || !std::isfinite(v) || v < 0) return std::nullopt;
  const std::string_view unit(r.ptr, static_cast<std::size_t>(text.data() + text.size() - r.ptr));
  if (unit.empty() || unit == "s" || unit == "S") return v;
  if (unit == "m" || unit == "M") return v * 60;
  if (unit == "h" || unit == "H") return v * 3600;
  if (unit == "d" || unit == "D") return v * 86400;
  return std::nullopt;
}

std::optional<long long> parse_whole(std::string_view text) {
  long long v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size() || v < 0) return std::nullopt;
  return v;
}

}  // namespace rtgate::importers
