// The causes in a board's history: the cause profiles of the newest kernel's sessions, pooled
// per case, compared with those of the kernel before it (cause_compare.h). What `rtgate history`
// shows beside its trends when the sessions were traced.
#pragma once

#include <vector>

#include "gate/cause/cause_compare.h"
#include "gate/history/history.h"

namespace rtgate::gate {

// Empty when the history has one kernel, or no traced case on both kernels.
std::vector<CauseComparison> history_causes(const History& history, double alpha);

}  // namespace rtgate::gate
