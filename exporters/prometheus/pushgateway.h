// `rtgate run --push URL`: the result to a Prometheus Pushgateway, one group per suite
// (job="rtgate", instance=<host>, suite=<suite>; PUT, so a group holds the suite's latest result).
// A failed push is retried with backoff and reported; it never touches the local JSON.
//
// The body is written a series at a time and handed to libcurl a piece at a time (report_text.h),
// one suite at a time: prometheus-cpp's Gateway would hold every series as objects and the whole
// text in one string, hundreds of MB for a result of thousands of cases. A host or suite name
// that is not plain ([A-Za-z0-9._-]) goes into the URL base64url-encoded ("instance@base64/..."),
// which the Pushgateway decodes: it still names one group.
#pragma once

#include <optional>
#include <string>

#include "exporters/exporter.h"
#include "exporters/prometheus/series_options.h"
#include "gate/model/verdict.h"
#include "results/report.h"

namespace rtgate::prom {

struct PushTarget {
  std::string scheme_host;  // "http://127.0.0.1"
  std::string port;         // "9091"
};

// Accepts http(s)://HOST[:PORT][/]; the port defaults to the Pushgateway's 9091. Returns nullopt
// with *why set for anything else (missing scheme, a path, a bad port).
std::optional<PushTarget> parse_push_url(const std::string& url, std::string* why);

struct PushOptions {
  int attempts = 3;              // tries per suite
  double first_backoff_s = 0.5;  // doubled after each failed try
};

// Pushes every suite of `report` (and the gate's verdicts, if any), stopping at the first suite
// that fails. A transport error, 5xx, 408 or 429 is retried; any other 4xx is not (the same
// body would be refused again). Returns "" on success, else a one-line description of the last
// failure: "suite cyclic: HTTP 400: <the gateway's reply>", or the transport error and
// "after 3 attempts".
std::string push_report(const PushTarget& target, const RunReport& report,
                        const gate::GateVerdict* gate = nullptr, const PushOptions& options = {},
                        const SeriesOptions& series = {});

// A board's history's verdicts (history_series.h) to one group: job="rtgate_history",
// instance=<host>. Retried as push_report's.
std::string push_history(const PushTarget& target, const HistoryDocument& doc,
                         const PushOptions& options = {});

}  // namespace rtgate::prom
