#include "framework/readiness/readiness.h"

#include <algorithm>

#include "base/text/cpu_list.h"

namespace rtgate::readiness {
namespace {

std::vector<CheckSpec>& registry() {
  static std::vector<CheckSpec> checks;
  return checks;
}

}  // namespace

const char* to_string(Level l) {
  switch (l) {
    case Level::kOk:
      return "ok";
    case Level::kWarn:
      return "warn";
    case Level::kBad:
      return "bad";
  }
  return "?";
}

CheckRegistrar::CheckRegistrar(CheckSpec spec) { registry().push_back(spec); }

std::vector<Finding> assess(const Context& ctx) {
  std::vector<CheckSpec> checks = registry();
  std::stable_sort(checks.begin(), checks.end(), [](const CheckSpec& a, const CheckSpec& b) {
    return a.order != b.order ? a.order < b.order : std::string(a.name) < b.name;
  });
  std::vector<Finding> out;
  for (const CheckSpec& c : checks) c.fn(ctx, out);
  return out;
}

std::vector<int> online_cpus(const SysRoot& root) {
  return text::parse_cpu_list(root.trimmed("/sys/devices/system/cpu/online"))
      .value_or(std::vector<int>{});
}

int count(const std::vector<Finding>& findings, Level l) {
  return static_cast<int>(std::count_if(findings.begin(), findings.end(),
                                        [l](const Finding& f) { return f.level == l; }));
}

std::string summary(const std::vector<Finding>& findings) {
  const int bad = count(findings, Level::kBad), warn = count(findings, Level::kWarn);
  if (bad > 0) {
    return "not ready: " + std::to_string(bad) + " bad, " + std::to_string(warn) + " warn";
  }
  if (warn > 0) {
    return "ready for RT measurement, with " + std::to_string(warn) + " warning" +
           (warn == 1 ? "" : "s");
  }
  return "ready for RT measurement";
}

std::vector<ReadinessItem> record(const SysRoot& root, const std::vector<int>& cpus) {
  std::vector<ReadinessItem> out;
  for (const Finding& f : assess({.root = root, .cpus = cpus})) {
    out.push_back({.item = f.item,
                   .level = to_string(f.level),
                   .why = f.why,
                   .fix = f.fix,
                   .evidence = f.evidence});
  }
  return out;
}

}  // namespace rtgate::readiness
