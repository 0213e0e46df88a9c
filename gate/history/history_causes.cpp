#include "gate/history/history_causes.h"

#include <map>
#include <utility>

namespace rtgate::gate {
namespace {

struct Pooled {
  trace::CauseProfile profile;
  double measured = 0;
};

using PerCase = std::map<std::pair<std::string, std::string>, Pooled>;

PerCase pool(const History& h, const std::string& kernel) {
  PerCase out;
  for (const HistoryProfile& p : h.profiles) {
    if (h.sessions[static_cast<std::size_t>(p.session)].kernel != kernel) continue;
    Pooled& into = out[{p.suite, p.case_name}];
    into.profile.merge(p.profile);
    into.measured += p.measured;
  }
  return out;
}

}  // namespace

std::vector<CauseComparison> history_causes(const History& history, double alpha) {
  std::vector<CauseComparison> out;
  if (history.sessions.empty() || history.profiles.empty()) return out;
  const std::string newest = history.sessions.back().kernel;
  std::string previous;
  for (auto it = history.sessions.rbegin(); it != history.sessions.rend(); ++it) {
    if (it->kernel != newest) {
      previous = it->kernel;
      break;
    }
  }
  if (previous.empty()) return out;
  const PerCase base = pool(history, previous), cur = pool(history, newest);
  for (const auto& [key, c] : cur) {
    const auto b = base.find(key);
    if (b == base.end()) continue;
    CauseComparison cmp =
        compare_causes(b->second.profile, b->second.measured, c.profile, c.measured, alpha, true);
    cmp.suite = key.first;
    cmp.case_name = key.second;
    cmp.threshold_from = "kernel " + newest + " against " + previous;
    out.push_back(std::move(cmp));
  }
  return out;
}

}  // namespace rtgate::gate
