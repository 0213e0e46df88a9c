#include "gate/history/prometheus_source.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <tuple>

#include "base/io/input_limit.h"
#include "gate/noise/run_values.h"

namespace rtgate::gate {
namespace {

using Labels = std::map<std::string, std::string>;

struct Series {
  Labels labels;
  std::vector<std::pair<double, double>> points;  // (evaluation time, value)
};

// Labels that say where a series came from or what it is, not which case: the rest of a history
// point's labels are the case's own.
bool identity_label(const std::string& name) {
  static const std::set<std::string> names = {
      "__name__",  "host", "kernel_release", "suite",  "case", "metric",
      "statistic", "unit", "metric_kind",    "better", "job",  "instance"};
  return names.contains(name);
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

// RFC 3339 UTC with milliseconds, as results write started_at: the sessions sort by it.
std::string rfc3339(double unix_s) {
  const auto whole = static_cast<std::time_t>(std::floor(unix_s));
  std::tm tm{};
  gmtime_r(&whole, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", buf,
                static_cast<int>(std::lround((unix_s - static_cast<double>(whole)) * 1000) % 1000));
  return out;
}

// One query_range's matrix, or "" and *error.
std::vector<Series> parse_matrix(const std::string& body, const std::string& query,
                                 std::string* error) {
  std::vector<Series> out;
  const nlohmann::json doc = nlohmann::json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    *error = "Prometheus' reply to " + query + " is not JSON";
    return out;
  }
  if (doc.value("status", "") != "success") {
    *error = "Prometheus refused " + query + ": " + doc.value("errorType", "") + ": " +
             doc.value("error", "");
    return out;
  }
  const nlohmann::json& result = doc["data"]["result"];
  if (!result.is_array()) return out;
  for (const nlohmann::json& r : result) {
    Series s;
    for (const auto& [k, v] : r["metric"].items()) {
      if (v.is_string()) s.labels[k] = v.get<std::string>();
    }
    // A matrix's "values", or an instant vector's one "value".
    const nlohmann::json values = r.contains("values")
                                      ? r["values"]
                                      : nlohmann::json::array({r.value("value", nlohmann::json())});
    for (const nlohmann::json& p : values) {
      if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_string()) continue;
      s.points.emplace_back(p[0].get<double>(),
                            std::strtod(p[1].get<std::string>().c_str(), nullptr));
    }
    out.push_back(std::move(s));
  }
  return out;
}

class Client {
 public:
  explicit Client(const PrometheusSource& src) : src_(src) {
    base_ = src.url;
    while (!base_.empty() && base_.back() == '/') base_.pop_back();
  }

  // query_range over [start, end] at the source's step, appended to *out.
  std::string range(const std::string& query, double start, double end, std::vector<Series>* out) {
    return get(base_ + "/api/v1/query_range?query=" + io::url_encode(query) +
                   "&start=" + seconds_text(start) + "&end=" + seconds_text(end) +
                   "&step=" + seconds_text(src_.step_s),
               query, out);
  }

  // An instant query at `time`.
  std::string at(const std::string& query, double time, std::vector<Series>* out) {
    return get(
        base_ + "/api/v1/query?query=" + io::url_encode(query) + "&time=" + seconds_text(time),
        query, out);
  }

 private:
  std::string get(const std::string& url, const std::string& query, std::vector<Series>* out) {
    std::string why;
    const auto reply = io::http_get(url, src_.auth, io::max_input_bytes(), src_.timeout_s, &why);
    if (!reply) return "Prometheus at " + base_ + ": " + why;
    if (reply->status == 401 || reply->status == 403) {
      return "Prometheus at " + base_ + ": HTTP " + std::to_string(reply->status) +
             " (the credentials were refused: --prometheus-bearer-file, --prometheus-basic-file)";
    }
    std::string error;
    std::vector<Series> got = parse_matrix(reply->body, query, &error);
    if (!error.empty()) return error + " (HTTP " + std::to_string(reply->status) + ")";
    if (reply->status != 200)
      return "Prometheus at " + base_ + ": HTTP " + std::to_string(reply->status);
    for (Series& s : got) out->push_back(std::move(s));
    return "";
  }

