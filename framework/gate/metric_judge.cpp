#include "framework/gate/metric_judge.h"

#include <algorithm>
#include <cmath>

#include "framework/gate/count_estimate.h"
#include "framework/gate/format.h"
#include "framework/gate/run_values.h"
#include "framework/stats/mann_whitney.h"
#include "framework/stats/summary.h"

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

// Orientation: for "lower is better" the worse direction is up. A change counts in a direction
// only beyond the floor and only when it is consistent across runs: a one-sided Mann-Whitney U
// test of the per-run values significant at the unadjusted level (`robust`). What one or two runs
// alone make (an outlier run, a burst) is not a change of the system, however large. The check
// only removes rejections, so the gate keeps its level; the parametric test sets the p-value.
struct Oriented {
  double p_worse, p_better;
  bool beyond_worse, beyond_better;
  bool robust_worse = false, robust_better = false;
};

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
Evidence log_statistic(const Metric& base, const Metric& cur, const std::string& statistic,
                       double floor_pct, const Levels& lv, double a,
                       const stats::VariancePrior& prior, int min_runs, Oriented& o) {
  Evidence e{.test = statistic == "max"     ? "run_max"
                     : statistic == "value" ? "run_value"
                                            : "run_quantile",
             .statistic = statistic};
  const SideValues b = side_values(base, statistic), c = side_values(cur, statistic);
  e.baseline = geometric_mean(b);
  e.current = geometric_mean(c);
  const std::string label =
      statistic == "value" ? "per run" : statistic_label(statistic) + " per run";
  const double floor = std::log1p(floor_pct / 100);
  e.floor = std::exp(floor);
  const ChangeEstimate full = estimate_change(b, c, prior);
  const auto fewest = static_cast<int>(std::min(b.values.size(), c.values.size()));
  if (!full.ok() || (fewest < min_runs && !prior.usable())) {
    e.indicates = Verdict::kInconclusive;
    e.detail = label + ": " + std::to_string(b.values.size()) + " vs " +
               std::to_string(c.values.size()) +
               " runs with values; the run-to-run spread needs 2 runs a side (or a calibrated "
               "prior, rtgate calibrate)";
    o = {1, 1, false, false};
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
  const double per_run_var = (full.var_base + full.var_cur) / 2;
  e.runs_needed = std::ceil(2 * per_run_var * std::pow(z_sum(a) / floor, 2));
  const bool within = full.lower(lv.eq) > -floor && full.upper(lv.eq) < floor;
  classify(e, o, a, within);
  e.detail = label + ": " + value_str(cur, e.baseline) + " -> " + value_str(cur, e.current) +
             " (geometric means of " + std::to_string(b.values.size()) + " vs " +
             std::to_string(c.values.size()) + " runs), x" + fmt::num(e.effect) + " " +
             ci_name(lv) + " " + fmt::interval(e.ci_low, e.ci_high, false) + ", worse " +
             fmt::p_value(o.p_worse) + ", floor x" + fmt::num(e.floor) + ", detectable x" +
             fmt::num(e.detectable) + " (df " + fmt::num(full.df) + ")" + consistency;
  return e;
}

Evidence event_statistic(const Metric& base, const Metric& cur, double floor, const Levels& lv,
                         double a, Oriented& o) {
  Evidence e{.test = "event_rate", .statistic = "rate", .ratio = false, .floor = floor};
  e.baseline = stats::amean(base.samples);
  e.current = stats::amean(cur.samples);
  const CountEstimate full = estimate_counts(base.samples, cur.samples);
  if (!full.ok()) {
    e.indicates = Verdict::kInconclusive;
    e.detail = "no runs on a side";
    o = {1, 1, false, false};
    return e;
  }
  std::string consistency;
  o = directions(cur, full.p_up, full.p_down, full.effect, floor, base.samples, cur.samples,
                 lv.robust, e, consistency);
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
             (full.phi > 1 ? ", overdispersion x" + fmt::num(full.phi) : std::string()) +
             "), floor " + fmt::num(floor) + " per run" + consistency;
  return e;
}

std::string change_of(const Evidence& e) {
  if (!e.ratio) return (e.effect >= 0 ? "+" : "") + fmt::num(e.effect);
  return "x" + fmt::num(e.effect);
}

std::string interval_of(const Evidence& e) { return fmt::interval(e.ci_low, e.ci_high, false); }

std::string name_of(const Evidence& e) {
  if (e.test == "budget") return "budget";
  if (e.test == "event_rate") return "events per run";
  return (e.statistic == "value" ? std::string("value") : statistic_label(e.statistic)) +
         " per run";
}

void set_headline(MetricVerdict& out, const Evidence& e) {
  out.statistic = e.statistic == "value" ? "gmean" : e.statistic;
  out.baseline = e.baseline;
  out.current = e.current;
  out.change_pct = fmt::change_pct(out.baseline, out.current);
}

void take_key(MetricVerdict& v, const Evidence& e) {
  v.decided_by = name_of(e);
  v.effect = e.effect;
  v.effect_low = e.ci_low;
  v.effect_high = e.ci_high;
  v.detectable = e.detectable;
  v.ratio = e.ratio;
}

// How far a statistic is from being decided: its interval's width relative to its floor.
double openness(const Evidence& e) {
  if (!std::isfinite(e.ci_low) || !std::isfinite(e.ci_high)) return INFINITY;
  return e.ratio ? std::log(e.ci_high / e.ci_low) / std::log(e.floor)
                 : (e.ci_high - e.ci_low) / std::max(1e-12, e.floor);
}

}  // namespace

