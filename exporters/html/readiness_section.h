// The report's readiness table: per item what `rtgate env` judged when the run started (ok, warn,
// bad), why, and the fix; beside the baseline's level when there is one.
#pragma once

#include <string>

#include "results/report.h"

namespace rtgate::html {

// "" when neither result recorded its readiness (results from before it was recorded).
std::string readiness_section(const RunReport& cur, const RunReport* base);

}  // namespace rtgate::html
