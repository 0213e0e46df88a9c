// The non-latency side of a suite in the report: a table of every throughput, duration and
// count metric of every case in the manner of mmtests' compare pages and the seed threads
// (Hmean or Amean, stddev, min and max of the runs, baseline and % change, threads as a multiple
// of the CPUs for overcommit), and line charts of throughput against thread count for cases that
// sweep a numeric "threads" label (lock.throughput's LiTL-style sweep, mm.pft's 1..N).
#pragma once

#include <string>

#include "exporters/html/verdict_lookup.h"
#include "results/report.h"

namespace rtgate::html {

// "" when the suite has no non-latency metric.
std::string metric_table(const SuiteResult& cur, const SuiteResult* base,
                         const VerdictIndex& verdicts, int cpus);

// "" when no group of cases sweeps threads over two or more values.
std::string sweep_charts(const SuiteResult& cur, const SuiteResult* base);

}  // namespace rtgate::html
