// Number formatting for the gate's one-line reasons and evidence details.
#pragma once

#include <string>

#include "gate/model/verdict.h"

namespace rtgate::gate::fmt {

std::string ns(double v);             // "850 ns", "12.3 us", "1.25 ms", "2.10 s"
std::string pct(double v);            // "+12.3%", "-4.0%", "+inf%"
std::string p_value(double p);        // "p=0.0021", "p=3.1e-09"
std::string share(double fraction);   // 0.412 -> "41%", 0.003 -> "<1%", 0.997 -> ">99%"
std::string num(double v);            // 4 significant digits
std::string quantile_name(double q);  // 0.99 -> "p99", 0.999 -> "p999", 0.5 -> "p50"
std::string interval(double lo, double hi, bool as_ns);  // "[1.2 us, 3.4 us]", "[0.91, inf]"
double change_pct(double baseline, double current);      // +-inf when baseline is 0

// A metric verdict's change: "x1.02 [0.95, 1.10]" (a ratio) or "+0.40/run [-1.2, 2.0]" (events
// per run); "-" when unknown.
std::string effect(const MetricVerdict& m);
// "x1.25" or "+2.1/run": the change detectable with 90% power; "-" when unknown.
std::string detectable(const MetricVerdict& m);

}  // namespace rtgate::gate::fmt
