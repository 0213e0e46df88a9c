#include "results/contamination.h"

#include <string>
#include <vector>

namespace rtgate {

void assess_hygiene(SuiteResult& res, Hygiene h) {
  const std::vector<std::string> suite_wide = contamination_reasons(h);
  for (Case& c : res.cases) {
    std::uint64_t missed = 0;
    if (const Metric* m = c.find("missed_periods")) {
      for (double v : m->samples) missed += static_cast<std::uint64_t>(v);
      h.missed_periods += missed;
    }
    const auto cpu = c.labels.find("cpu");
    const bool on_a_cpu = cpu != c.labels.end();
    if (on_a_cpu) {
      add_unique(c.contaminated_reasons, contamination_reasons_for_cpu(h, std::stoi(cpu->second)));
    }
    // A case on one CPU: what could run there, or throttling; elsewhere, anything of the suite's.
    const bool explained = on_a_cpu ? !c.contaminated_reasons.empty() || h.rt_throttled > 0
                                    : !suite_wide.empty();
    if (missed > 0 && explained) {
      c.contaminated_reasons.push_back(std::to_string(missed) +
                                       " missed periods, which these may account for");
    }
    c.contaminated = !c.contaminated_reasons.empty();
    add_unique(res.contaminated_reasons, c.contaminated_reasons);
  }
  add_unique(res.contaminated_reasons, suite_wide);
  res.contaminated = !res.contaminated_reasons.empty();
  res.hygiene = std::move(h);
}

}  // namespace rtgate
