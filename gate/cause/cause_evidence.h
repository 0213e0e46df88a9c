// The gate's cause evidence: when both sides were traced, each case's cause profiles compared
// (cause_compare.h) and each suite's kernel lock contention (lock_compare.h), put into the
// GateVerdict; and a regressed latency verdict's reason extended with its case's leading new
// cause. Evidence only: run after every verdict, it changes none.
#pragma once

#include <vector>

#include "gate/model/verdict.h"
#include "results/report.h"

namespace rtgate::gate {

// `base_sessions`: the baseline's sessions (their profiles are pooled); the first is primary.
void attach_cause_evidence(GateVerdict& g, const std::vector<const RunReport*>& base_sessions,
                           const RunReport& cur);

}  // namespace rtgate::gate
