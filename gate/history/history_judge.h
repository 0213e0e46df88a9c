// What a board's history says: per gated statistic its change points, the newest kernel against
// the segment before it, and the drift per kernel; and for the history as a whole whether the
// newest kernel starts a worse segment (`rtgate history`'s exit code).
//
// Multiplicity is the gate's: a fixed family of max(family_size, m) metrics, each metric's alpha
// split evenly over its statistics, so a statistic is tested at alpha / (family * k). At that level
// a history with no change reports any change point with probability at most alpha, and the
// newest kernel is called worse with probability at most alpha (gate/README.md).
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "gate/cause/cause_compare.h"
#include "gate/history/change_points.h"
#include "gate/history/history.h"
#include "gate/model/policy.h"

namespace rtgate::gate {

enum class HistoryOutcome { kNotWorse, kWorse, kTooShort };

struct StatisticTrend {
  int series = 0;  // index into History::series
  SeriesFindings findings;
  std::vector<int> kernel;  // each point's kernel, an index into HistoryReport::kernels
  double alpha = 0;         // the statistic's level
  // The noise floor: a log ratio, or for an event rate events per run.
  double floor = 0;
  bool newest_worse = false, newest_better = false;
  // Per entry of findings.changes: beyond the noise floor (a change point that counts: the
  // promise and the table's WORSE are about these), and that in the worse direction.
  std::vector<bool> change_beyond, change_worse;
};

struct HistoryReport {
  std::vector<std::string> kernels;  // in order of first appearance
  std::string newest_kernel;
  int newest_sessions = 0;  // the newest kernel's sessions at the end of the history
  int family = 0;           // metrics in the multiplicity family
  // The reference t's df for the newest kernel's test and for the splits: the tails the
  // sessions show (raw, and cleaned), infinite for normal ones.
  double tail_df = INFINITY, split_tail_df = INFINITY;
  double alpha = 0.05;
  std::vector<StatisticTrend> trends;
  HistoryOutcome outcome = HistoryOutcome::kTooShort;
  std::string reason;  // one line: what decided the outcome
  // What a kernel gate needs to hear besides the outcome, one line each: the baseline session
  // sits in a worse segment (a regressed kernel became the baseline); a kernel whose own gate
  // was inconclusive started a worse segment, as the sessions since show.
  std::vector<std::string> notes;
  // Per case traced on both: the newest kernel's causes against the kernel's before it.
  std::vector<CauseComparison> causes;
};

// `baseline_session`: the index in history.sessions of the session a gate takes as its
// baseline (-1: none).
HistoryReport judge_history(const History& history, const Policy& policy,
                            int baseline_session = -1);

// 1 worse, 0 not worse, 3 too short to say.
int exit_code(const HistoryReport& report);

// A change of `size` (log scale) from `level` as the table prints it: "+12.3%", or for an event
// rate "+1.5/run".
std::string describe_change(const HistorySeries& s, double level, double size);

}  // namespace rtgate::gate
