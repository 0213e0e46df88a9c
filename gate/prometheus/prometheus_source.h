// A board's history read from Prometheus instead of result files (`rtgate history --prometheus`,
// `rtgate gate --prometheus`): the sessions a farm pushed or scraped (exporters/prometheus/
// METRICS.md, "A board's history in Prometheus"), handed over as the same numbers a result file
// gives, so that the judge decides alike.
//
// A session is a distinct rtgate_run_timestamp_seconds of a host: a Pushgateway's or textfile's
// last result, scraped again and again, is one session, and sessions of one boot
// (rtgate_boot_key) merge as with files. Its kernel is the series' kernel_release. The values are
// the rtgate_history_point* families at the first evaluation step where the session's timestamp
// appears (its marker). The markers are found by query_range calls of at most kMaxSteps steps
// each over the span asked for; the values by query_range calls over windows of close markers of
// one kernel, filtered to the marker steps on the server. Every reply is bounded (--max-input). Two
// sessions of one host closer than a step are one: the step must be shorter than the time between
// sessions (a run takes minutes).
#pragma once

#include <array>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/io/http_get.h"
#include "gate/model/policy.h"
#include "results/report.h"

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

// What a session carries per statistic: the families' values, NaN where it has none.
enum PointPart { kPoint, kPointVariance, kSpread, kSpreadDf, kPointParts };

// One session as Prometheus holds it.
struct PrometheusSession {
  std::string key;  // "host|timestamp"
  std::string host, kernel;
  std::string boot;  // "host:boot:N" (rtgate_boot_key), or the key when it has none
  double ts = 0;     // rtgate_run_timestamp_seconds: when its run finished
  bool contaminated = false;
  std::vector<std::array<double, kPointParts>> values;  // by series index
};

// The series the sessions' values are indexed by: each a suite with one case (and its labels)
// with one metric, and the statistic. Grows while the sessions are read.
struct PrometheusSeriesSet {
  std::deque<SuiteResult> suites;
  std::vector<std::string> keys;        // suite, case, metric, statistic joined by \x1f
  std::vector<std::string> statistics;  // by index
};

// Called once per session, when all its values are read; returns "" or an error that stops the
// reading.
using PrometheusSessionSink =
    std::function<std::string(const PrometheusSession&, const PrometheusSeriesSet&)>;

// Reads every session the source holds, with the statistics `policy` follows; `for_gate`, also
// the runs' spread and the reported-only metrics' statistics (a gate's noise model needs them, a
// history does not). Returns "" or a
// one-line error: a bad URL or matcher, an unreachable server, an HTTP error with Prometheus' own
// reason (an auth failure, a series or sample limit), a reply past the input limit. *sessions
// counts the sessions handed over.
std::string read_prometheus_sessions(const PrometheusSource& src, const Policy& policy,
                                     bool for_gate, const PrometheusSessionSink& sink,
                                     int* sessions);

// The boot a session of `host` with rtgate_boot_key `key` is of, as PrometheusSession::boot
// says it.
std::string prometheus_boot(const std::string& host, double key);

// The matchers of `match` checked and without braces ("" is every series); nullopt with *why
// when they are not PromQL label matchers.
std::optional<std::string> prometheus_matchers(const std::string& match, std::string* why);

}  // namespace rtgate::gate
