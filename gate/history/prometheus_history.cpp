#include "gate/history/prometheus_history.h"

#include <cmath>

#include "base/text/rfc3339.h"

namespace rtgate::gate {

std::string read_prometheus_history(const PrometheusSource& src, const Policy& policy,
                                    HistoryBuilder& b, int* count) {
  const PrometheusSessionSink add = [&](const PrometheusSession& s,
                                        const PrometheusSeriesSet& set) {
    SessionValues out;
    out.session = {.id = s.key,
                   .boot = s.boot,
                   .started_at = text::rfc3339(s.ts),
                   .kernel = s.kernel,
                   .host = s.host,
                   .source = src.url,
                   .contaminated = s.contaminated};
    for (std::size_t i = 0; i < s.values.size(); ++i) {
      const auto& v = s.values[i];
      if (!std::isfinite(v[kPoint])) continue;
      const SuiteResult& suite = set.suites[i];
      out.values.push_back(
          {.key = set.keys[i],
           .suite = &suite,
           .case_ = &suite.cases[0],
           .metric = &suite.cases[0].metrics[0],
           .statistic = set.statistics[i],
           .value = v[kPoint],
           .within_var = std::isfinite(v[kPointVariance]) ? v[kPointVariance] : 0});
    }
    return b.add(std::move(out));
  };
  return read_prometheus_sessions(src, policy, false, add, count);
}

}  // namespace rtgate::gate
