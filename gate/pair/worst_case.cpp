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

std::optional<Evidence> gross_latency(const std::vector<const Metric*>& base, const Metric& cur,
                                      const MetricPolicy& mp) {
  const std::vector<double> b = run_maxima(base), c = run_maxima({&cur});
  if (b.empty() || c.size() < static_cast<std::size_t>(mp.gross_min_runs)) return std::nullopt;
  const double lowest = *std::min_element(c.begin(), c.end());
  const double highest = *std::max_element(b.begin(), b.end());
  if (!(lowest > mp.gross_max_factor * highest)) return std::nullopt;
  return Evidence{.test = EvidenceTest::kGross,
                  .statistic = "max",
                  .baseline = highest,
                  .current = lowest,
                  .effect = highest > 0 ? lowest / highest : INFINITY,
                  .ratio = true,
                  .floor = mp.gross_max_factor,
                  .detail = "gross: every current run's max (the lowest " + fmt::ns(lowest) + ", " +
                            std::to_string(c.size()) + " runs) beyond x" +
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
  // Like the max: every current run beyond every baseline run by the factor. A baseline run's
  // count counts as at least the floor, so a single stray event before does not hide hundreds
  // in every run now, and a few events now never pass for gross.
  const double highest = *std::max_element(b.begin(), b.end());
  const double least =
      std::max(1.0, mp.gross_max_factor * std::max(highest, mp.count_floor_per_run));
  const double fewest = *std::min_element(c.begin(), c.end());
  if (!(fewest >= least)) return std::nullopt;
  const std::string before = highest > 0
                                 ? "at most " + fmt::num(highest) + " in each of the baseline's "
                                 : "none in any of the baseline's ";
  return Evidence{.test = EvidenceTest::kGross,
                  .statistic = "rate",
                  .baseline = highest,
                  .current = fewest,
                  .effect = fewest - highest,
                  .ratio = false,
                  .floor = least,
                  .detail = "gross: " + fmt::num(fewest) + " or more " + cur.name +
                            " in every current run (" + std::to_string(c.size()) + " runs), " +
                            before + std::to_string(b.size()),
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
