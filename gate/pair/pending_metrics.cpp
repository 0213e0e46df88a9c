#include "gate/pair/pending_metrics.h"

#include <algorithm>

#include "gate/noise/run_values.h"
#include "gate/noise/variance_priors.h"

namespace rtgate::gate {
namespace {

// A quantile with fewer than kTailSamples samples above it in a typical run is a near-max (a
// p99.9 of 2,000 samples is the second largest): its default session spread is the max's.
constexpr double kTailSamples = 10;
bool tail_like(const Metric& m, const std::string& statistic) {
  const double q = statistic_quantile(statistic);
  if (std::isnan(q) || m.runs.empty()) return false;
  std::vector<double> counts;
  for (const LatencySummary& r : m.runs) counts.push_back(static_cast<double>(r.count));
  std::nth_element(counts.begin(), counts.begin() + static_cast<std::ptrdiff_t>(counts.size() / 2),
                   counts.end());
  return counts[counts.size() / 2] * (1 - q) < kTailSamples;
}

// The group each statistic's variance prior comes from: same suite, same metric name.
GroupKey group_of(const MetricVerdict& v, const std::string& statistic) {
  return {v.suite, v.metric, statistic};
}

// The metric in each baseline session (the primary first; nullptr where a session lacks it).
std::vector<const Metric*> in_sessions(const Pending& p, const MetricVerdict& v,
                                       const std::vector<const RunReport*>& sessions) {
  std::vector<const Metric*> out{p.base};
  for (std::size_t i = 1; i < sessions.size(); ++i) {
    const SuiteResult* s = sessions[i]->find(v.suite);
    const Case* c = s != nullptr ? s->find(v.case_name) : nullptr;
    const Metric* m = c != nullptr ? c->find(v.metric) : nullptr;
    out.push_back(m != nullptr && m->kind == p.base->kind ? m : nullptr);
  }
  return out;
}

}  // namespace

void judge_pending(GateVerdict& g, const std::vector<Pending>& pending, const JudgeContext& ctx) {
  const std::vector<const RunReport*>& sessions = *ctx.sessions;
  const NoiseModel& noise = *ctx.noise;
  const bool one_session = ctx.one_session;
  VariancePriors priors;
  for (const Pending& p : pending) {
    if (p.cur->is_event_rate()) continue;
    const MetricVerdict& v = g.suites[p.suite].metrics[p.row];
    for (const std::string& s : run_statistics(*p.cur, p.policy)) {
      if (!statistic_unknown(*p.base, s).empty()) continue;  // not judged (metric_judge.h)
      priors.add(group_of(v, s), {side_values(*p.base, s), side_values(*p.cur, s)});
    }
  }
  priors.fit();
  for (const Pending& p : pending) {
    MetricVerdict& v = g.suites[p.suite].metrics[p.row];
    const PriorOf prior_of = [&](const std::string& s) {
      if (p.policy.prior) {
        const auto it = p.policy.prior->sd.find(s);
        if (it != p.policy.prior->sd.end()) {
          return stats::VariancePrior{it->second * it->second, p.policy.prior->df};
        }
      }
      const GroupMember sides{side_values(*p.base, s), side_values(*p.cur, s)};
      if (const SessionNoise n = noise.of(v.suite, v.case_name, v.metric, s, p.cur->kind);
          !one_session && n.source == NoiseSource::kHistory && n.run_df > 0) {
        // This metric's own runs in the history; but a side whose runs spread far beyond them
        // (a session with a few wild runs) keeps its own variance, as a group's outlier does.
        const stats::VariancePrior history{n.run_var, n.run_df};
        if (outlier_above(sides.base, history) || outlier_above(sides.cur, history)) {
          return stats::VariancePrior{};
        }
        return history;
      }
      return priors.prior_for(group_of(v, s), sides);
    };
    const NoiseOf noise_of = [&](const std::string& s) {
      if (one_session) return SessionNoise{};
      return noise.of(v.suite, v.case_name, v.metric, s, p.cur->kind,
                      tail_like(*p.base, s) || tail_like(*p.cur, s));
    };
    judge_metric(in_sessions(p, v, sessions), *p.cur, p.policy, ctx.levels, prior_of, noise_of, v);
    if (ctx.per_metric_alpha) v.level = p.policy.alpha * ctx.look_share;
  }
}

}  // namespace rtgate::gate
