#include "gate/noise/statistic_evidence.h"

#include <algorithm>
#include <cmath>

#include "base/stats/mann_whitney.h"
#include "base/stats/summary.h"
#include "gate/model/format.h"
#include "gate/noise/change_estimate.h"
#include "gate/noise/count_estimate.h"
#include "gate/noise/run_values.h"

namespace rtgate::gate {
namespace {

constexpr double kPower = 0.9;

double z_sum(double alpha) {
  return t_critical(alpha, INFINITY) + t_critical(1 - kPower, INFINITY);
}

std::string ci_name(const Levels& lv) { return fmt::num(100 * (1 - 2 * lv.eq)) + "% CI"; }

// Figures shown for a value of the metric's unit: ns for latency, else the number and unit.
std::string value_str(const Metric& m, double v) {
  return m.kind == MetricKind::kLatency ? fmt::ns(v) : fmt::num(v) + " " + m.unit;
}

Oriented orient(Better better, double p_up, double p_down, double effect, double floor,
                double p_up_without, double p_down_without, double robust) {
  const bool lower_better = better == Better::kLower;
  return {.p_worse = lower_better ? p_up : p_down,
          .p_better = lower_better ? p_down : p_up,
          .beyond_worse = lower_better ? effect > floor : effect < -floor,
          .beyond_better = lower_better ? effect < -floor : effect > floor,
          .robust_worse = !((lower_better ? p_up_without : p_down_without) > robust),
          .robust_better = !((lower_better ? p_down_without : p_up_without) > robust)};
}

// Fewer runs a side than this cannot show consistency at 5% (3 against 3: p >= 1/20), so the
// check is waived there; such a verdict rests on the (calibrated) variance alone.
constexpr std::size_t kConsistencyRuns = 3;

std::string consistency_text(double p_rank, double robust) {
  if (std::isnan(p_rank)) return "; consistency across runs not testable (fewer than 3 a side)";
  return "; across runs (Mann-Whitney) " + fmt::p_value(p_rank) +
         (p_rank <= robust ? "" : ", not consistent across runs: not counted");
}

// One-sided rank tests of current against baseline per-run values: (up, down); NaN when waived.
std::pair<double, double> rank_p(const std::vector<double>& b, const std::vector<double>& c) {
  if (b.size() < kConsistencyRuns || c.size() < kConsistencyRuns) return {NAN, NAN};
  return {stats::mann_whitney_u(c, b, stats::Alternative::kGreater).p_value,
          stats::mann_whitney_u(c, b, stats::Alternative::kLess).p_value};
}

// Both directions of one statistic: the parametric p-values into `e`, the floors and the
// consistency across runs of the per-run values `b` and `c`; `consistency` is the detail's tail.
Oriented directions(const Metric& cur, double p_up, double p_down, double effect, double floor,
                    const std::vector<double>& b, const std::vector<double>& c, double robust,
                    Evidence& e, std::string& consistency) {
  const auto [rank_up, rank_down] = rank_p(b, c);
  const Oriented o = orient(cur.better, p_up, p_down, effect, floor, rank_up, rank_down, robust);
  e.p_value = o.p_worse;
  e.p_better = o.p_better;
  consistency = o.beyond_worse
                    ? consistency_text(cur.better == Better::kLower ? rank_up : rank_down, robust)
                    : "";
  return o;
}

void classify(Evidence& e, const Oriented& o, double a, bool within) {
  e.counts_worse = o.beyond_worse && o.robust_worse;
  e.counts_better = o.beyond_better && o.robust_better;
  if (o.p_worse <= a && o.beyond_worse && o.robust_worse) {
    e.indicates = Verdict::kRegressed;
  } else if (o.p_better <= a && o.beyond_better && o.robust_better) {
    e.indicates = Verdict::kImproved;
  } else {
    e.indicates = within ? Verdict::kUnchanged : Verdict::kInconclusive;
  }
}

// exp(mean) of per-run log values: the geometric mean in the metric's unit; NaN without values.
double geometric_mean(const SideValues& s) {
  if (s.values.empty()) return NAN;
  double m = 0;
  for (double v : s.values) m += v;
  return std::exp(m / static_cast<double>(s.values.size()));
}

// A log-scale statistic (latency quantile or max per run, throughput or duration per run).
}  // namespace

Evidence log_statistic(const std::vector<const Metric*>& base, const Metric& cur,
                       const std::string& statistic, double floor_pct, const Levels& lv, double a,
                       const stats::VariancePrior& prior, const SessionNoise& noise, int min_runs,
                       Oriented& o) {
  Evidence e{.test = statistic == "max"     ? EvidenceTest::kRunMax
                     : statistic == "value" ? EvidenceTest::kRunValue
                                            : EvidenceTest::kRunQuantile,
             .statistic = statistic};
  const SideValues b = side_values(base, statistic), c = side_values(cur, statistic);
  e.baseline = geometric_mean(b);
  e.current = geometric_mean(c);
  const std::string label =
      statistic == "value" ? "per run" : statistic_label(statistic) + " per run";
  const double floor = std::log1p(floor_pct / 100);
  e.floor = std::exp(floor);
  const ChangeEstimate full = estimate_change(b, c, prior, noise);
  const auto fewest = static_cast<int>(std::min(b.values.size(), c.values.size()));
  const bool single_run_history = noise.source == NoiseSource::kHistory && !(noise.run_df > 0);
  if (!full.ok() || (fewest < min_runs && !prior.usable() && !single_run_history)) {
    e.indicates = Verdict::kInconclusive;
    e.detail = label + ": " + std::to_string(b.values.size()) + " vs " +
               std::to_string(c.values.size()) +
               " runs with values; the run-to-run spread needs 2 runs a side, a calibrated "
               "prior (rtgate calibrate) or a history of single-run sessions (--history)";
    o = {};
    return e;
  }
  std::string consistency;
  o = directions(cur, full.p_up, full.p_down, full.effect, floor, b.values, c.values, lv.robust, e,
                 consistency);
  e.effect = std::exp(full.effect);
  e.ci_low = std::exp(full.lower(lv.eq));
  e.ci_high = std::exp(full.upper(lv.eq));
  const double det = full.detectable(a, kPower);
  e.detectable = std::exp(det);
  // Runs shrink only the run part of the error; the sessions' part needs more sessions.
  const double per_run_var = (full.var_base + full.var_cur) / 2;
  const double z2 = std::pow(z_sum(a), 2);
  const double tau_sq = std::max(0.0, noise.tau_sq);
  const double room = floor * floor - 2 * tau_sq * z2;
  e.runs_needed = room > 0 ? std::ceil(2 * per_run_var * z2 / room) : INFINITY;
  e.sessions_needed = tau_sq > 0
                          ? std::ceil(2 * (tau_sq + per_run_var / std::max<double>(1, fewest)) *
                                      z2 / (floor * floor))
                          : NAN;
  e.noise = noise.describe(true);
  const bool within = full.lower(lv.eq) > -floor && full.upper(lv.eq) < floor;
  classify(e, o, a, within);
  e.detail = label + ": " + value_str(cur, e.baseline) + " -> " + value_str(cur, e.current) +
             " (geometric means of " + std::to_string(b.values.size()) + " vs " +
             std::to_string(c.values.size()) + " runs), x" + fmt::num(e.effect) + " " +
             ci_name(lv) + " " + fmt::interval(e.ci_low, e.ci_high, false) + ", worse " +
             fmt::p_value(o.p_worse) + ", floor x" + fmt::num(e.floor) + ", detectable x" +
             fmt::num(e.detectable) + " (df " + fmt::num(full.df) + "; " +
             std::to_string(full.k_base) + " vs " + std::to_string(full.k_cur) + " sessions, " +
             e.noise + ")" + consistency;
  return e;
}

Evidence event_statistic(const std::vector<const Metric*>& base, const Metric& cur, double floor,
                         const Levels& lv, double a, const SessionNoise& noise, Oriented& o) {
  Evidence e{.test = EvidenceTest::kEventRate, .statistic = "rate", .ratio = false, .floor = floor};
  const SideCounts b = side_counts(base), c = side_counts({&cur});
  e.baseline = stats::amean(b.values);
  e.current = stats::amean(c.values);
  const CountEstimate full = estimate_counts(b, c, noise);
  if (!full.ok()) {
    e.indicates = Verdict::kInconclusive;
    e.detail = "no runs on a side";
    o = {};
    return e;
  }
  std::string consistency;
  o = directions(cur, full.p_up, full.p_down, full.effect, floor, b.values, c.values, lv.robust, e,
                 consistency);
  e.noise = noise.describe(false);
  e.effect = full.effect;
  e.ci_low = full.lower(lv.eq);
  e.ci_high = full.upper(lv.eq);
  e.detectable = full.detectable(a, kPower);
  const double pooled = std::max((full.rate_base * static_cast<double>(full.n_base) +
                                  full.rate_cur * static_cast<double>(full.n_cur)) /
                                     static_cast<double>(full.n_base + full.n_cur),
                                 1.0 / static_cast<double>(full.n_base + full.n_cur));
  e.runs_needed =
      floor > 0 ? std::ceil(2 * full.phi * pooled * std::pow(z_sum(a) / floor, 2)) : NAN;
  classify(e, o, a, e.ci_low > -floor && e.ci_high < floor);
  e.detail = fmt::num(full.rate_base) + " -> " + fmt::num(full.rate_cur) + " " + cur.unit +
             " per run (" + std::to_string(full.n_base) + " vs " + std::to_string(full.n_cur) +
             " runs), difference " + fmt::num(e.effect) + " " + ci_name(lv) + " " +
             fmt::interval(e.ci_low, e.ci_high, false) + ", worse " + fmt::p_value(o.p_worse) +
             " (exact rate test" +
             (full.phi > 1 ? ", dispersion x" + fmt::num(full.phi) : std::string()) + "; " +
             e.noise + "), floor " + fmt::num(floor) + " per run" + consistency;
  return e;
}

}  // namespace rtgate::gate
