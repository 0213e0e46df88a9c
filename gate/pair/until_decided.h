// `rtgate run ... --baseline BASE --until-decided`: gate, and while metrics are still open
// (inconclusive or missing), run each suite that has one once more, merge the run into the
// result and gate again, until every gated metric is decided, a regression is found, --max-runs
// is reached or the next round would overrun --budget. Each comparison is one look of a
// sequential plan (gate/model/policy.h Looks): alpha is spent across the looks, so the
// verdict keeps its promise whichever look the loop stops at.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gate/model/policy.h"
#include "gate/model/verdict.h"
#include "results/report.h"

namespace rtgate {

struct UntilDecided {
  int first_runs = 1;   // runs of each suite the result holds before the loop
  int max_runs = 20;    // runs of a suite at most (the plan's last look)
  double budget_s = 0;  // wall time for the whole run, as `elapsed_s` measures it; 0 = none
  // Seconds since the run began, from the caller's clock (the gate reads none); needed with a
  // budget.
  std::function<double()> elapsed_s;
};

struct UntilDecidedOutcome {
  gate::GateVerdict gate;
  std::string stopped;  // why the loop ended, one line
  bool interrupted = false, abandoned = false;
};

// How a result is gated: against the baseline's sessions with the policy of the look.
using JudgeFn = std::function<gate::GateVerdict(const RunReport&, const gate::Policy&)>;

// One more run of each of the named suites: the caller runs them (the gate never runs anything).
struct Round {
  RunReport report;
  bool interrupted = false, abandoned = false;
};
using RunRoundFn = std::function<Round(const std::vector<std::string>& suites)>;

// What the loop does between looks, for the caller to show or keep: `progress` gets one line
// before each further round, `save` the result after it (so an interrupted loop keeps what it
// measured). Either may be empty.
struct UntilDecidedHooks {
  std::function<void(const std::string&)> progress;
  std::function<void(const RunReport&)> save;
};

// `report` holds the first `u.first_runs` runs and receives every further one.
UntilDecidedOutcome run_until_decided(const JudgeFn& judge, gate::Policy policy,
                                      const UntilDecided& u, RunReport& report,
                                      const RunRoundFn& run_round, const UntilDecidedHooks& hooks);

}  // namespace rtgate
