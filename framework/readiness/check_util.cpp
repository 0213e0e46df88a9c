#include "framework/readiness/check_util.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "base/text/cpu_list.h"
#include "base/text/strings.h"

namespace rtgate::readiness {

std::optional<std::string> cmdline_param(const SysRoot& root, const std::string& name) {
  std::istringstream words(root.trimmed("/proc/cmdline"));
  std::optional<std::string> found;
  for (std::string w; words >> w;) {
    if (w == name) found = "";
    if (w.rfind(name + "=", 0) == 0) found = w.substr(name.size() + 1);  // the last one counts
  }
  return found;
}

std::vector<int> cpus_of(const std::string& list) {
  std::string cpus;
  std::istringstream parts(list);
  for (std::string p; std::getline(parts, p, ',');) {
    if (p.empty() || !std::isdigit(static_cast<unsigned char>(p[0]))) continue;  // a flag
    cpus += (cpus.empty() ? "" : ",") + p;
  }
  return text::parse_cpu_list(cpus).value_or(std::vector<int>{});
}

std::vector<int> missing(const std::vector<int>& want, const std::vector<int>& have) {
  std::vector<int> out;
  for (const int c : want) {
    if (std::find(have.begin(), have.end(), c) == have.end()) out.push_back(c);
  }
  return out;
}

std::vector<int> cpus_of_mask(const std::string& mask) {
  std::string hex;
  for (const char ch : mask) {
    if (std::isxdigit(static_cast<unsigned char>(ch))) hex += ch;
  }
  std::vector<int> out;
  for (std::size_t i = 0; i < hex.size(); ++i) {
    const int nibble = std::stoi(std::string(1, hex[hex.size() - 1 - i]), nullptr, 16);
    for (int b = 0; b < 4; ++b) {
      if ((nibble >> b) & 1) out.push_back(static_cast<int>(i) * 4 + b);
    }
  }
  return out;
}

std::string list(const std::vector<int>& cpus) { return text::format_cpu_list(cpus); }

std::string words(const std::vector<int>& cpus) {
  std::string out;
  for (const int c : cpus) out += (out.empty() ? "" : " ") + std::to_string(c);
  return out;
}

std::string read_as_evidence(const SysRoot& root, const std::string& path) {
  const std::optional<std::string> text = root.read(path);
  if (!text) return path + ": (absent)";
  const std::string v(text::trim(*text));
  return path + ": " + (v.empty() ? "(empty)" : v);
}

void add(std::vector<Finding>& out, std::string item, Level level, std::string why, std::string fix,
         std::string evidence) {
  out.push_back({.item = std::move(item),
                 .level = level,
                 .why = std::move(why),
                 .fix = std::move(fix),
                 .evidence = std::move(evidence)});
}

}  // namespace rtgate::readiness
