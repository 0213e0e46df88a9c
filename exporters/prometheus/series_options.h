// Which series a result becomes in Prometheus (METRICS.md, "Cardinality"): the classic latency
// histogram's buckets, and per-case families or only each suite's worst case. Chosen with
// --prom-buckets and --prom-cases on run, serve and export (series_options_export.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "exporters/export_registry.h"

namespace rtgate::prom {

// The named bucket sets: "coarse" (10, 20, 50, 100, 500 us, 1, 10 ms: the default), "standard"
// (1-2-5 from 1 us to 100 ms), "fine" (ten a decade, 1 us to 100 ms), "none".
const std::vector<double>& bucket_set(const std::string& name);
inline constexpr const char* kDefaultBuckets = "coarse";

struct SeriesOptions {
  // The classic histogram's upper bounds in seconds, ascending (+Inf is implicit); empty: no
  // rtgate_latency_seconds family at all (the exact quantiles and max stay).
  std::vector<double> bounds_s = bucket_set(kDefaultBuckets);
  // false: instead of a series set per case and metric, each suite's worst case per metric
  // (rtgate_suite_latency_worst_seconds, rtgate_suite_worst); a suite's verdict stays.
  bool per_case = true;
};

// A bucket set's name, or a list of durations with units ("10us,100us,1ms,5ms"; ns, us, ms, s),
// strictly ascending, at most 64. nullopt with *why set otherwise.
std::optional<std::vector<double>> parse_buckets(const std::string& text, std::string* why);

// The options for the values of --prom-buckets and --prom-cases ("" = the defaults). nullopt
// with *why set ("--prom-buckets: ...") when a value is bad.
std::optional<SeriesOptions> parse_series_options(const std::string& buckets,
                                                  const std::string& cases, std::string* why);

// The two flags, registered by series_options_export.cpp.
inline constexpr const char* kBucketsFlag = "--prom-buckets";
inline constexpr const char* kCasesFlag = "--prom-cases";

// The options the exporters' values give (textfile, push, serve's /metrics); the defaults where
// absent, or bad (the registered check refuses those before anything runs).
SeriesOptions series_options(const ExportValues& values);

}  // namespace rtgate::prom
