// The worst case first. Two rules put a metric's worst case ahead of its typical values:
//
//   gross_worst_case()   decides "regressed" from one session a side, before any test, when the
//                        worst case moved so far that no session noise explains it: every run
//                        of current has a max beyond every baseline run's max by the policy's
//                        factor, or an event rate (missed periods, overruns) has in every current
//                        run the factor times what any baseline run had (a run's count taken
//                        as at least its floor). The factor is LKP's x3 on bare metal and on the
//                        deterministic board, x8 on a VM or an emulated board (board_class.h;
//                        gate/README.md has the A/A rates that set them). Current needs the
//                        policy's gross_min_runs runs, so that one burst decides nothing; of 5
//                        or more, one may fall short (a periodic stall can miss a whole run).
//   shown_not_worse()    what "improved" and "unchanged" need of a worst-case statistic (the
//                        per-run max, an event rate): its interval's upper end inside the floor.
//   hold_for_case_counts()  the same across a case's metrics: a latency metric is not improved
//                        or unchanged while its case's event rates (missed periods, overruns)
//                        are not shown not worse.
#pragma once

#include <optional>
#include <vector>

#include "gate/model/policy.h"
#include "gate/model/verdict.h"
#include "results/board_class.h"

namespace rtgate::gate {

// The gross rule's factor when the policy sets none: by the noisier side's board class.
double default_gross_factor(BoardClass c);

// The gross rule's evidence (EvidenceTest::kGross, indicating regressed and deciding) when it
// holds, else nullopt. `base` holds the metric in each baseline session (nullptr where one lacks
// it).
std::optional<Evidence> gross_worst_case(const std::vector<const Metric*>& base, const Metric& cur,
                                         const MetricPolicy& mp);

// True when the evidence's interval shows the change not worse than its floor.
bool shown_not_worse(const Evidence& e);

// Makes the suite's improved or unchanged latency rows inconclusive where a gated count of the
// same case is not shown not worse, naming it.
void hold_for_case_counts(SuiteVerdict& s);

}  // namespace rtgate::gate
