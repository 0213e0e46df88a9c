#include "framework/selection.h"

#include <fnmatch.h>

#include <algorithm>
#include <set>

namespace rtgate {
namespace {

bool is_glob(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

bool matches(const SuiteDescriptor& d, const std::string& selector) {
  if (selector.rfind("tag:", 0) == 0) return d.has_tag(selector.substr(4));
  if (is_glob(selector)) return fnmatch(selector.c_str(), d.name.value, 0) == 0;
  return selector == d.name.value;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string no_match_error(const std::vector<SuiteDescriptor>& suites, const std::string& sel) {
  if (sel.rfind("tag:", 0) == 0) {
    std::set<std::string> tags;
    for (const auto& d : suites) tags.insert(d.tags.begin(), d.tags.end());
    std::vector<std::string> known(tags.begin(), tags.end());
    std::string msg = "no suite has tag '" + sel.substr(4) + "'";
    const auto near = closest_names(known, sel.substr(4));
    if (!near.empty()) msg += "; did you mean tag:" + near.front() + "?";
    return msg;
  }
  if (is_glob(sel)) return "no suite matches '" + sel + "' (see `rtgate list`)";
  std::vector<std::string> names;
  for (const auto& d : suites) names.emplace_back(d.name.value);
  std::string msg = "unknown suite '" + sel + "'";
  const auto near = closest_names(names, sel);
  if (!near.empty()) {
    msg += "; did you mean ";
    for (std::size_t i = 0; i < near.size(); ++i) msg += (i ? ", " : "") + near[i];
    msg += "?";
  }
  return msg;
}

}  // namespace

std::vector<std::string> closest_names(const std::vector<std::string>& candidates,
                                       const std::string& name, std::size_t limit) {
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& c : candidates) {
    std::size_t d = edit_distance(name, c);
    // A prefix ("lock" for "lock.latency") is as good as a near miss.
    if (c.rfind(name, 0) == 0 && !name.empty()) d = std::min<std::size_t>(d, 1);
    const std::size_t allowed = std::max<std::size_t>(2, name.size() / 3);
    if (d <= allowed) scored.emplace_back(d, c);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < limit; ++i) out.push_back(scored[i].second);
  return out;
}

Selection select_suites(const std::vector<SuiteDescriptor>& suites,
                        const std::vector<std::string>& selectors,
                        const std::string& default_selector) {
  Selection out;
  std::vector<std::string> include, exclude;
  for (const auto& s : selectors) {
    if (s.empty() || s == "-") {
      out.error = "empty selector";
      return out;
    }
    (s[0] == '-' ? exclude : include).push_back(s[0] == '-' ? s.substr(1) : s);
  }
  if (include.empty() && !default_selector.empty()) include.push_back(default_selector);

  std::vector<bool> chosen(suites.size(), include.empty());
  for (const auto& sel : include) {
    bool any = false;
    for (std::size_t i = 0; i < suites.size(); ++i) {
      if (matches(suites[i], sel)) chosen[i] = any = true;
    }
    if (!any) return out.error = no_match_error(suites, sel), out;
  }
  for (const auto& sel : exclude) {
    bool any = false;
    for (std::size_t i = 0; i < suites.size(); ++i) {
      if (matches(suites[i], sel)) {
        any = true;
        chosen[i] = false;
      }
    }
    if (!any) return out.error = no_match_error(suites, sel) + " (in exclusion -" + sel + ")", out;
  }
  for (std::size_t i = 0; i < suites.size(); ++i) {
    if (chosen[i]) out.suites.push_back(&suites[i]);
  }
  return out;
}

}  // namespace rtgate
