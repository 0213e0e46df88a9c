#include "gate/pair/metric_judge.h"

#include <algorithm>
#include <cmath>

#include "base/stats/mann_whitney.h"
#include "base/stats/summary.h"
#include "gate/model/format.h"
#include "gate/noise/change_estimate.h"
#include "gate/noise/count_estimate.h"
#include "gate/noise/run_values.h"
#include "gate/pair/worst_case.h"

namespace rtgate::gate {
namespace {

std::string change_of(const Evidence& e) {
  if (!e.ratio) return (e.effect >= 0 ? "+" : "") + fmt::num(e.effect);
  return "x" + fmt::num(e.effect);
}

std::string interval_of(const Evidence& e) { return fmt::interval(e.ci_low, e.ci_high, false); }

std::string name_of(const Evidence& e) {
  if (e.test == EvidenceTest::kBudget) return "budget";
  if (e.test == EvidenceTest::kEventRate) return "events per run";
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
  v.decided_test = e.test;
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

// A latency metric's exact max: its histogram's, or a summary-only metric's largest run max;
// NaN when it has neither.
double exact_max(const Metric& m) {
  if (m.histogram) return static_cast<double>(m.histogram->max());
  double max = NAN;
  for (const LatencySummary& r : m.runs) {
    if (r.count == 0) continue;
    const auto v = static_cast<double>(r.max);
    max = std::isnan(max) ? v : std::max(max, v);
  }
  return max;
}

// The largest exact max over the sessions; NaN when none has one.
double worst_max(const std::vector<const Metric*>& sessions) {
  double worst = NAN;
  for (const Metric* m : sessions) {
    const double max = m != nullptr ? exact_max(*m) : NAN;
    if (!std::isnan(max)) worst = std::isnan(worst) ? max : std::max(worst, max);
  }
  return worst;
}

// The statistics the policy asks of `cur` that either side cannot give (statistic_unknown), as
// one "not_comparable" evidence each; the rest are returned to be judged.
std::vector<std::string> comparable_statistics(const std::vector<const Metric*>& base,
                                               const Metric& cur, const MetricPolicy& mp,
                                               std::vector<Evidence>& not_comparable) {
  std::vector<std::string> out;
  for (const std::string& s : policy_statistics(cur.kind, mp)) {
    std::string why;
    if (const std::string c = statistic_unknown(cur, s); !c.empty()) why = "current " + c;
    for (const Metric* b : base) {
      if (b == nullptr || !why.empty()) continue;
      if (const std::string w = statistic_unknown(*b, s); !w.empty()) why = "the baseline " + w;
    }
    if (why.empty()) {
      out.push_back(s);
    } else {
      not_comparable.push_back({.test = EvidenceTest::kNotComparable,
                                .statistic = s,
                                .detail = statistic_label(s) + " not comparable: " + why,
                                .indicates = Verdict::kInconclusive});
    }
  }
  return out;
}

// Evidence that is a fact about current rather than a test: a budget, runs without progress.
// The largest per-run max current may have and still be what the baseline's runs predict for one
// of n_cur further runs (one-sided at `alpha` over the n_cur runs, the session offsets included):
// exp(mean + t * sd * sqrt(1 + 1/n)) of the baseline's per-run log maxima; NaN with fewer than 3.
double predicted_run_max(const std::vector<const Metric*>& base, std::size_t n_cur, double alpha,
                         const SessionNoise& noise) {
  const SideValues b = side_values(base, "max");
  const auto n = static_cast<double>(b.values.size());
  if (n < 3 || n_cur == 0) return NAN;
  const double sd = stats::stddev(b.values);
  const double var = sd * sd * (1 + 1 / n) + 2 * std::max(0.0, noise.tau_sq);
  return std::exp(stats::amean(b.values) +
                  t_critical(alpha / static_cast<double>(n_cur), n - 1) * std::sqrt(var));
}

// Runs at 0 are data, never dropped. Of a metric where more is better (a throughput, a count of
// work), a run at 0 made no progress: regressed when no baseline run did. Of one where less is
// better, a run at 0 among runs of thousands is a run that measured nothing: inconclusive. Either
// way the metric is never unchanged, and never improved.
void add_zero_runs(const std::vector<const Metric*>& base, const Metric& cur, MetricVerdict& out) {
  const int zero = zero_runs(cur);
  if (zero == 0) return;
  int base_zero = 0;
  for (const Metric* m : base) base_zero += m != nullptr ? zero_runs(*m) : 0;
  const bool progress = cur.better == Better::kHigher;
  const bool fact = base_zero == 0 && progress;
  const std::string what = progress ? ": the work made no progress" : ": the run measured nothing";
  out.evidence.push_back(
      {.test = EvidenceTest::kZeroRuns,
       .baseline = static_cast<double>(base_zero),
       .current = static_cast<double>(zero),
       .detail =
           std::to_string(zero) + " run(s) of current measured 0 " + cur.unit + what +
           (base_zero == 0 ? std::string(" (no baseline run did)")
                           : ", and " + std::to_string(base_zero) + " baseline run(s) did too"),
       .indicates = fact ? Verdict::kRegressed : Verdict::kInconclusive,
       .deciding = fact});
}

void add_facts(const std::vector<const Metric*>& base, const Metric& cur, const MetricPolicy& mp,
               double alpha, const SessionNoise& max_noise, MetricVerdict& out) {
  const double bmax = worst_max(base);
  const double max = exact_max(cur);
  if (cur.kind == MetricKind::kLatency && mp.budget_ns) {
    const bool over = max > *mp.budget_ns;
    out.evidence.push_back({.test = EvidenceTest::kBudget,
                            .effect = max,
                            .floor = *mp.budget_ns,
                            .detail = "max " + fmt::ns(max) + (over ? " over" : " within") +
                                      " the budget of " + fmt::ns(*mp.budget_ns) +
                                      " (baseline max " + fmt::ns(bmax) + ")",
                            .indicates = over ? Verdict::kRegressed : Verdict::kUnchanged,
                            .deciding = over});
  }
  if (cur.kind == MetricKind::kLatency && std::isfinite(bmax) && std::isfinite(max)) {
    // The worst case must not have grown: not beyond the baseline's worst, and no run of current
    // beyond what the baseline's runs predict (one run with four times the max is not
    // "unchanged" because the other runs hide it in a mean).
    const double floor = 1 + mp.max_noise_floor_pct / 100;
    double run_max = 0;
    for (const LatencySummary& r : cur.runs)
      run_max = std::max(run_max, static_cast<double>(r.max));
    const double predicted = predicted_run_max(base, cur.runs.size(), alpha, max_noise);
    const bool run_within = !(run_max > predicted * floor);
    const bool within = max <= bmax * floor && run_within;
    out.evidence.push_back(
        {.test = EvidenceTest::kWorstMax,
         .baseline = bmax,
         .current = max,
         .effect = bmax > 0 ? max / bmax : NAN,
         .floor = floor,
         .detail =
             "exact max " + fmt::ns(max) + (max <= bmax * floor ? " within" : " beyond") + " x" +
             fmt::num(floor) + " of the baseline's worst session's " + fmt::ns(bmax) +
             (run_within ? std::string()
                         : "; a run's max " + fmt::ns(run_max) + " beyond x" + fmt::num(floor) +
                               " of the " + fmt::ns(predicted) + " the baseline's runs predict"),
         .indicates = within ? Verdict::kUnchanged : Verdict::kInconclusive});
  }
  if (std::optional<Evidence> gross = gross_worst_case(base, cur, mp)) {
    out.evidence.push_back(std::move(*gross));
  }
  add_zero_runs(base, cur, out);
}

bool decided_by_fact(const MetricVerdict& out) {
  return std::any_of(out.evidence.begin(), out.evidence.end(), [](const Evidence& e) {
    return (e.test == EvidenceTest::kBudget || e.test == EvidenceTest::kZeroRuns ||
            e.test == EvidenceTest::kGross) &&
           e.indicates == Verdict::kRegressed;
  });
}

}  // namespace

void judge_metric(const std::vector<const Metric*>& base_sessions, const Metric& cur,
                  const MetricPolicy& mp, const Levels& lv, const PriorOf& prior_of,
                  const NoiseOf& noise_of, MetricVerdict& out) {
  out.p_worse = 1;
  out.p_better = 1;
  const Metric& base = *base_sessions.front();
  add_facts(base_sessions, cur, mp, lv.eq, noise_of("max"), out);
  const bool over_budget = decided_by_fact(out);

  std::vector<Oriented> calls;
  const bool events = cur.is_event_rate();
  std::vector<Evidence> not_comparable;
  const std::vector<std::string> stats =
      events ? std::vector<std::string>{"rate"}
             : comparable_statistics(base_sessions, cur, mp, not_comparable);
  if (stats.empty()) {
    out.evidence.insert(out.evidence.end(), not_comparable.begin(), not_comparable.end());
    out.verdict = over_budget ? Verdict::kRegressed : Verdict::kInconclusive;
    out.reason = over_budget ? out.evidence.back().detail
                 : !not_comparable.empty()
                     ? "no statistic comparable: " + not_comparable.front().detail
                     : "the policy judges no statistic";
    return;
  }
  const double a = lv.test / static_cast<double>(stats.size());
  for (const std::string& s : stats) {
    Oriented o{};
    if (events) {
      out.evidence.push_back(
          event_statistic(base_sessions, cur, mp.count_floor_per_run, lv, a, noise_of(s), o));
    } else {
      const double floor = cur.kind != MetricKind::kLatency ? mp.noise_floor_pct
                           : s == "max"                     ? mp.max_noise_floor_pct
                                                            : mp.latency_noise_floor_pct;
      out.evidence.push_back(log_statistic(base_sessions, cur, s, floor, lv, a, prior_of(s),
                                           noise_of(s), mp.latency_min_runs, o));
    }
    calls.push_back(o);
  }
  const auto k = static_cast<double>(stats.size());
  const std::size_t first = out.evidence.size() - stats.size();  // after the facts
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
  // After the statistics: what could not be compared keeps the metric from "unchanged".
  out.evidence.insert(out.evidence.end(), not_comparable.begin(), not_comparable.end());

  if (mp.max_baseline_cv_pct > 0 && cur.kind != MetricKind::kLatency && !events &&
      stats::coeff_var(base.samples) > mp.max_baseline_cv_pct) {
    out.p_worse = out.p_better = 1;
    out.evidence.push_back(
        {.test = EvidenceTest::kBaselineCv,
         .detail = "baseline CoeffVar " + fmt::num(stats::coeff_var(base.samples)) +
                   "% exceeds max_baseline_cv_pct " + fmt::num(mp.max_baseline_cv_pct) + "%",
         .indicates = Verdict::kInconclusive});
  }
  out.verdict = over_budget ? Verdict::kRegressed : Verdict::kInconclusive;
}

namespace {

// A metric's evidence, sorted by what each kind can do to its verdict.
struct Sorted {
  std::vector<Evidence*> stats;  // the statistics' comparisons
  Evidence* budget = nullptr;
  Evidence* zero = nullptr;
  Evidence* gross = nullptr;
  Evidence* max_grew = nullptr;  // the worst case grew beyond the max floor
  std::vector<const Evidence*> unknown;
  bool cv_blocked = false;
};

Sorted sort_evidence(std::vector<Evidence>& evidence) {
  Sorted s;
  for (Evidence& e : evidence) {
    switch (e.test) {
      case EvidenceTest::kNotComparable:
        s.unknown.push_back(&e);
        break;
      case EvidenceTest::kBudget:
        s.budget = &e;
        break;
      case EvidenceTest::kZeroRuns:
        s.zero = &e;
        break;
      case EvidenceTest::kGross:
        s.gross = &e;
        break;
      case EvidenceTest::kWorstMax:
        if (e.indicates != Verdict::kUnchanged) s.max_grew = &e;
        break;
      case EvidenceTest::kBaselineCv:
        s.cv_blocked = true;
        break;
      default:
        s.stats.push_back(&e);
    }
  }
  return s;
}

// A fact decides before any test: over the budget, a gross worst-case regression, or a run that
// made no progress.
bool decide_by_fact(MetricVerdict& v, const Sorted& s) {
  if (s.budget != nullptr && s.budget->indicates == Verdict::kRegressed) {
    v.verdict = Verdict::kRegressed;
    v.decided_by = "budget";
    v.decided_test = EvidenceTest::kBudget;
    v.statistic = "max";
    v.baseline = NAN;
    v.current = s.budget->effect;
    v.reason = s.budget->detail;
    return true;
  }
  if (s.gross != nullptr) {
    v.verdict = Verdict::kRegressed;
    v.decided_by = "gross worst case";
    v.decided_test = EvidenceTest::kGross;
    v.statistic = s.gross->statistic;
    v.baseline = s.gross->baseline;
    v.current = s.gross->current;
    v.change_pct = fmt::change_pct(v.baseline, v.current);
    v.reason = s.gross->detail;
    return true;
  }
  if (s.zero != nullptr && s.zero->indicates == Verdict::kRegressed) {
    v.verdict = Verdict::kRegressed;
    v.decided_by = "zero_runs";
    v.decided_test = EvidenceTest::kZeroRuns;
    v.reason = s.zero->detail;
    return true;
  }
  return false;
}

// Holm rejected one direction: the statistic with the smallest p-value in it decides.
bool decide_by_test(MetricVerdict& v, const Sorted& s, bool worse) {
  Evidence* pick = nullptr;
  for (Evidence* e : s.stats) {
    if (!(worse ? e->counts_worse : e->counts_better)) continue;
    if (pick == nullptr || (worse ? e->p_value < pick->p_value : e->p_better < pick->p_better)) {
      pick = e;
    }
  }
  if (pick == nullptr) return false;
  pick->deciding = true;
  v.verdict = worse ? Verdict::kRegressed : Verdict::kImproved;
  take_key(v, *pick);
  v.reason = name_of(*pick) + " " + change_of(*pick) + " " + interval_of(*pick) + ", " +
             fmt::p_value(worse ? v.p_worse : v.p_better) + " at level " + fmt::num(v.level) +
             " (Holm over the gate), beyond the floor " +
             (pick->ratio ? "x" + fmt::num(pick->floor) : fmt::num(pick->floor) + " per run");
  return true;
}

// Unchanged: every statistic's interval inside its floor, and nothing that forbids it. Not worse:
// every interval's worse end inside its floor, but a better end beyond it (it may have improved
// by more than the floor, unshown). What a gate asks is then answered: nothing got worse by the
// floor or more, at the level "unchanged" promises it.
bool decide_by_intervals(MetricVerdict& v, const Sorted& s) {
  if (s.cv_blocked || s.zero != nullptr || s.max_grew != nullptr || !s.unknown.empty() ||
      s.stats.empty()) {
    return false;
  }
  const auto inside = [](const Evidence* e) {
    return e->ci_low > (e->ratio ? 1 / e->floor : -e->floor) && e->ci_high < e->floor;
  };
  const auto worse_end_inside = [&](const Evidence* e) {
    if (v.better == Better::kLower) return e->ci_high < e->floor;
    return e->ci_low > (e->ratio ? 1 / e->floor : -e->floor);
  };
  const bool unchanged = std::all_of(s.stats.begin(), s.stats.end(), inside);
  if (!unchanged && !std::all_of(s.stats.begin(), s.stats.end(), worse_end_inside)) return false;
  v.verdict = unchanged ? Verdict::kUnchanged : Verdict::kNotWorse;
  std::string parts;
  const Evidence* widest = s.stats.front();
  for (Evidence* e : s.stats) {
    if (openness(*e) > openness(*widest)) widest = e;
    e->deciding = true;
    e->indicates = v.verdict;
    parts +=
        (parts.empty() ? "" : "; ") + name_of(*e) + " " + change_of(*e) + " " + interval_of(*e);
  }
  take_key(v, *widest);
  v.decided_test.reset();
  // The headline interval is the widest statistic's: name it, or the row reads as its quantile's.
  v.decided_by = name_of(*widest) + (unchanged ? ", equivalence" : ", non-inferiority");
  v.reason = (unchanged ? "every interval inside its floor: "
                        : "every interval's worse end inside its floor (it may have improved "
                          "beyond it): ") +
             parts;
  return true;
}

// The statistic furthest from being decided (the widest interval relative to its floor).
const Evidence* most_open(const Sorted& s) {
  const Evidence* open = nullptr;
  double widest = -1;
  for (const Evidence* e : s.stats) {
    if (e->indicates == Verdict::kUnchanged) continue;
    const double width = openness(*e);
    if (width > widest) {
      widest = width;
      open = e;
    }
  }
  return open;
}

// "...; this data detects x1.3 (90% power), about 12 runs a side would detect the floor"
std::string what_would_decide(const Evidence& open) {
  const std::string floor =
      open.ratio ? "x" + fmt::num(open.floor) + " (+" + fmt::num(100 * (open.floor - 1)) + "%)"
                 : fmt::num(open.floor) + " per run";
  const std::string detectable =
      open.ratio ? "x" + fmt::num(open.detectable) : "+" + fmt::num(open.detectable) + " per run";
  return name_of(open) + " " + change_of(open) + " " + interval_of(open) +
         " is neither significant nor inside the floor " + floor + "; this data detects " +
         detectable + " (90% power)" +
         (!std::isfinite(open.runs_needed) ? ""
          : open.runs_needed > 1000
              ? ", and no practical number of runs would detect the floor on this spread "
                "(over 1000 a side): runs this different need a wider floor or a quieter host"
              : ", about " + fmt::num(open.runs_needed) + " runs a side would detect the floor");
}

// Inconclusive: name what keeps the metric open, what this data could detect, and the runs that
// would decide it.
void explain_inconclusive(MetricVerdict& v, const Sorted& s) {
  v.verdict = Verdict::kInconclusive;
  const Evidence* open = most_open(s);
  if (s.cv_blocked) {
    v.reason = v.evidence.back().detail;
    return;
  }
  if (s.zero != nullptr) {
    v.reason = s.zero->detail;
    return;
  }
  if (open == nullptr && s.max_grew != nullptr) {
    v.reason = "every interval inside its floor, but the " + s.max_grew->detail;
    return;
  }
  if (open == nullptr && !s.unknown.empty()) {
    std::string parts;
    for (const Evidence* e : s.unknown) parts += (parts.empty() ? "" : "; ") + e->detail;
    v.reason = "every comparable interval inside its floor, but " + parts;
    return;
  }
  std::string also;  // the statistics that could not be compared, after the open one
  for (const Evidence* e : s.unknown) also += "; " + e->detail;
  if (open == nullptr || !std::isfinite(open->ci_low)) {
    v.reason = (open != nullptr ? open->detail : "no statistic could be evaluated") + also;
    return;
  }
  take_key(v, *open);
  v.reason = what_would_decide(*open) + also;
}

}  // namespace

namespace {

// The worst-case evidence that keeps a metric from "improved": the worst case grew, or the
// interval of a per-run max or an event rate reaches beyond its floor. nullptr when the worst
// case is shown not worse.
const Evidence* worst_case_open(const Sorted& s) {
  if (s.max_grew != nullptr) return s.max_grew;
  for (const Evidence* e : s.stats) {
    const bool worst = e->test == EvidenceTest::kRunMax || e->test == EvidenceTest::kEventRate;
    if (worst && !shown_not_worse(*e)) return e;
  }
  return nullptr;
}

// Better after Holm, but the worst case not shown not worse: inconclusive, saying both.
void hold_improvement(MetricVerdict& v, const Evidence& open) {
  const std::string better = v.reason;
  v.verdict = Verdict::kInconclusive;
  v.reason =
      "would be improved (" + better + "), but the worst case is not shown not worse: " +
      (open.test == EvidenceTest::kWorstMax
           ? open.detail
           : name_of(open) + " " + change_of(open) + " " + interval_of(open) +
                 " reaches beyond its floor " +
                 (open.ratio ? "x" + fmt::num(open.floor) : fmt::num(open.floor) + " per run"));
}

}  // namespace

void decide_metric(MetricVerdict& v, bool worse_rejected, bool better_rejected) {
  const Sorted s = sort_evidence(v.evidence);
  if (decide_by_fact(v, s)) return;
  if (worse_rejected && decide_by_test(v, s, true)) return;
  // The worst case first: no improvement is claimed while the worst case may have grown.
  if (better_rejected && s.zero == nullptr && decide_by_test(v, s, false)) {
    if (const Evidence* open = worst_case_open(s)) {
      for (Evidence* e : s.stats) e->deciding = false;
      hold_improvement(v, *open);
      take_key(v, *open);
    }
    return;
  }
  if (decide_by_intervals(v, s)) return;
  explain_inconclusive(v, s);
}

}  // namespace rtgate::gate
