// `rtgate run ... --baseline BASE --until-decided`: gate, and while metrics are still open
// (inconclusive or missing), run each suite that has one once more, merge the run into the
// result and gate again, until every gated metric is decided, a regression is found, --max-runs
// is reached or the next round would overrun --budget. Each comparison is one look of a
// sequential plan (framework/gate/policy.h Looks): alpha is spent across the looks, so the
// verdict keeps its promise whichever look the loop stops at.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "framework/gate/policy.h"
#include "framework/gate/verdict.h"
#include "framework/runner.h"

namespace rtgate {

struct UntilDecided {
  int max_runs = 20;    // runs of a suite at most (the plan's last look)
  double budget_s = 0;  // wall time for the whole run, measured from `started_ns`; 0 = none
  std::int64_t started_ns = 0;
};

struct UntilDecidedOutcome {
  gate::GateVerdict gate;
  std::string stopped;  // why the loop ended, one line
  bool interrupted = false, abandoned = false;
};

// How a result is gated: against the baseline's sessions with the policy of the look.
using JudgeFn = std::function<gate::GateVerdict(const RunReport&, const gate::Policy&)>;

// `report` holds the first `opt.runs` runs and receives every further one; `save` is called
// after each round with it (so an interrupted loop keeps what it measured).
UntilDecidedOutcome run_until_decided(const std::vector<SelectedSuite>& selection,
                                      const RunOptions& opt, const std::atomic<bool>& interrupt,
                                      const JudgeFn& judge, gate::Policy policy,
                                      const UntilDecided& u, RunReport& report,
                                      const SuiteDoneFn& save);

}  // namespace rtgate
