// Host steal, weighed instead of given up on: each run is compared only with runs of the other
// side that saw at least as much steal on the case's CPU.
//
// A VM's host steals in every run, 5-15% of a CPU on a busy CI host, and the runs of both sides
// carry its mark. What steal can explain is a difference in steal: current worse because its
// runs lost more of their CPU to the host than any baseline run did. So, per case, a run whose
// steal share (of its CPU over the run's length) lies beyond the other side's most-stolen run is
// set aside on either side, and the verdict comes from the runs left, whose steal ranges
// overlap. A change that stands on them is judged as usual (a FIFO interferer's x7 stays
// regressed). Each side keeps at least its two least-stolen runs; where those still saw more
// steal than any run of the other side, that excess bounds what the host can explain, in the
// direction it pushes (steal_excess below): a throughput change beyond the excess share, or
// more missed periods than the excess time covers periods (the case's `period_us`), stands; a
// latency change, which a few ms of steal can make in any quantile, becomes inconclusive, its
// reason naming the steal of both sides. Steal below the policy's max_steal_pct on every run
// of both sides is not weighed at all (it is the noise every run has).
// Set-aside runs leave each metric's per-run figures; the merged histogram keeps them, so the
// exact max can still only stop "unchanged", never make a regression.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "results/report.h"

namespace rtgate::gate {

// What the runs a case kept still differ by: the share of a run (0..1) by which one side's
// most-stolen kept run exceeds the other side's most-stolen run, and the run's length.
struct StealExcess {
  double current = 0, baseline = 0;
  double run_ms = 0;
  double period_ms = 0;  // the case's period_us label, 0 when it has none
  std::string steal;     // "host steal of CPU 1: baseline runs 5.0%-9.0%, current runs ..."
};

struct StealMatched {
  bool applied = false;         // false: no run needed weighing, `base` and `cur` are empty
  std::vector<RunReport> base;  // each baseline session, its stolen runs set aside
  RunReport cur;
  // (suite, case) -> the steal its kept runs still differ by (only where they do).
  std::map<std::pair<std::string, std::string>, StealExcess> excess;
  // suite -> what was weighed, for the verdict's notes.
  std::map<std::string, std::vector<std::string>> notes;
};

// `max_steal_pct`: the policy's; steal below it on every run is not weighed.
StealMatched match_steal(const std::vector<const RunReport*>& base, const RunReport& cur,
                         double max_steal_pct);

// A suite's per-run steal share (0..1) of `cpu` (-1: the mean over its CPUs), in run order. Runs
// recorded without per-run steal (older results) share the suite's total evenly.
std::vector<double> run_steal_shares(const SuiteResult& s, int cpu);

}  // namespace rtgate::gate
