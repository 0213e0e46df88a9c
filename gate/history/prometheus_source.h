// A board's history read from Prometheus instead of result files (`rtgate history --prometheus`):
// the sessions a farm pushed or scraped (exporters/prometheus/METRICS.md, "A board's history in
// Prometheus"), into the same HistoryBuilder as files, so that the judge sees the same numbers.
//
// A session is a distinct rtgate_run_timestamp_seconds of a host: a Pushgateway's or textfile's
// last result, scraped again and again, is one session, and sessions of one boot
// (rtgate_boot_key) merge as with files. Its kernel is the series' kernel_release. The values are
// rtgate_history_point and rtgate_history_point_variance at the first evaluation step where the
// session's timestamp appears: the timestamps are found by query_range calls of at most kMaxSteps
// steps each over the span asked for, the values by an instant query at each such step; every
// reply is bounded (--max-input). Two sessions of one host closer than
// a step are one: the step must be shorter than the time between sessions (a run takes minutes).
#pragma once

#include <optional>
#include <string>

#include "base/io/http_get.h"
#include "gate/history/history.h"

namespace rtgate::gate {

struct PrometheusSource {
  std::string url;    // http(s)://HOST:PORT, or with a path prefix (a proxy's)
  std::string match;  // label matchers, PromQL's, with or without braces: host="lab1"
  double end_s = 0;   // Unix seconds; 0: now
  double span_s = 90 * 86400.0;
  double step_s = 60;
  io::HttpAuth auth;
  long timeout_s = 120;  // per query
};

inline constexpr int kMaxSteps = 10000;  // Prometheus refuses more than 11,000 points a series

// Adds every session the source holds to `b`, with the statistics `policy` follows (b's). Returns
// "" or a one-line error: a bad URL or matcher, an unreachable server, an HTTP error with
// Prometheus' own reason (an auth failure, a series or sample limit), a reply past the input limit.
// *sessions counts the sessions read.
std::string read_prometheus_history(const PrometheusSource& src, const Policy& policy,
                                    HistoryBuilder& b, int* sessions);

// The matchers of `match` checked and without braces ("" is every series); nullopt with *why
// when they are not PromQL label matchers.
std::optional<std::string> prometheus_matchers(const std::string& match, std::string* why);

}  // namespace rtgate::gate