  const PrometheusSource& src_;
  std::string base_;
};

const char* const kValueFamilies =
    "rtgate_history_point|rtgate_history_point_variance|rtgate_boot_key|rtgate_suite_contaminated";

// A session's timestamp where it first appears: newer than a step ago, or new since then.
std::string marker_query(const PrometheusSource& src, const std::string& matchers) {
  const std::string ts = "rtgate_run_timestamp_seconds{" + matchers + "}";
  const std::string off = " offset " + std::to_string(std::llround(src.step_s * 1000)) + "ms";
  return "((" + ts + " > " + ts + off + ") or (" + ts + " unless " + ts + off + "))";
}

// The markers over the span, by query_range calls of at most kMaxSteps steps (a few series: one a
// host and suite).
std::string fetch_markers(Client& client, const PrometheusSource& src, const std::string& mark,
                          std::vector<Series>* marks) {
  const double end =
      src.end_s > 0
          ? src.end_s
          : std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
                .count();
  const double window = src.step_s * (kMaxSteps - 1);
  for (double a = end - src.span_s; a <= end; a += window + src.step_s) {
    if (std::string e = client.range(mark, a, std::min(end, a + window), marks); !e.empty()) {
      return e;
    }
  }
  return "";
}

struct Session {
  std::string host, kernel, boot;
  double ts = 0;
  bool contaminated = false;
  // By series index (Identities): point and variance, NaN where the session has none.
  std::vector<std::pair<double, double>> values;
};

// The sessions the markers name, and where each was seen: (host, suite, time) -> session key.
struct Sessions {
  std::map<std::string, Session> by_key;
  std::map<std::tuple<std::string, std::string, double>, std::string> at;
  std::multimap<std::pair<std::string, double>, std::string> at_host;

  Session* find(const Labels& l, double t) {
    const auto it = at.find({value(l, "host"), value(l, "suite"), t});
    return it == at.end() ? nullptr : &by_key[it->second];
  }
  static std::string value(const Labels& l, const std::string& k) {
    const auto it = l.find(k);
    return it == l.end() ? "" : it->second;
  }
};

Sessions sessions_of(const std::vector<Series>& marks) {
  Sessions out;
  for (const Series& s : marks) {
    const std::string host = Sessions::value(s.labels, "host");
    for (const auto& [t, ts] : s.points) {
      const std::string key = host + "|" + seconds_text(ts);
      Session& session = out.by_key[key];
      session.host = host;
      session.ts = ts;
      session.kernel = Sessions::value(s.labels, "kernel_release");
      out.at[{host, Sessions::value(s.labels, "suite"), t}] = key;
      out.at_host.emplace(std::pair{host, t}, key);
    }
  }
  return out;
}

std::string series_key(const Labels& l) {
  std::string key = Sessions::value(l, "suite");
  for (const char* part : {"case", "metric", "statistic"}) key += '\x1f' + Sessions::value(l, part);
  return key;
}

// Whether `policy` follows the statistic a point series carries (as history_statistics would of
// the result's metric).
bool followed(const Policy& policy, const Labels& l, MetricKind kind) {
  const std::string statistic = Sessions::value(l, "statistic");
  const bool rate = statistic == "rate";
  const MetricPolicy mp = resolve(policy, Sessions::value(l, "suite"), Sessions::value(l, "case"),
                                  Sessions::value(l, "metric"), kind != MetricKind::kCount || rate);
  if (!mp.gated) return false;
  if (rate) return true;
  const std::vector<std::string> stats = policy_statistics(kind, mp);
  return std::find(stats.begin(), stats.end(), statistic) != stats.end();
}

// The identity of each series (what a HistorySeries names), kept alive while the builder reads;
// only the series the policy follows.
struct Identities {
  const Policy& policy;
  std::deque<SuiteResult> suites;
  std::map<std::string, int> index;  // -1: a series the policy does not follow
  std::vector<std::string> keys;
  std::vector<const SuiteResult*> by_index;

