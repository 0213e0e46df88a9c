// The report's "Causes" section: per case traced on both sides, the causes of its latency over
// the trace threshold that grew, appeared, shrank or went away, and per suite the kernel locks
// whose contention grew (gate/cause/cause_compare.h). Empty when nothing was compared.
#pragma once

#include <string>

#include "gate/model/verdict.h"

namespace rtgate::html {

inline constexpr const char* kCausesAnchor = "causes";

std::string cause_section(const gate::GateVerdict& g);

}  // namespace rtgate::html
