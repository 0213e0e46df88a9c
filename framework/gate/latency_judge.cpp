#include "framework/gate/latency_judge.h"

#include <algorithm>
#include <cmath>

#include "framework/gate/format.h"
#include "framework/stats/histogram_ranks.h"
#include "framework/stats/mann_whitney.h"
#include "framework/stats/quantile_ci.h"
#include "framework/stats/rate_test.h"
#include "framework/stats/welch_t_test.h"

namespace rtgate::gate {
namespace {

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  const std::size_t n = xs.size();
  return n % 2 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

// What the signals found, and which quantile (if any) should head the row.
struct Findings {
  std::vector<std::string> worse, better;
  int evaluated = 0;
  double headline_q = NAN;
};

void quantile_signal(const LatencyHistogram& hb, const LatencyHistogram& hc, double q, double a,
                     double floor, MetricVerdict& out, Findings& f) {
  const stats::QuantileCi cb = stats::quantile_ci(hb, q, 1 - a);
  const stats::QuantileCi cc = stats::quantile_ci(hc, q, 1 - a);
  const std::string name = fmt::quantile_name(q);
  const double change = fmt::change_pct(cb.estimate, cc.estimate);
  Evidence e{.test = "quantile_ci", .ci_low = cc.low, .ci_high = cc.high};
  e.detail = name + ": baseline " + fmt::ns(cb.estimate) + " " +
             fmt::interval(cb.low, cb.high, true) + ", current " + fmt::ns(cc.estimate) + " " +
             fmt::interval(cc.low, cc.high, true) + " (" + fmt::pct(change) + "), " +
             fmt::num(100 * (1 - a)) + "% order-statistic CIs";
  const bool can_worse = std::isfinite(cc.low) && std::isfinite(cb.high);
  const bool can_better = std::isfinite(cc.high) && std::isfinite(cb.low);
  if (!can_worse && !can_better) {
    e.indicates = Verdict::kInconclusive;
    e.detail += "; too few samples to bound " + name + " (need about " +
                fmt::num(std::ceil(3 / (1 - q))) + ")";
  } else {
    ++f.evaluated;
    if (can_worse && cc.low > cb.high && change > floor) {
      e.indicates = Verdict::kRegressed;
      f.worse.push_back(name + " " + fmt::ns(cb.estimate) + " -> " + fmt::ns(cc.estimate) + " (" +
                        fmt::pct(change) + ", CIs disjoint)");
      if (std::isnan(f.headline_q)) f.headline_q = q;
    } else if (can_better && cc.high < cb.low && -change > floor) {
      e.indicates = Verdict::kImproved;
      f.better.push_back(name + " " + fmt::pct(change) + " (CIs disjoint)");
    }
  }
  out.evidence.push_back(std::move(e));
}

void exceedance_signal(const LatencyHistogram& hb, const LatencyHistogram& hc, double q, double a,
                       double floor, MetricVerdict& out, Findings& f) {
  // The threshold comes from the pooled data, never from the baseline alone: a threshold at the
  // baseline's own empirical quantile fixes the baseline's count at its expectation while the
  // current count keeps its full binomial spread, which biases the test towards "worse" (two
  // identical back-to-back runs gated as regressed here). Pooled, both sides are treated alike.
  // The quantile is lowered so that about 20 pooled samples lie above it: fewer cannot show a
  // rate change at any useful alpha.
  LatencyHistogram pooled = hb;
  pooled.merge(hc);
  const double n_pooled = static_cast<double>(pooled.count());
  const double q_used = n_pooled > 0 ? std::min(q, std::max(0.5, 1.0 - 20.0 / n_pooled)) : q;
  const std::uint64_t threshold = pooled.quantile(q_used);
  const stats::CountRange kb = stats::count_above(hb, threshold);
  const stats::CountRange kc = stats::count_above(hc, threshold);
  const std::uint64_t nb = hb.count(), nc = hc.count();
  // Each direction takes the counts least favourable to it.
  const stats::RateTestResult up =
      stats::rate_test(kc.low, nc, kb.high, nb, stats::Alternative::kGreater, 1 - a);
  const stats::RateTestResult down =
      stats::rate_test(kc.high, nc, kb.low, nb, stats::Alternative::kLess, 1 - a);
  const stats::RateTestResult both =
      stats::rate_test(kc.low, nc, kb.high, nb, stats::Alternative::kTwoSided, 1 - a);
  const bool rising = up.rate_x >= up.rate_y;
  Evidence e{.test = "exceedance_rate",
             .p_value = rising ? up.p_value : down.p_value,
             .ci_low = both.ratio_low,
             .ci_high = both.ratio_high};
  e.detail = "samples above the pooled " + fmt::quantile_name(q_used) + " (" +
             fmt::ns(static_cast<double>(threshold)) + "): baseline " + std::to_string(kb.high) +
             " of " + std::to_string(nb) + ", current " + std::to_string(kc.low) + " of " +
             std::to_string(nc) + ", rate ratio " + fmt::num(both.ratio) + " " +
             fmt::interval(both.ratio_low, both.ratio_high, false) + ", " +
             fmt::p_value(e.p_value) + " (exact conditional binomial test)";
  ++f.evaluated;
  if (up.p_value < a && (up.ratio - 1) * 100 > floor) {
    e.indicates = Verdict::kRegressed;
    f.worse.push_back("rate above " + fmt::ns(static_cast<double>(threshold)) + " x" +
                      fmt::num(up.ratio) + " (" + fmt::p_value(up.p_value) + ")");
  } else if (down.p_value < a && (1 - down.ratio) * 100 > floor) {
    e.indicates = Verdict::kImproved;
    f.better.push_back("rate above " + fmt::ns(static_cast<double>(threshold)) + " x" +
                       fmt::num(down.ratio) + " (" + fmt::p_value(down.p_value) + ")");
  }
  out.evidence.push_back(std::move(e));
}

void block_maxima_signal(const std::vector<double>& b, const std::vector<double>& c, double a,
                         double floor, MetricVerdict& out, Findings& f) {
  Evidence e{.test = "block_maxima"};
  if (b.size() < 2 || c.size() < 2) {
    e.indicates = Verdict::kInconclusive;
    e.detail = "block maxima: fewer than 2 on a side (baseline " + std::to_string(b.size()) +
               ", current " + std::to_string(c.size()) + "), not tested";
    out.evidence.push_back(std::move(e));
    return;
  }
  const stats::MannWhitneyResult mw = stats::mann_whitney_u(c, b);
  const double mb = median(b), mc = median(c);
  const double change = fmt::change_pct(mb, mc);
  e.p_value = mw.p_value;
  e.detail = "block maxima: median baseline " + fmt::ns(mb) + ", current " + fmt::ns(mc) + " (" +
             fmt::pct(change) + "), Mann-Whitney U=" + fmt::num(mw.u) + " of " +
             std::to_string(b.size() * c.size()) + ", " + fmt::p_value(mw.p_value) +
             (mw.exact ? " (exact)" : " (normal approximation)");
  ++f.evaluated;
  if (mw.p_value < a && mw.effect > 0.5 && change > floor) {
    e.indicates = Verdict::kRegressed;
    f.worse.push_back("block maxima median " + fmt::pct(change) + " (" + fmt::p_value(mw.p_value) +
                      ")");
  } else if (mw.p_value < a && mw.effect < 0.5 && -change > floor) {
    e.indicates = Verdict::kImproved;
    f.better.push_back("block maxima median " + fmt::pct(change) + " (" + fmt::p_value(mw.p_value) +
                       ")");
  }
  out.evidence.push_back(std::move(e));
}

bool kept_per_run(double q) {
  return std::any_of(LatencySummary::kQuantiles.begin(), LatencySummary::kQuantiles.end(),
                     [q](double k) { return std::fabs(k - q) < 1e-12; });
}

// The run's own value of quantile q (one that kept_per_run).
double run_quantile(const LatencySummary& s, double q) {
  for (const auto& [kq, v] : s.quantiles()) {
    if (std::fabs(kq - q) < 1e-12) return static_cast<double>(v);
  }
  return NAN;
}

std::vector<double> log_run_values(const std::vector<LatencySummary>& runs, double q) {
  std::vector<double> out;
  for (const LatencySummary& r : runs) {
    if (r.count > 0) out.push_back(std::log(std::max(1.0, run_quantile(r, q))));
  }
  return out;
}

// The run as the unit of replication: each run's quantile q, compared by Welch's t-test on log
// values (latency changes are multiplicative, and the log makes the effect a ratio of geometric
// means). A run's quantile is a bucket's upper edge, known to 1/64 of its value, so each side's
// variance is floored at that quantisation's (ln(1 + 1/64))^2 / 12: identical runs then compare
// as equal instead of "exactly different".
void run_quantile_signal(const std::vector<LatencySummary>& rb,
                         const std::vector<LatencySummary>& rc, double q, double a, double floor,
                         MetricVerdict& out, Findings& f) {
  const std::vector<double> lb = log_run_values(rb, q), lc = log_run_values(rc, q);
  const std::string name = fmt::quantile_name(q);
  Evidence e{.test = "run_quantile"};
  if (lb.size() < 2 || lc.size() < 2) {
    e.indicates = Verdict::kInconclusive;
    e.detail = name + " per run: fewer than 2 runs with samples on a side, not tested";
    out.evidence.push_back(std::move(e));
    return;
  }
  const double step = std::log1p(1.0 / LatencyHistogram::kSubCount);
  const double var_floor = step * step / 12;
  const stats::WelchResult up =
      stats::welch_t_test(lc, lb, stats::Alternative::kGreater, 1 - a, var_floor);
  const stats::WelchResult down =
      stats::welch_t_test(lc, lb, stats::Alternative::kLess, 1 - a, var_floor);
  const stats::WelchResult both =
      stats::welch_t_test(lc, lb, stats::Alternative::kTwoSided, 1 - a, var_floor);
  const double ratio = std::exp(both.mean_diff);
  const double change = 100 * (ratio - 1);
  auto range = [&](const std::vector<double>& logs) {
    const auto [lo, hi] = std::minmax_element(logs.begin(), logs.end());
    return fmt::ns(std::exp(*lo)) + ".." + fmt::ns(std::exp(*hi));
  };
  std::uint64_t fewest = UINT64_MAX;
  for (const auto* runs : {&rb, &rc}) {
    for (const LatencySummary& r : *runs) fewest = std::min(fewest, r.count);
  }
  e.p_value = change >= 0 ? up.p_value : down.p_value;
  e.ci_low = std::exp(both.ci_low);
  e.ci_high = std::exp(both.ci_high);
  e.detail = name + " per run: baseline " + std::to_string(lb.size()) + " runs " + range(lb) +
             ", current " + std::to_string(lc.size()) + " runs " + range(lc) +
             ", geometric-mean ratio " + fmt::num(ratio) + " " +
             fmt::interval(e.ci_low, e.ci_high, false) + ", " + fmt::p_value(e.p_value) +
             " (Welch t on log values)";
  if (static_cast<double>(fewest) * (1 - q) < 3) {
    e.detail += "; a run has only " + std::to_string(fewest) + " samples, so its " + name +
                " is near its max";
  }
  ++f.evaluated;
  if (up.p_value < a && change > floor) {
    e.indicates = Verdict::kRegressed;
    f.worse.push_back(name + " per run x" + fmt::num(ratio) + " (" + fmt::p_value(up.p_value) +
                      ", " + std::to_string(lc.size()) + " vs " + std::to_string(lb.size()) +
                      " runs)");
    if (std::isnan(f.headline_q)) f.headline_q = q;
  } else if (down.p_value < a && -change > floor) {
    e.indicates = Verdict::kImproved;
    f.better.push_back(name + " per run x" + fmt::num(ratio) + " (" + fmt::p_value(down.p_value) +
                       ")");
  }
  out.evidence.push_back(std::move(e));
}

}  // namespace

void judge_latency(const Metric& base, const Metric& cur, const MetricPolicy& policy,
                   MetricVerdict& out) {
  if (policy.quantiles.empty()) {
    out.verdict = Verdict::kInconclusive;
    out.reason = "the policy gates no quantile";
    return;
  }
  const double q_top = *std::max_element(policy.quantiles.begin(), policy.quantiles.end());
  out.statistic = fmt::quantile_name(q_top);
  const bool base_ok = base.histogram && base.histogram->count() > 0;
  const bool cur_ok = cur.histogram && cur.histogram->count() > 0;
  if (!base_ok || !cur_ok) {
    out.verdict = Verdict::kInconclusive;
    out.reason = std::string("no latency samples on the ") + (!base_ok && !cur_ok ? "either side"
                                                              : !base_ok          ? "baseline side"
                                                                                  : "current side");
    return;
  }
  const LatencyHistogram& hb = *base.histogram;
  const LatencyHistogram& hc = *cur.histogram;
  auto headline = [&](double q) {
    out.statistic = fmt::quantile_name(q);
    out.baseline = static_cast<double>(hb.quantile(q));
    out.current = static_cast<double>(hc.quantile(q));
    out.change_pct = fmt::change_pct(out.baseline, out.current);
  };
  headline(q_top);

  bool over_budget = false;
  if (policy.budget_ns) {
    const double budget = *policy.budget_ns;
    over_budget = static_cast<double>(hc.max()) > budget;
    out.evidence.push_back({.test = "budget",
                            .detail = "max " + fmt::ns(static_cast<double>(hc.max())) +
                                      (over_budget ? " over" : " within") + " the budget of " +
                                      fmt::ns(budget) + " (baseline max " +
                                      fmt::ns(static_cast<double>(hb.max())) + ")",
                            .indicates = over_budget ? Verdict::kRegressed : Verdict::kUnchanged});
  }

  const double floor = policy.latency_noise_floor_pct;
  const auto min_runs = static_cast<std::size_t>(policy.latency_min_runs);
  const bool by_run = base.runs.size() >= min_runs && cur.runs.size() >= min_runs;
  // Run by run: the per-run quantiles decide, at alpha / (number of quantiles); the pooled tests
  // are still computed and shown as supporting evidence (`support`), since they see what runs
  // cannot (a shift inside every run too small to beat the between-run spread).
  // Pooled only (too few runs): the pooled tests decide, at alpha / (quantiles + 2).
  const std::size_t pooled_tests = policy.quantiles.size() + 1 + 1;
  const double a = policy.alpha / static_cast<double>(pooled_tests);
  std::size_t run_tests = 0;
  for (const double q : policy.quantiles) run_tests += kept_per_run(q) ? 1 : 0;
  const double a_run = policy.alpha / static_cast<double>(std::max<std::size_t>(1, run_tests));
  Findings f, support;
  auto supporting = [&](auto&& signal) {
    const std::size_t first = out.evidence.size();
    signal(by_run ? support : f);
    if (!by_run) return;
    for (std::size_t i = first; i < out.evidence.size(); ++i) {
      out.evidence[i].deciding = false;
      out.evidence[i].detail = "pooled samples: " + out.evidence[i].detail;
    }
  };
  for (const double q : policy.quantiles) {
    if (by_run && kept_per_run(q)) {
      run_quantile_signal(base.runs, cur.runs, q, a_run, floor, out, f);
      supporting([&](Findings& into) { quantile_signal(hb, hc, q, a, floor, out, into); });
    } else {
      // A quantile the per-run summaries do not keep is judged on the pooled samples.
      const std::size_t first = out.evidence.size();
      quantile_signal(hb, hc, q, a, floor, out, f);
      if (by_run) out.evidence[first].detail += " (not kept per run: judged on pooled samples)";
    }
  }
  supporting([&](Findings& into) { exceedance_signal(hb, hc, q_top, a, floor, out, into); });
  supporting(
      [&](Findings& into) { block_maxima_signal(base.samples, cur.samples, a, floor, out, into); });
  const std::string mode = by_run ? " (per-run quantiles over " + std::to_string(base.runs.size()) +
                                        " vs " + std::to_string(cur.runs.size()) + " runs, alpha " +
                                        fmt::num(policy.alpha) + " over " +
                                        std::to_string(run_tests) + " tests)"
                                  : " (pooled samples, alpha " + fmt::num(policy.alpha) + " over " +
                                        std::to_string(pooled_tests) + " tests)";

  if (over_budget) {
    out.verdict = Verdict::kRegressed;
    out.statistic = "max";
    out.baseline = static_cast<double>(hb.max());
    out.current = static_cast<double>(hc.max());
    out.change_pct = fmt::change_pct(out.baseline, out.current);
    out.reason = "max " + fmt::ns(out.current) + " over the budget of " +
                 fmt::ns(*policy.budget_ns) + (f.worse.empty() ? "" : "; " + join(f.worse));
  } else if (!f.worse.empty()) {
    out.verdict = Verdict::kRegressed;
    if (!std::isnan(f.headline_q)) headline(f.headline_q);
    out.reason = join(f.worse) + mode;
    if (!f.better.empty()) out.reason += "; although " + join(f.better);
  } else if (f.evaluated == 0) {
    out.verdict = Verdict::kInconclusive;
    out.reason = "too few samples to compare (baseline " + std::to_string(hb.count()) +
                 ", current " + std::to_string(hc.count()) + ")";
  } else if (!f.better.empty()) {
    out.verdict = Verdict::kImproved;
    out.reason = join(f.better) + mode;
  } else {
    out.verdict = Verdict::kUnchanged;
    out.reason = out.statistic + " " + fmt::ns(out.baseline) + " -> " + fmt::ns(out.current) +
                 " (" + fmt::pct(out.change_pct) + "): no change beyond the " + fmt::num(floor) +
                 "% noise floor is significant" + mode;
  }
  if (by_run && out.verdict != Verdict::kRegressed && !support.worse.empty()) {
    out.reason += "; the pooled samples differ (" + join(support.worse) +
                  ") but not beyond the spread between runs";
  }
}

}  // namespace rtgate::gate
