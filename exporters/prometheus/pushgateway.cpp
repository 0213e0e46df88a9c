#include "exporters/prometheus/pushgateway.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

#include "exporters/prometheus/history_series.h"
#include "exporters/prometheus/report_text.h"

namespace rtgate::prom {
namespace {

// A grouping-key value as a URL path segment: as it is when it is plain ([A-Za-z0-9._-]+), else
// "@base64/" and its base64url (RFC 4648 section 5), which the Pushgateway decodes, so that a
// host or suite name with '/', spaces or '%' still names one group.
std::string group_segment(const std::string& name, const std::string& value) {
  const bool plain = !value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
  if (plain) return "/" + name + "/" + value;
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out = "/" + name + "@base64/";
  // Each 3 bytes (the last group zero-filled) as 4 letters; "=" for the letters past the end.
  for (std::size_t i = 0; i < value.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, value.size() - i);
    unsigned v = 0;
    for (std::size_t k = 0; k < 3; ++k) {
      v = v << 8 | (k < n ? static_cast<unsigned char>(value[i + k]) : 0u);
    }
    for (std::size_t k = 0; k < 4; ++k) out += k <= n ? kAlphabet[(v >> (18 - 6 * k)) & 63] : '=';
  }
  if (value.empty()) out += '=';  // the Pushgateway's spelling of an empty value
  return out;
}

// The text handed to curl a piece at a time.
struct Body {
  std::vector<std::string_view> pieces;
  std::size_t piece = 0, offset = 0;
};

std::size_t read_body(char* buffer, std::size_t size, std::size_t items, void* user) {
  Body& b = *static_cast<Body*>(user);
  const std::size_t room = size * items;
  std::size_t n = 0;
  while (n < room && b.piece < b.pieces.size()) {
    const std::string_view p = b.pieces[b.piece];
    const std::size_t take = std::min(room - n, p.size() - b.offset);
    std::memcpy(buffer + n, p.data() + b.offset, take);
    n += take;
    b.offset += take;
    if (b.offset == p.size()) ++b.piece, b.offset = 0;
  }
  return n;
}

// The start of the Pushgateway's reply, for the error message ("pushed metrics are invalid").
std::size_t keep_reply(char* data, std::size_t size, std::size_t items, void* user) {
  std::string& reply = *static_cast<std::string*>(user);
  const std::size_t n = size * items;
  if (reply.size() < 1024) reply.append(data, std::min(n, 1024 - reply.size()));
  return n;
}

struct PutResult {
  std::string error;  // "" on a 2xx reply
  bool retry = true;  // false when trying again cannot help (a 4xx refusal of the content)
};

// One PUT of `text` to `url`.
PutResult put(const std::string& url, const ReportText& text) {
  static const bool initialised = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
  if (!initialised) return {"libcurl could not be initialised", false};
  const std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(),
                                                                 curl_easy_cleanup);
  if (!curl) return {"libcurl could not be initialised", false};
  curl_slist* headers =
      curl_slist_append(nullptr, "Content-Type: text/plain; version=0.0.4; charset=utf-8");
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip
  const std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> free_headers(
      headers, curl_slist_free_all);
  Body body{text.pieces()};
  std::string reply;
  CURL* h = curl.get();
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);  // PUT: the group holds exactly this result
  curl_easy_setopt(h, CURLOPT_READFUNCTION, read_body);
  curl_easy_setopt(h, CURLOPT_READDATA, &body);
  curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(text.size()));
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, keep_reply);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &reply);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 10L);
  // A stalled gateway fails the try; a slow one may take its time (a lab-scale body takes seconds).
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 60L);
  const CURLcode rc = curl_easy_perform(h);
  if (rc != CURLE_OK) return {curl_easy_strerror(rc)};
  long code = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
  if (code >= 200 && code < 300) return {};
  reply = reply.substr(0, reply.find('\n'));
  // A 4xx refuses the request itself (bad metrics, no such path): the same body fails again.
  // Timeouts and rate limits (408, 429) and 5xx may pass later.
  const bool retry = code < 400 || code >= 500 || code == 408 || code == 429;
  return {"HTTP " + std::to_string(code) + (reply.empty() ? "" : ": " + reply), retry};
}

// PUT with retries (see push_report): "" or the last failure.
std::string put_with_retries(const std::string& url, const ReportText& text,
                             const PushOptions& options) {
  double backoff = options.first_backoff_s;
  for (int attempt = 1;; ++attempt) {
    const PutResult last = put(url, text);
    if (last.error.empty()) return "";
    if (!last.retry || attempt == options.attempts) {
      return last.error + (attempt == 1 ? "" : " after " + std::to_string(attempt) + " attempts");
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(backoff));
    backoff *= 2;
  }
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
                        const gate::GateVerdict* gate, const PushOptions& options,
                        const SeriesOptions& series) {
  const std::string host =
      report.environment.hostname.empty() ? "unknown" : report.environment.hostname;
  const std::string job = target.scheme_host + ":" + target.port + "/metrics/job/rtgate" +
                          group_segment("instance", host);
  for (const SuiteResult& s : report.suites) {
    // One suite's text at a time: the memory of the largest suite, not of the result.
    const ReportText text = build_text(report, gate, s.name, series);
    const std::string error = put_with_retries(job + group_segment("suite", s.name), text, options);
    if (!error.empty()) return "suite " + s.name + ": " + error;
  }
  return "";
}

std::string push_history(const PushTarget& target, const HistoryDocument& doc,
                         const PushOptions& options) {
  ReportText text;
  build_history_series(doc, text);
  return put_with_retries(target.scheme_host + ":" + target.port + "/metrics/job/rtgate_history" +
                              group_segment("instance", history_host(doc)),
                          text, options);
}

}  // namespace rtgate::prom
