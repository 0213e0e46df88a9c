// `rtgate run --trace --baseline BASE.json` without --trace-threshold-us: each suite's trace
// threshold is chosen from the baseline, so that both sides' cause profiles count samples over the
// same threshold and have enough of them. The baseline's own trace threshold when it was traced
// with one (the profiles are then comparable), else the lowest p99 of the suite's latency metrics
// in the baseline (about 1% of the samples cross it there: hundreds in a run of seconds).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "framework/trace/traced_run.h"
#include "results/report.h"

namespace rtgate::cli {

std::map<std::string, trace::TraceOptions::Chosen> choose_trace_thresholds(
    const RunReport& baseline, const std::vector<std::string>& suites);

}  // namespace rtgate::cli
