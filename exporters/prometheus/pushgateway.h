// `rtgate run --push URL`: the result to a Prometheus Pushgateway, one group per suite
// (job="rtgate", instance=<host>, suite=<suite>; PUT, so a group holds the suite's latest result).
// A failed push is retried with backoff and reported; it never touches the local JSON.
#pragma once

#include <optional>
#include <string>

#include "exporters/prometheus/series_options.h"
#include "framework/gate/verdict.h"
#include "framework/report/report.h"

namespace rtgate::prom {

struct PushTarget {
  std::string scheme_host;  // "http://127.0.0.1"
  std::string port;         // "9091"
};

// Accepts http(s)://HOST[:PORT][/]; the port defaults to the Pushgateway's 9091. Returns nullopt
// with *why set for anything else (missing scheme, a path, a bad port).
std::optional<PushTarget> parse_push_url(const std::string& url, std::string* why);

struct PushOptions {
  int attempts = 3;              // tries per push
  double first_backoff_s = 0.5;  // doubled after each failed try
};

// Pushes every suite of `report` (and the gate's verdicts, if any). Returns "" on success, else a
// one-line description of the last failure ("HTTP 400" or the transport error).
std::string push_report(const PushTarget& target, const RunReport& report,
                        const gate::GateReport* gate = nullptr, const PushOptions& options = {},
                        const SeriesOptions& series = {});

}  // namespace rtgate::prom