  // The series' index, made at its first sight; -1 when the policy does not follow it.
  int add(const std::string& key, const Labels& l) {
    if (const auto it = index.find(key); it != index.end()) return it->second;
    if (!followed(
            policy, l,
            metric_kind_from(Sessions::value(l, "metric_kind")).value_or(MetricKind::kLatency))) {
      index[key] = -1;
      return -1;
    }
    SuiteResult& s = suites.emplace_back();
    s.name = Sessions::value(l, "suite");
    Case& c = s.cases.emplace_back();
    c.name = Sessions::value(l, "case");
    for (const auto& [k, v] : l) {
      if (!identity_label(k)) c.labels[k] = v;
    }
    Metric& m = c.metrics.emplace_back();
    m.name = Sessions::value(l, "metric");
    m.kind = metric_kind_from(Sessions::value(l, "metric_kind")).value_or(MetricKind::kLatency);
    m.better = Sessions::value(l, "better") == "higher" ? Better::kHigher : Better::kLower;
    m.unit = Sessions::value(l, "unit");
    index[key] = static_cast<int>(keys.size());
    keys.push_back(key);
    by_index.push_back(&s);
    return index[key];
  }
};

// One instant reply's series, into the sessions they belong to (the marker at their host, suite
// and time), so that no reply's labels outlive it.
void attach(const std::vector<Series>& got, Sessions& sessions, Identities& ids) {
  for (const Series& s : got) {
    const std::string name = Sessions::value(s.labels, "__name__");
    for (const auto& [t, v] : s.points) {
      if (name == "rtgate_boot_key") {
        const std::string host = Sessions::value(s.labels, "host");
        const auto [from, to] = sessions.at_host.equal_range({host, t});
        for (auto it = from; it != to; ++it) {
          sessions.by_key[it->second].boot = host + ":boot:" + seconds_text(v);
        }
        continue;
      }
      Session* session = sessions.find(s.labels, t);
      if (session == nullptr) continue;
      if (name == "rtgate_suite_contaminated") {
        session->contaminated |= v > 0;
        continue;
      }
      const int i = ids.add(series_key(s.labels), s.labels);
      if (i < 0) continue;
      if (session->values.size() <= static_cast<std::size_t>(i)) {
        session->values.resize(static_cast<std::size_t>(i) + 1, {NAN, NAN});
      }
      auto& [point, variance] = session->values[static_cast<std::size_t>(i)];
      (name == "rtgate_history_point" ? point : variance) = v;
    }
  }
}

SessionValues values_of(const Session& s, const std::string& key, const Identities& ids,
                        const std::string& source) {
  SessionValues out;
  out.session = {.id = key,
                 .boot = s.boot.empty() ? key : s.boot,
                 .started_at = rfc3339(s.ts),
                 .kernel = s.kernel,
                 .host = s.host,
                 .source = source,
                 .contaminated = s.contaminated};
  for (std::size_t i = 0; i < s.values.size(); ++i) {
    const auto& [point, variance] = s.values[i];
    if (!std::isfinite(point)) continue;
    const std::string& series = ids.keys[i];
    const SuiteResult* suite = ids.by_index[i];
    out.values.push_back({.key = series,
                          .suite = suite,
                          .case_ = &suite->cases[0],
                          .metric = &suite->cases[0].metrics[0],
                          .statistic = series.substr(series.rfind('\x1f') + 1),
                          .value = point,
                          .within_var = std::isfinite(variance) ? variance : 0});
  }
  return out;
}

}  // namespace

std::optional<std::string> prometheus_matchers(const std::string& match, std::string* why) {
  std::string m = match;
  if (m.size() >= 2 && m.front() == '{' && m.back() == '}') m = m.substr(1, m.size() - 2);
  static const std::regex all(
      R"((\s*[A-Za-z_][A-Za-z0-9_]*\s*(=|!=|=~|!~)\s*"([^"\\]|\\.)*"\s*)(,(\s*[A-Za-z_][A-Za-z0-9_]*\s*(=|!=|=~|!~)\s*"([^"\\]|\\.)*"\s*))*,?\s*)");
  if (!m.empty() && !std::regex_match(m, all)) {
    *why = "'" + match + "' is not a list of label matchers such as host=\"lab1\"";
    return std::nullopt;
  }
  return m;
}

std::string read_prometheus_history(const PrometheusSource& src, const Policy& policy,
                                    HistoryBuilder& b, int* count) {
  *count = 0;
  std::string why;
  const std::optional<std::string> matchers = prometheus_matchers(src.match, &why);
  if (!matchers) return "--match: " + why;
  if (src.url.rfind("http://", 0) != 0 && src.url.rfind("https://", 0) != 0) {
    return "--prometheus: " + src.url + ": not an http:// or https:// URL";
  }
  Client client(src);
  const std::string mark = marker_query(src, *matchers);
  std::vector<Series> marks;
  if (std::string e = fetch_markers(client, src, mark, &marks); !e.empty()) return e;
  Sessions sessions = sessions_of(marks);
  std::set<double> times;
  for (const Series& m : marks) {
    for (const auto& [t, v] : m.points) times.insert(t);
  }
  // The values by one instant query at each time a session first appears: evaluating thousands
  // of series at every step of the span would cost the server minutes; at those times, ms.
  const std::string values = std::string("{__name__=~\"") + kValueFamilies + "\"" +
                             (matchers->empty() ? "" : "," + *matchers) + "} and on(host) " + mark;
  Identities ids{.policy = policy, .suites = {}, .index = {}, .keys = {}, .by_index = {}};
  for (const double t : times) {
    std::vector<Series> got;
    if (std::string e = client.at(values, t, &got); !e.empty()) return e;
    attach(got, sessions, ids);
  }
  for (const auto& [key, s] : sessions.by_key) {
    if (s.values.empty()) continue;
    if (std::string e = b.add(values_of(s, key, ids, src.url)); !e.empty()) return e;
    ++*count;
  }
  return "";
}

}  // namespace rtgate::gate
