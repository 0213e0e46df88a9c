// A tool's latency figures as an rtgate latency metric.
//
// rt-tests and rtla count latencies in whole units (1 us, or 1 ns with --nsecs / -n) and keep a
// histogram of one unit per bucket up to a limit, counting the samples beyond it as overflow
// whose values they do not keep. A bucket's samples go to the value the tool reports for them
// (key x unit: cyclictest and rtla truncate, so that is up to one unit below the true latency;
// oslat rounds up, so up to one unit above), which keeps the imported min, max and quantiles
// equal to the tool's own figures within the log-linear layout's resolution (1/64). Samples
// beyond the limit are known only to lie between it and the exact max: they are placed at the
// max (a quantile that falls among them reads the max, as one among rtgate's own overflow does),
// and the per-run quantiles that fall among them are unknown (0), so the gate never judges them.
// The mean is the tool's own; the stddev is computed from the buckets, the overflowed samples at
// the mean the tool's average leaves them (a lower bound when any overflowed).
//
// A tool that keeps no histogram gives a summary-only metric: count, min, mean and max.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "results/report.h"

namespace rtgate::importers {

struct ToolHistogram {
  std::map<std::uint64_t, std::uint64_t> buckets;  // value in the tool's unit -> samples
  std::uint64_t count = 0;                         // every sample, the overflowed ones included
  std::uint64_t overflow = 0;      // samples beyond the last bucket (values unknown)
  std::uint64_t min = 0, max = 0;  // the tool's own figures, in its unit
  double mean = 0;                 // the tool's own average, in its unit
  std::uint64_t unit_ns = 1000;
};

// Throws ImportError (prefixed with `where`) when the figures cannot be one run's: buckets that
// add up to more than count, a bucket outside [min, max], a mean outside it.
Metric histogram_metric(const std::string& name, const ToolHistogram& h, const std::string& where);

// count, min, mean and max alone. Throws ImportError when min > max or the mean is outside.
Metric summary_metric(const std::string& name, std::uint64_t count, std::uint64_t min, double mean,
                      std::uint64_t max, std::uint64_t unit_ns, const std::string& where);

}  // namespace rtgate::importers
