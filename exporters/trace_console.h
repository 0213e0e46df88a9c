// The trace evidence of a suite as console lines, printed under its summary table: the worst
// sample of each traced CPU explained, the break, the lock contention, and the trace's health.
#pragma once

#include <string>

#include "results/report.h"

namespace rtgate {

std::string render_trace(const SuiteResult& s);

}  // namespace rtgate
