// The latency side of one case in the report: per latency metric, the histogram on log-count and
// log-latency axes (baseline overlaid, dashed; p99, p99.9 and max of each side marked), a line of
// figures per side, and the per-run p50/p99/p99.9/max (baseline dashed), so drift between runs
// sits next to the verdict that pooled them.
#pragma once

#include <string>

#include "results/report.h"

namespace rtgate::html {

// `base` may be null. A summary-only metric (imported) gets its figures without charts; "" when
// a metric has neither (a history read).
std::string latency_charts(const std::string& title, const Metric& cur, const Metric* base);

// Tick text for nanoseconds: "500 ns", "20 us", "1 ms", "2 s".
std::string ns_tick(double ns);

}  // namespace rtgate::html