void judge_metric(const Metric& base, const Metric& cur, const MetricPolicy& mp, const Levels& lv,
                  const PriorOf& prior_of, MetricVerdict& out) {
  out.p_worse = 1;
  out.p_better = 1;
  bool over_budget = false;
  if (cur.kind == MetricKind::kLatency && mp.budget_ns) {
    const double max = cur.histogram ? static_cast<double>(cur.histogram->max()) : NAN;
    const double bmax = base.histogram ? static_cast<double>(base.histogram->max()) : NAN;
    over_budget = max > *mp.budget_ns;
    out.evidence.push_back({.test = "budget",
                            .effect = max,
                            .floor = *mp.budget_ns,
                            .detail = "max " + fmt::ns(max) + (over_budget ? " over" : " within") +
                                      " the budget of " + fmt::ns(*mp.budget_ns) +
                                      " (baseline max " + fmt::ns(bmax) + ")",
                            .indicates = over_budget ? Verdict::kRegressed : Verdict::kUnchanged,
                            .deciding = over_budget});
  }

  std::vector<Oriented> calls;
  const bool events = is_event_count(cur.kind, cur.unit);
  const std::vector<std::string> stats =
      events ? std::vector<std::string>{"rate"} : run_statistics(cur, mp);
  if (stats.empty()) {
    out.verdict = over_budget ? Verdict::kRegressed : Verdict::kInconclusive;
    out.reason = over_budget ? out.evidence.back().detail : "the policy judges no statistic";
    return;
  }
  const double a = lv.test / static_cast<double>(stats.size());
  for (const std::string& s : stats) {
    Oriented o{};
    if (events) {
      out.evidence.push_back(event_statistic(base, cur, mp.count_floor_per_run, lv, a, o));
    } else {
      const double floor = cur.kind != MetricKind::kLatency ? mp.noise_floor_pct
                           : s == "max"                     ? mp.max_noise_floor_pct
                                                            : mp.latency_noise_floor_pct;
      out.evidence.push_back(
          log_statistic(base, cur, s, floor, lv, a, prior_of(s), mp.latency_min_runs, o));
    }
    calls.push_back(o);
  }
  const auto k = static_cast<double>(stats.size());
  const std::size_t first = out.evidence.size() - stats.size();
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (calls[i].beyond_worse && calls[i].robust_worse)
      out.p_worse = std::min(out.p_worse, std::min(1.0, k * calls[i].p_worse));
    if (calls[i].beyond_better && calls[i].robust_better) {
      out.p_better = std::min(out.p_better, std::min(1.0, k * calls[i].p_better));
    }
  }
  // The headline: the highest quantile (the tail users read), or the only statistic.
  const Evidence& head =
      out.evidence[first + (stats.back() == "max" && stats.size() > 1 ? stats.size() - 2
                                                                      : stats.size() - 1)];
  set_headline(out, head);

  if (mp.max_baseline_cv_pct > 0 && cur.kind != MetricKind::kLatency && !events &&
      stats::coeff_var(base.samples) > mp.max_baseline_cv_pct) {
    out.p_worse = out.p_better = 1;
    out.evidence.push_back(
        {.test = "baseline_cv",
         .detail = "baseline CoeffVar " + fmt::num(stats::coeff_var(base.samples)) +
                   "% exceeds max_baseline_cv_pct " + fmt::num(mp.max_baseline_cv_pct) + "%",
         .indicates = Verdict::kInconclusive});
  }
  out.verdict = over_budget ? Verdict::kRegressed : Verdict::kInconclusive;
}

