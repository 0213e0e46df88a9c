#include "framework/bind_params.h"

#include "framework/selection.h"

namespace rtgate {
namespace {

std::string param_names(const SuiteDescriptor& d) {
  std::string s;
  for (const ParamSpec& p : d.params) s += (s.empty() ? "" : ", ") + p.name;
  return s.empty() ? "none" : s;
}

bool apply(SelectedSuite& sel, const ParamAssignment& a, std::string* error) {
  const ParamSpec* spec = sel.suite->find_param(a.param);
  if (spec == nullptr) {
    *error = "suite '" + std::string(sel.suite->name.value) + "' has no parameter '" + a.param +
             "' (it has: " + param_names(*sel.suite) + ")";
    return false;
  }
  std::string why;
  const auto value = spec->parse(a.value, &why);
  if (!value) {
    *error = std::string(sel.suite->name.value) + ": " + why;
    return false;
  }
  sel.params.set(a.param, *value);
  return true;
}

}  // namespace

std::optional<std::vector<SelectedSuite>> bind_params(
    const std::vector<const SuiteDescriptor*>& suites, const std::vector<std::string>& assignments,
    std::string* error) {
  std::vector<SelectedSuite> out;
  for (const SuiteDescriptor* d : suites) out.push_back({d, Params(d->params)});

  for (const std::string& text : assignments) {
    const auto a = parse_assignment(text, error);
    if (!a) return std::nullopt;
    if (!a->suite.empty()) {
      SelectedSuite* target = nullptr;
      for (SelectedSuite& s : out) {
        if (a->suite == s.suite->name.value) target = &s;
      }
      if (target == nullptr) {
        std::vector<std::string> names;
        for (const SelectedSuite& s : out) names.emplace_back(s.suite->name.value);
        *error = "parameter '" + text + "' names suite '" + a->suite + "', which is not selected";
        const auto near = closest_names(names, a->suite, 1);
        if (!near.empty()) *error += "; did you mean " + near.front() + "?";
        return std::nullopt;
      }
      if (!apply(*target, *a, error)) return std::nullopt;
      continue;
    }
    bool any = false;
    for (SelectedSuite& s : out) {
      if (s.suite->find_param(a->param) == nullptr) continue;
      any = true;
      if (!apply(s, *a, error)) return std::nullopt;
    }
    if (!any) {
      std::vector<std::string> known;
      for (const SelectedSuite& s : out) {
        for (const ParamSpec& p : s.suite->params) known.push_back(p.name);
      }
      *error = "no selected suite has a parameter '" + a->param + "'";
      const auto near = closest_names(known, a->param, 1);
      if (!near.empty()) *error += "; did you mean " + near.front() + "?";
      return std::nullopt;
    }
  }
  for (const SelectedSuite& s : out) {
    if (s.suite->validate == nullptr) continue;
    if (std::string why = s.suite->validate(s.params); !why.empty()) {
      *error = std::string(s.suite->name.value) + ": " + why;
      return std::nullopt;
    }
  }
  return out;
}

}  // namespace rtgate
