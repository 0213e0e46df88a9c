#include "exporters/prometheus/pushgateway.h"

#include <curl/curl.h>
#include <prometheus/gateway.h>

#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "exporters/prometheus/prometheus_registry.h"

namespace rtgate::prom {
namespace {

// prometheus-cpp's Gateway returns the HTTP status, or a negative curl error code.
std::string describe(int code) {
  if (code < 0) return curl_easy_strerror(static_cast<CURLcode>(-code));
  return "HTTP " + std::to_string(code);
}

}  // namespace

std::optional<PushTarget> parse_push_url(const std::string& url, std::string* why) {
  const std::size_t sep = url.find("://");
  const std::string scheme = sep == std::string::npos ? "" : url.substr(0, sep);
  if (scheme != "http" && scheme != "https") {
    *why = "'" + url + "' is not an http:// or https:// URL";
    return std::nullopt;
  }
  std::string rest = url.substr(sep + 3);
  if (!rest.empty() && rest.back() == '/') rest.pop_back();
  if (rest.find('/') != std::string::npos) {
    *why = "'" + url + "': give the Pushgateway's address only (http://HOST:PORT), no path";
    return std::nullopt;
  }
  std::string host = rest, port = "9091";
  // host, host:port, [v6] or [v6]:port.
  const std::size_t close = rest.rfind(']');
  const std::size_t colon = rest.rfind(':');
  if (colon != std::string::npos && (close == std::string::npos || colon > close)) {
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  }
  if (host.empty() || host.find('@') != std::string::npos) {
    *why = "'" + url + "' has no host";
    return std::nullopt;
  }
  const bool digits = !port.empty() && port.size() <= 5 &&
                      port.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || std::stoi(port) < 1 || std::stoi(port) > 65535) {
    *why = "'" + url + "' has a bad port '" + port + "'";
    return std::nullopt;
  }
  return PushTarget{scheme + "://" + host, port};
}

std::string push_report(const PushTarget& target, const RunReport& report,
                        const gate::GateReport* gate, const PushOptions& options,
                        const SeriesOptions& series) {
  const std::string host =
      report.environment.hostname.empty() ? "unknown" : report.environment.hostname;
  prometheus::Gateway gateway(target.scheme_host, target.port, "rtgate", {{"instance", host}});
  // The gateway holds weak pointers: keep the registries alive for the pushes.
  std::vector<std::shared_ptr<ReportMetrics>> registries;
  for (const SuiteResult& s : report.suites) {
    registries.push_back(build_metrics(report, gate, s.name, series));
    const prometheus::Labels group = {{"suite", s.name}};
    gateway.RegisterCollectable(registries.back(), &group);
  }
  if (registries.empty()) return "";
  std::string last;
  double backoff = options.first_backoff_s;
  for (int attempt = 1; attempt <= options.attempts; ++attempt) {
    const int code = gateway.Push();
    if (code >= 200 && code < 300) return "";
    last = describe(code);
    if (attempt < options.attempts) {
      std::this_thread::sleep_for(std::chrono::duration<double>(backoff));
      backoff *= 2;
    }
  }
  return last + " after " + std::to_string(options.attempts) + " attempts";
}

}  // namespace rtgate::prom