void decide_metric(MetricVerdict& v, bool worse_rejected, bool better_rejected) {
  std::vector<Evidence*> stats;
  Evidence* budget = nullptr;
  bool cv_blocked = false;
  for (Evidence& e : v.evidence) {
    if (e.test == "budget") {
      budget = &e;
    } else if (e.test == "baseline_cv") {
      cv_blocked = true;
    } else {
      stats.push_back(&e);
    }
  }
  const std::string level = " at level " + fmt::num(v.level);
  if (budget != nullptr && budget->indicates == Verdict::kRegressed) {
    v.verdict = Verdict::kRegressed;
    v.decided_by = "budget";
    v.statistic = "max";
    v.baseline = NAN;
    v.current = budget->effect;
    v.reason = budget->detail;
    return;
  }
  auto best = [&](bool worse) {
    Evidence* pick = nullptr;
    for (Evidence* e : stats) {
      if (!(worse ? e->counts_worse : e->counts_better)) continue;
      if (pick == nullptr || (worse ? e->p_value < pick->p_value : e->p_better < pick->p_better)) {
        pick = e;
      }
    }
    return pick;
  };
  if (worse_rejected || better_rejected) {
    Evidence* e = best(worse_rejected);
    if (e != nullptr) {
      e->deciding = true;
      v.verdict = worse_rejected ? Verdict::kRegressed : Verdict::kImproved;
      take_key(v, *e);
      v.reason = name_of(*e) + " " + change_of(*e) + " " + interval_of(*e) + ", " +
                 fmt::p_value(worse_rejected ? v.p_worse : v.p_better) + level +
                 " (Holm over the gate), beyond the floor " +
                 (e->ratio ? "x" + fmt::num(e->floor) : fmt::num(e->floor) + " per run");
      return;
    }
  }
  const bool all_within =
      !cv_blocked && !stats.empty() &&
      std::all_of(stats.begin(), stats.end(), [](const Evidence* e) {
        return e->ci_low > (e->ratio ? 1 / e->floor : -e->floor) && e->ci_high < e->floor;
      });
  if (all_within) {
    v.verdict = Verdict::kUnchanged;
    std::string parts;
    const Evidence* widest = stats.front();
    for (Evidence* e : stats) {
      if (openness(*e) > openness(*widest)) widest = e;
      e->deciding = true;
      e->indicates = Verdict::kUnchanged;
      parts +=
          (parts.empty() ? "" : "; ") + name_of(*e) + " " + change_of(*e) + " " + interval_of(*e);
    }
    take_key(v, *widest);
    v.decided_by = "equivalence";
    v.reason = "every interval inside its floor: " + parts;
    return;
  }
  // Inconclusive: name the statistic furthest from being decided (the widest interval relative to
  // its floor), what this data could detect, and the runs that would decide it.
  v.verdict = Verdict::kInconclusive;
  Evidence* open = nullptr;
  double widest = -1;
  for (Evidence* e : stats) {
    if (e->indicates == Verdict::kUnchanged) continue;
    const double width = openness(*e);
    if (width > widest) {
      widest = width;
      open = e;
    }
  }
  if (cv_blocked) {
    v.reason = v.evidence.back().detail;
    return;
  }
  if (open == nullptr || !std::isfinite(open->ci_low)) {
    v.reason = open != nullptr ? open->detail : "no statistic could be evaluated";
    return;
  }
  take_key(v, *open);
  const std::string floor =
      open->ratio ? "x" + fmt::num(open->floor) + " (+" + fmt::num(100 * (open->floor - 1)) + "%)"
                  : fmt::num(open->floor) + " per run";
  const std::string detectable = open->ratio ? "x" + fmt::num(open->detectable)
                                             : "+" + fmt::num(open->detectable) + " per run";
  v.reason =
      name_of(*open) + " " + change_of(*open) + " " + interval_of(*open) +
      " is neither significant nor inside the floor " + floor + "; this data detects " +
      detectable + " (90% power)" +
      (!std::isfinite(open->runs_needed) ? ""
       : open->runs_needed > 1000
           ? ", and no practical number of runs would detect the floor on this spread "
             "(over 1000 a side): runs this different need a wider floor or a quieter host"
           : ", about " + fmt::num(open->runs_needed) + " runs a side would detect the floor");
}

}  // namespace rtgate::gate
