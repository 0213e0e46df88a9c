#include "framework/gate/sample_judge.h"

#include <algorithm>

#include "framework/gate/format.h"
#include "framework/stats/bootstrap.h"
#include "framework/stats/mann_whitney.h"
#include "framework/stats/summary.h"
#include "framework/stats/welch_t_test.h"

namespace rtgate::gate {
namespace {

bool all_positive(const std::vector<double>& xs) {
  return std::all_of(xs.begin(), xs.end(), [](double v) { return v > 0; });
}

// Regressed or improved by direction, when significant and beyond the floor.
Verdict direction(double change_pct, Better better) {
  const bool worse = better == Better::kHigher ? change_pct < 0 : change_pct > 0;
  return worse ? Verdict::kRegressed : Verdict::kImproved;
}

}  // namespace

void judge_samples(const Metric& base, const Metric& cur, const MetricPolicy& policy,
                   MetricVerdict& out) {
  const std::vector<double>& b = base.samples;
  const std::vector<double>& c = cur.samples;
  // Hmean is undefined for a rate of 0; counts are averaged arithmetically.
  const bool harmonic = base.kind != MetricKind::kCount && all_positive(b) && all_positive(c);
  out.statistic = harmonic ? "hmean" : "amean";
  auto centre = [&](const std::vector<double>& xs) {
    if (xs.empty()) return static_cast<double>(NAN);
    return harmonic ? stats::hmean(xs) : stats::amean(xs);
  };
  out.baseline = centre(b);
  out.current = centre(c);
  out.change_pct = fmt::change_pct(out.baseline, out.current);
  const std::string headline = out.statistic + " " + fmt::num(out.baseline) + " -> " +
                               fmt::num(out.current) + " " + out.unit + " (" +
                               fmt::pct(out.change_pct) + ")";

  if (b.size() < 2 || c.size() < 2) {
    out.verdict = Verdict::kInconclusive;
    out.reason = "fewer than 2 runs (baseline " + std::to_string(b.size()) + ", current " +
                 std::to_string(c.size()) + "): no test is possible; use --runs 5";
    return;
  }

  const double confidence = 1 - policy.alpha;
  const stats::WelchResult welch =
      stats::welch_t_test(c, b, stats::Alternative::kTwoSided, confidence);
  const stats::MannWhitneyResult mw = stats::mann_whitney_u(c, b);
  const stats::RatioInterval boot = stats::bootstrap_ratio_ci(
      c, b,
      {.confidence = confidence,
       .resamples = policy.bootstrap_resamples,
       .seed = policy.seed,
       .mean = harmonic ? stats::MeanKind::kHarmonic : stats::MeanKind::kArithmetic});

  const bool beyond_floor = std::fabs(out.change_pct) > policy.noise_floor_pct;
  const bool boot_excludes_one = boot.low > 1 || boot.high < 1;
  const bool welch_agrees = (welch.mean_diff > 0) == (out.change_pct > 0);
  auto indicates = [&](double p) {
    return p < policy.alpha && beyond_floor ? direction(out.change_pct, out.better)
                                            : Verdict::kUnchanged;
  };
  out.evidence.push_back(
      {.test = "welch_t",
       .p_value = welch.p_value,
       .ci_low = welch.ci_low,
       .ci_high = welch.ci_high,
       .detail = "Welch t=" + fmt::num(welch.t) + ", df=" + fmt::num(welch.df) + ", " +
                 fmt::p_value(welch.p_value) + "; current - baseline mean " +
                 fmt::num(welch.mean_diff) + " " + out.unit + ", " + fmt::num(100 * confidence) +
                 "% CI " + fmt::interval(welch.ci_low, welch.ci_high, false),
       .indicates = welch_agrees ? indicates(welch.p_value) : Verdict::kUnchanged});
  out.evidence.push_back({.test = "mann_whitney_u",
                          .p_value = mw.p_value,
                          .detail = "Mann-Whitney U=" + fmt::num(mw.u) + " of " +
                                    std::to_string(b.size() * c.size()) + ", " +
                                    fmt::p_value(mw.p_value) +
                                    (mw.exact ? " (exact)" : " (normal approximation)"),
                          .indicates = indicates(mw.p_value)});
  out.evidence.push_back(
      {.test = "bootstrap_ratio",
       .ci_low = boot.low,
       .ci_high = boot.high,
       .detail = "current/baseline " + out.statistic + " " + fmt::num(boot.estimate) + ", " +
                 fmt::num(100 * confidence) + "% percentile bootstrap CI " +
                 fmt::interval(boot.low, boot.high, false) +
                 " (B=" + std::to_string(policy.bootstrap_resamples) + ")",
       .indicates = boot_excludes_one && beyond_floor ? direction(out.change_pct, out.better)
                                                      : Verdict::kUnchanged});

  const double cv = stats::coeff_var(b);
  if (base.kind != MetricKind::kCount && cv > policy.max_baseline_cv_pct) {
    out.verdict = Verdict::kInconclusive;
    out.reason = headline + "; baseline CoeffVar " + fmt::num(cv) + "% exceeds " +
                 fmt::num(policy.max_baseline_cv_pct) + "%: too noisy to judge";
    return;
  }
  const bool significant = welch.p_value < policy.alpha;
  if (significant && beyond_floor && welch_agrees) {
    out.verdict = direction(out.change_pct, out.better);
    out.reason = headline + ", significant (" + fmt::p_value(welch.p_value) +
                 ", Welch) and beyond the " + fmt::num(policy.noise_floor_pct) + "% noise floor";
  } else if (significant && beyond_floor) {
    out.verdict = Verdict::kUnchanged;
    out.reason = headline + "; the mean and the " + out.statistic + " disagree in direction";
  } else if (significant) {
    out.verdict = Verdict::kUnchanged;
    out.reason = headline + ", significant (" + fmt::p_value(welch.p_value) + ") but within the " +
                 fmt::num(policy.noise_floor_pct) + "% noise floor";
  } else {
    out.verdict = Verdict::kUnchanged;
    out.reason = headline + ", not significant (" + fmt::p_value(welch.p_value) + ", Welch)";
  }
}

}  // namespace rtgate::gate
