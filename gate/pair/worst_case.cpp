#include "gate/pair/worst_case.h"

#include <algorithm>
#include <cmath>

#include "gate/model/format.h"

namespace rtgate::gate {
namespace {

// Each run's max (runs with samples) over the sessions.
std::vector<double> run_maxima(const std::vector<const Metric*>& sessions) {
  std::vector<double> out;
  for (const Metric* m : sessions) {
    if (m == nullptr) continue;
    for (const LatencySummary& r : m->runs) {
      if (r.count > 0) out.push_back(static_cast<double>(r.max));
    }
  }
  return out;
}

std::vector<double> run_counts(const std::vector<const Metric*>& sessions) {
  std::vector<double> out;
  for (const Metric* m : sessions) {
    if (m != nullptr) out.insert(out.end(), m->samples.begin(), m->samples.end());
  }
  return out;
}

// Current runs the gross rule lets fall short: one of 5 or more. A periodic disturbance can miss
// a whole run when its phase against the measured period stays put (as it does on a board whose
// time is counted in instructions), and one run alone is no session's noise either.
std::size_t runs_spared(std::size_t runs) { return runs >= 5 ? 1 : 0; }

// The lowest current run the rule counts, and how the reason names the runs: every run's when
// all of them are `beyond`, else the lowest but the spared ones.
struct Counted {
  double value = 0;
  std::string but;  // "" or " but one"
};
template <class Beyond>
Counted counted(std::vector<double> c, Beyond beyond) {
  std::sort(c.begin(), c.end());
  if (beyond(c.front())) return {c.front(), ""};
  return {c[runs_spared(c.size())], " but one"};
}

std::optional<Evidence> gross_latency(const std::vector<const Metric*>& base, const Metric& cur,
                                      const MetricPolicy& mp) {
  const std::vector<double> b = run_maxima(base), c = run_maxima({&cur});
  if (b.empty() || c.size() < static_cast<std::size_t>(mp.gross_min_runs)) return std::nullopt;
  const double highest = *std::max_element(b.begin(), b.end());
  const auto beyond = [&](double v) { return v > mp.gross_max_factor * highest; };
  const Counted k = counted(c, beyond);
  if (!beyond(k.value)) return std::nullopt;
  return Evidence{.test = EvidenceTest::kGross,
                  .statistic = "max",
                  .baseline = highest,
                  .current = k.value,
                  .effect = highest > 0 ? k.value / highest : INFINITY,
                  .ratio = true,
                  .floor = mp.gross_max_factor,
                  .detail = "gross: every current run's max" + k.but + " (the lowest " +
                            fmt::ns(k.value) + ", " + std::to_string(c.size()) + " runs) beyond x" +
                            fmt::num(mp.gross_max_factor) + " of every baseline run's (the " +
                            "highest " + fmt::ns(highest) + ", " + std::to_string(b.size()) +
                            " runs)",
                  .indicates = Verdict::kRegressed,
                  .deciding = true};
}

std::optional<Evidence> gross_events(const std::vector<const Metric*>& base, const Metric& cur,
                                     const MetricPolicy& mp) {
  const std::vector<double> b = run_counts(base), c = run_counts({&cur});
  if (b.empty() || c.size() < static_cast<std::size_t>(mp.gross_min_runs)) return std::nullopt;
  // Like the max: current runs beyond the factor times every baseline run. A baseline run's
  // count counts as at least the floor, so a single stray event before does not hide hundreds
  // in every run now, and a few events now never pass for gross.
  const double highest = *std::max_element(b.begin(), b.end());
  const double least =
      std::max(1.0, mp.gross_max_factor * std::max(highest, mp.count_floor_per_run));
  const auto beyond = [&](double v) { return v >= least; };
  const Counted k = counted(c, beyond);
  if (!beyond(k.value)) return std::nullopt;
  const std::string before = highest > 0
                                 ? "at most " + fmt::num(highest) + " in each of the baseline's "
                                 : "none in any of the baseline's ";
  return Evidence{.test = EvidenceTest::kGross,
                  .statistic = "rate",
                  .baseline = highest,
                  .current = k.value,
                  .effect = k.value - highest,
                  .ratio = false,
                  .floor = least,
                  .detail = "gross: " + fmt::num(k.value) + " or more " + cur.name +
                            " in every current run" + k.but + " (" + std::to_string(c.size()) +
                            " runs), " + before + std::to_string(b.size()),
                  .indicates = Verdict::kRegressed,
                  .deciding = true};
}

}  // namespace

double default_gross_factor(BoardClass c) {
  return c == BoardClass::kVirtualMachine || c == BoardClass::kEmulated ? 8 : 3;
}

std::optional<Evidence> gross_worst_case(const std::vector<const Metric*>& base, const Metric& cur,
                                         const MetricPolicy& mp) {
  if (!(mp.gross_max_factor > 1)) return std::nullopt;
  if (cur.kind == MetricKind::kLatency) return gross_latency(base, cur, mp);
  if (cur.is_event_rate()) return gross_events(base, cur, mp);
  return std::nullopt;
}

bool shown_not_worse(const Evidence& e) { return e.ci_high < e.floor; }

namespace {

// A gated count's row shows its worst case not worse: unchanged or improved, or an interval
// whose upper end is inside the floor.
bool count_not_worse(const MetricVerdict& m) {
  if (passes(m.verdict)) return true;
  if (m.verdict == Verdict::kRegressed || m.verdict == Verdict::kMissing) return false;
  return std::any_of(m.evidence.begin(), m.evidence.end(), [](const Evidence& e) {
    return e.test == EvidenceTest::kEventRate && shown_not_worse(e);
  });
}

}  // namespace

void hold_for_case_counts(SuiteVerdict& s) {
  for (const MetricVerdict& count : s.metrics) {
    if (count.kind != MetricKind::kCount || !count.gated || count_not_worse(count)) continue;
    for (MetricVerdict& m : s.metrics) {
      if (m.kind != MetricKind::kLatency || m.case_name != count.case_name || !m.gated ||
          !passes(m.verdict)) {
        continue;
      }
      m.reason = "would be " + std::string(to_string(m.verdict)) + " (" + m.reason +
                 "), but the case's " + count.metric + " is not shown not worse (" +
                 to_string(count.verdict) + ": " + count.reason + ")";
      m.verdict = Verdict::kInconclusive;
    }
  }
}

}  // namespace rtgate::gate
