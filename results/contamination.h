// What marks a suite's result and its cases contaminated: something outside the system under test
// that can take the measured CPU's time (results/hygiene.h's reasons: a foreign RT thread that
// may run there, steal, RT throttling). Missed periods are the kernel's own symptom, which the
// gate judges as event counts: alone they contaminate nothing; beside such a reason they are
// named with it, as what it may account for.
#pragma once

#include "results/report.h"

namespace rtgate {

// Sets the contamination of `res` and its cases from the suite's hygiene `h`, which it records
// in `res` with the missed periods of its cases summed in.
void assess_hygiene(SuiteResult& res, Hygiene h);

}  // namespace rtgate
