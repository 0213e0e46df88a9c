#include "gate/cause/cause_compare.h"

#include <algorithm>
#include <boost/math/distributions/hypergeometric.hpp>
#include <cmath>
#include <cstdio>

#include "base/stats/holm.h"
#include "base/text/units.h"
#include "gate/model/format.h"
#include "gate/noise/count_estimate.h"

namespace rtgate::gate {
namespace {

using trace::CauseProfile;
using trace::CauseStats;

double ratio(double part, double whole) { return whole > 0 ? part / whole : 0; }

// The Pearson spread of a class's per-slice counts around an even rate over the run's slices,
// sum (x_s - x/S)^2 / (x/S) on S - 1 degrees of freedom: bursts, and samples over the threshold
// coming in clumps, show as a spread larger than Poisson's. (The slices measure alike: one per
// second of a periodic measuring thread.)
struct Spread {
  double chi2 = 0, df = 0;
};
Spread spread_of(const CauseProfile& p, const CauseStats* c) {
  const auto slices = static_cast<double>(p.slices);
  if (c == nullptr || c->samples == 0 || slices < 2) return {};
  const auto x = static_cast<double>(c->samples);
  return {.chi2 = std::max(0.0, slices * c->slice_sq / x - x), .df = slices - 1};
}

// The session term (count_estimate.h's): a side's count also carries its session's offset of
// the cause's rate, tau^2 times its expected count at the pooled rate.
double session_term(double x_b, double x_c, double e_b, double e_c, bool two_sessions) {
  if (!two_sessions) return 0;
  const double rate = (x_b + x_c) / (e_b + e_c);
  return kCauseSessionTau * kCauseSessionTau * rate * std::max(e_b, e_c);
}

// The samples a side's analysed crossings stand for: the measured ones, less the share of
// crossings the analysis budget skipped.
double exposure(const CauseProfile& p, double measured) {
  const auto crossings = static_cast<double>(p.samples + p.not_analysed);
  return crossings > 0 ? measured * static_cast<double>(p.samples) / crossings : measured;
}

const CauseStats* find(const CauseProfile& p, const std::string& name) {
  const auto it = p.causes.find(name);
  return it == p.causes.end() ? nullptr : &it->second;
}

CauseChange change_of(const std::string& name, const CauseProfile& b, const CauseProfile& c) {
  const CauseStats* sb = find(b, name);
  const CauseStats* sc = find(c, name);
  CauseChange ch{.cause = name};
  ch.samples_base = sb ? sb->samples : 0;
  ch.samples_cur = sc ? sc->samples : 0;
  ch.in_base = ratio(static_cast<double>(ch.samples_base), static_cast<double>(b.samples));
  ch.in_cur = ratio(static_cast<double>(ch.samples_cur), static_cast<double>(c.samples));
  ch.share_base = ratio(sb ? static_cast<double>(sb->ns) : 0, static_cast<double>(b.ns));
  ch.share_cur = ratio(sc ? static_cast<double>(sc->ns) : 0, static_cast<double>(c.ns));
  ch.is_new = ch.samples_base == 0;
  ch.is_gone = ch.samples_cur == 0;
  return ch;
}

// One-sided p-value that the cause's fraction of the samples over the threshold rose (`up`) or
// fell: Fisher's exact test on both sides' counts, each divided by the dispersion phi (the
// effective sizes of quasi-binomial counts). A baseline of 20 samples knows its fractions to
// +-20%: without this, a cause's observed rise from it was taken at face value.
double fraction_p(double xb, double nb, double xc, double nc, double phi, bool up) {
  const double f = std::max(1.0, phi);
  const auto eff = [f](double v) { return static_cast<unsigned>(std::floor(v / f + 0.5)); };
  unsigned kb = eff(xb), kc = eff(xc);
  unsigned sb = std::max(eff(nb), kb), sc = std::max(eff(nc), kc);
  if (!up) {
    std::swap(kb, kc);
    std::swap(sb, sc);
  }
  if (sb == 0 || sc == 0 || kc == 0) return 1;
  const unsigned total = sb + sc, marked = kb + kc;
  const unsigned lowest = sc + marked > total ? sc + marked - total : 0;
  if (kc <= lowest) return 1;
  const boost::math::hypergeometric_distribution<double> d(marked, sc, total);
  return boost::math::cdf(boost::math::complement(d, kc - 1));
}

void rate_test(const CauseProfile& b, double mb, const CauseProfile& c, double mc, double alpha,
               bool two_sessions, CauseComparison& out) {
  std::vector<std::string> names;
  for (const auto& [name, s] : b.causes) names.push_back(name);
  for (const auto& [name, s] : c.causes) {
    if (b.causes.count(name) == 0) names.push_back(name);
  }
  const double eb = exposure(b, mb), ec = exposure(c, mc);
  std::vector<CauseChange> changes;
  std::vector<double> p_up, p_down, f_up, f_down;
  for (const std::string& name : names) {
    CauseChange ch = change_of(name, b, c);
    const auto xb = static_cast<double>(ch.samples_base), xc = static_cast<double>(ch.samples_cur);
    const Spread sb = spread_of(b, find(b, name)), sc = spread_of(c, find(c, name));
    const double dispersion = dispersion_bound(sb.chi2 + sc.chi2, sb.df + sc.df);
    ch.phi = dispersion + session_term(xb, xc, eb, ec, two_sessions);
    const RateTest t = exact_rate_test(xb, xc, eb, ec, ch.phi);
    p_up.push_back(t.p_up);
    p_down.push_back(t.p_down);
    const auto nb = static_cast<double>(b.samples), nc = static_cast<double>(c.samples);
    // The session term is the rate test's: both tests must reject, so it bounds the pair.
    f_up.push_back(fraction_p(xb, nb, xc, nc, dispersion, true));
    f_down.push_back(fraction_p(xb, nb, xc, nc, dispersion, false));
    changes.push_back(std::move(ch));
  }
  // Both the rate and the fraction must have moved: a run that crossed the threshold more often
  // raises every cause's rate, and only a fraction that rose beyond its sampling error (both
  // sides') says this cause's part grew.
  const std::vector<bool> up = stats::holm_reject(p_up, alpha),
                          down = stats::holm_reject(p_down, alpha),
                          frac_up = stats::holm_reject(f_up, alpha),
                          frac_down = stats::holm_reject(f_down, alpha);
  for (std::size_t i = 0; i < changes.size(); ++i) {
    CauseChange& ch = changes[i];
    if (up[i] && frac_up[i] && ch.in_cur - ch.in_base >= kMinRise &&
        ch.share_cur - ch.share_base >= kMinRise) {
      ch.p = std::max(p_up[i], f_up[i]);
      out.grew.push_back(ch);
    } else if (down[i] && frac_down[i] && ch.in_base - ch.in_cur >= kMinRise &&
               ch.share_base - ch.share_cur >= kMinRise) {
      ch.p = std::max(p_down[i], f_down[i]);
      out.shrank.push_back(ch);
    }
  }
}

}  // namespace

double measured_samples(const Case& c) {
  for (const Metric& m : c.metrics) {
    if (m.kind != MetricKind::kLatency) continue;
    double n = 0;
    for (const LatencySummary& r : m.runs) n += static_cast<double>(r.count);
    return n;
  }
  return 0;
}

CauseComparison compare_causes(const CauseProfile& b, double measured_base, const CauseProfile& c,
                               double measured_cur, double alpha, bool two_sessions) {
  CauseComparison out{
      .threshold_ns = c.threshold_ns, .samples_base = b.samples, .samples_cur = c.samples};
  if (b.threshold_ns <= 0 || c.threshold_ns <= 0) {
    out.note =
        "traced without a threshold (only each run's new worst samples were analysed): "
        "give --trace-threshold-us, or --baseline, to compare causes";
  } else if (b.threshold_ns != c.threshold_ns) {
    out.note = "traced over different thresholds (" + text::in_us(b.threshold_ns) + " and " +
               text::in_us(c.threshold_ns) + "): causes not compared";
  } else if (c.samples < kMinSamples || b.samples < kMinSamples) {
    const bool cur_few = c.samples < kMinSamples;
    out.note = std::string(cur_few ? "current" : "the baseline") + " has " +
               std::to_string(cur_few ? c.samples : b.samples) + " samples " +
               over(c.threshold_ns) + " (fewer than " + std::to_string(kMinSamples) +
               "): too few samples, causes not compared";
  } else if (!(measured_base > 0) || !(measured_cur > 0)) {
    out.note = "no measured samples to rate the causes against: causes not compared";
  } else {
    rate_test(b, measured_base, c, measured_cur, alpha, two_sessions, out);
  }
  std::stable_sort(out.grew.begin(), out.grew.end(), [](const auto& x, const auto& y) {
    return x.share_cur - x.share_base > y.share_cur - y.share_base;
  });
  std::stable_sort(out.shrank.begin(), out.shrank.end(), [](const auto& x, const auto& y) {
    return x.share_base - x.share_cur > y.share_base - y.share_cur;
  });
  return out;
}

}  // namespace rtgate::gate
