#include "gate/prometheus/prometheus_source.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "gate/noise/run_values.h"
#include "gate/prometheus/prometheus_client.h"

namespace rtgate::gate {
namespace {

// Labels that say where a series came from or what it is, not which case: the rest of a history
// point's labels are the case's own.
bool identity_label(const std::string& name) {
  static const std::set<std::string> names = {
      "__name__",  "host", "kernel_release", "suite",  "case", "metric",
      "statistic", "unit", "metric_kind",    "better", "job",  "instance"};
  return names.contains(name);
}

// The families read per statistic, in PointPart order.
constexpr std::array<const char*, kPointParts> kPartFamilies = {
    "rtgate_history_point", "rtgate_history_point_variance", "rtgate_history_point_spread",
    "rtgate_history_point_spread_df"};

// A window of the values' query_range: at most this many markers, and steps.
constexpr std::size_t kWindowMarkers = 48;
constexpr double kWindowSteps = 2000;
// Markers further apart than this many steps are not read together: the steps between them cost
// the server as much as the markers.
constexpr double kWindowGapSteps = 120;

// A session's timestamp where it first appears: newer than a step ago, or new since then.
std::string marker_query(const PrometheusSource& src, const std::string& matchers) {
  const std::string ts = "rtgate_run_timestamp_seconds{" + matchers + "}";
  const std::string off = " offset " + std::to_string(std::llround(src.step_s * 1000)) + "ms";
  return "((" + ts + " > " + ts + off + ") or (" + ts + " unless " + ts + off + "))";
}

// The values at the markers: every other step of a window is filtered out on the server.
std::string values_query(const std::string& matchers, const std::string& mark, bool for_gate) {
  std::string names = "rtgate_boot_key|rtgate_suite_contaminated";
  for (int p = 0; p < (for_gate ? kPointParts : kSpread); ++p) {
    names += std::string("|") + kPartFamilies[p];
  }
  return "{__name__=~\"" + names + "\"" + (matchers.empty() ? "" : "," + matchers) +
         "} and on(host) " + mark;
}

double end_of(const PrometheusSource& src) {
  if (src.end_s > 0) return src.end_s;
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The markers over the span, by query_range calls of at most kMaxSteps steps (a few series: one a
// host and suite).
std::string fetch_markers(const PromClient& client, const PrometheusSource& src,
                          const std::string& mark, std::vector<PromSeries>* marks) {
  const double end = end_of(src);
  const double window = src.step_s * (kMaxSteps - 1);
  for (double a = end - src.span_s; a <= end; a += window + src.step_s) {
    if (std::string e = client.range(mark, a, std::min(end, a + window), src.step_s, marks);
        !e.empty()) {
      return e;
    }
  }
  return "";
}

std::string series_key(const PromLabels& l) {
  std::string key = label_of(l, "suite");
  for (const char* part : {"case", "metric", "statistic"}) key += '\x1f' + label_of(l, part);
  return key;
}

MetricKind kind_of(const PromLabels& l) {
  return metric_kind_from(label_of(l, "metric_kind")).value_or(MetricKind::kLatency);
}

// Whether `policy` follows the statistic a point series carries (as history_statistics would of
// the result's metric); for a gate, also when the metric is reported only.
bool followed(const Policy& policy, const PromLabels& l, bool for_gate) {
  const std::string& statistic = label_of(l, "statistic");
  const bool rate = statistic == "rate";
  const MetricPolicy mp = resolve(policy, label_of(l, "suite"), label_of(l, "case"),
                                  label_of(l, "metric"), kind_of(l) != MetricKind::kCount || rate);
  if (!mp.gated && !for_gate) return false;
  if (rate) return true;
  const std::vector<std::string> stats = policy_statistics(kind_of(l), mp);
  return std::find(stats.begin(), stats.end(), statistic) != stats.end();
}

// The series index of each key, made at its first sight; -1 for a series the policy does not
// follow.
class SeriesIndex {
 public:
  SeriesIndex(const Policy& policy, bool for_gate) : policy_(policy), for_gate_(for_gate) {}

  int add(const PromLabels& l) {
    const std::string key = series_key(l);
    if (const auto it = index_.find(key); it != index_.end()) return it->second;
    if (!followed(policy_, l, for_gate_)) return index_[key] = -1;
    SuiteResult& s = set.suites.emplace_back();
    s.name = label_of(l, "suite");
    Case& c = s.cases.emplace_back();
    c.name = label_of(l, "case");
    for (const auto& [k, v] : l) {
      if (!identity_label(k)) c.labels[k] = v;
    }
    Metric& m = c.metrics.emplace_back();
    m.name = label_of(l, "metric");
    m.kind = kind_of(l);
    m.better = label_of(l, "better") == "higher" ? Better::kHigher : Better::kLower;
    m.unit = label_of(l, "unit");
    set.keys.push_back(key);
    set.statistics.push_back(label_of(l, "statistic"));
    return index_[key] = static_cast<int>(set.keys.size()) - 1;
  }

  PrometheusSeriesSet set;

 private:
  const Policy& policy_;
  bool for_gate_;
  std::unordered_map<std::string, int> index_;
};

// The sessions the markers name, where each was seen ((host, suite, time) and (host, time)), and
// the last time it was seen: its values are complete once that time is read.
struct Sessions {
  std::map<std::string, PrometheusSession> by_key;
  std::map<std::tuple<std::string, std::string, double>, std::string> at;
  std::multimap<std::pair<std::string, double>, std::string> at_host;
  std::map<std::string, double> last;
};

Sessions sessions_of(const std::vector<PromSeries>& marks) {
  Sessions out;
  for (const PromSeries& s : marks) {
    const std::string& host = label_of(s.labels, "host");
    for (const auto& [t, ts] : s.points) {
      const std::string key = host + "|" + seconds_text(ts);
      PrometheusSession& session = out.by_key[key];
      session.key = key;
      session.host = host;
      session.ts = ts;
      session.kernel = label_of(s.labels, "kernel_release");
      out.at[{host, label_of(s.labels, "suite"), t}] = key;
      out.at_host.emplace(std::pair{host, t}, key);
      out.last[key] = std::max(out.last[key], t);
    }
  }
  return out;
}

// One reply's series, into the sessions they belong to (the marker at their host, suite and
// time), so that no reply's labels outlive it.
void attach(const std::vector<PromSeries>& got, Sessions& sessions, SeriesIndex& index) {
  for (const PromSeries& s : got) {
    const std::string& name = label_of(s.labels, "__name__");
    const auto part = std::find(kPartFamilies.begin(), kPartFamilies.end(), name);
    for (const auto& [t, v] : s.points) {
      if (name == "rtgate_boot_key") {
        const std::string& host = label_of(s.labels, "host");
        const auto [from, to] = sessions.at_host.equal_range({host, t});
        for (auto it = from; it != to; ++it) {
          sessions.by_key[it->second].boot = prometheus_boot(host, v);
        }
        continue;
      }
      const auto at =
          sessions.at.find({label_of(s.labels, "host"), label_of(s.labels, "suite"), t});
      if (at == sessions.at.end()) continue;
      PrometheusSession& session = sessions.by_key[at->second];
      if (name == "rtgate_suite_contaminated") {
        session.contaminated |= v > 0;
        continue;
      }
      if (part == kPartFamilies.end()) continue;
      const int i = index.add(s.labels);
      if (i < 0) continue;
      std::array<double, kPointParts> none;
      none.fill(NAN);
      if (session.values.size() <= static_cast<std::size_t>(i)) {
        session.values.resize(static_cast<std::size_t>(i) + 1, none);
      }
      session.values[static_cast<std::size_t>(i)][part - kPartFamilies.begin()] = v;
    }
  }
}

// A window of the values' query_range: [first, last], and the kernels of its markers.
struct Window {
  double first = 0, last = 0;
  std::set<std::string> kernels;
  std::size_t markers = 0;
};

// The marker times in windows: a window's markers are close (a gap of at most kWindowGapSteps)
// and of the kernels of its first marker. Each kernel brings its own series (kernel_release is a
// label), so a window's query selects one kernel's series, not every kernel's of the span.
std::vector<Window> windows_of(const std::map<double, std::set<std::string>>& kernels_at,
                               double step) {
  std::vector<Window> out;
  for (const auto& [t, kernels] : kernels_at) {
    const bool fits = !out.empty() && out.back().markers < kWindowMarkers &&
                      t - out.back().last <= kWindowGapSteps * step &&
                      t - out.back().first <= kWindowSteps * step &&
                      std::includes(out.back().kernels.begin(), out.back().kernels.end(),
                                    kernels.begin(), kernels.end());
    if (!fits) out.push_back({.first = t, .last = t, .kernels = kernels, .markers = 0});
    out.back().last = t;
    ++out.back().markers;
  }
  return out;
}

// `s` as a PromQL string's contents.
std::string promql_string(const std::string& s) {
  std::string out;
  for (const char ch : s) {
    if (ch == '\n') {
      out += "\\n";
      continue;
    }
    if (ch == '\\' || ch == '"') out += '\\';
    out += ch;
  }
  return out;
}

// The matcher that picks the window's kernels' series: exact for one, else an alternation of
// regex-escaped names.
std::string kernel_matcher(const std::set<std::string>& kernels) {
  if (kernels.size() == 1) return "kernel_release=\"" + promql_string(*kernels.begin()) + "\"";
  std::string re;
  for (const std::string& k : kernels) {
    if (!re.empty()) re += '|';
    for (const char ch : k) {
      if (std::string_view("\\.+*?()|[]{}^$").find(ch) != std::string_view::npos) re += '\\';
      re += ch;
    }
  }
  return "kernel_release=~\"" + promql_string(re) + "\"";
}

// Hands over (and forgets) every session whose last marker is at or before `upto`.
std::string hand_over(Sessions& sessions, double upto, const PrometheusSeriesSet& set,
                      const PrometheusSessionSink& sink, int* count) {
  for (auto it = sessions.last.begin(); it != sessions.last.end();) {
    if (it->second > upto) {
      ++it;
      continue;
    }
    auto s = sessions.by_key.find(it->first);
    if (s->second.boot.empty()) s->second.boot = s->second.key;
    if (!s->second.values.empty()) {
      if (std::string e = sink(s->second, set); !e.empty()) return e;
      ++*count;
    }
    sessions.by_key.erase(s);
    it = sessions.last.erase(it);
  }
  return "";
}

}  // namespace

std::string prometheus_boot(const std::string& host, double key) {
  return host + ":boot:" + seconds_text(key);
}

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

std::string read_prometheus_sessions(const PrometheusSource& src, const Policy& policy,
                                     bool for_gate, const PrometheusSessionSink& sink, int* count) {
  *count = 0;
  std::string why;
  const std::optional<std::string> matchers = prometheus_matchers(src.match, &why);
  if (!matchers) return "--match: " + why;
  if (src.url.rfind("http://", 0) != 0 && src.url.rfind("https://", 0) != 0) {
    return "--prometheus: " + src.url + ": not an http:// or https:// URL";
  }
  const PromClient client(src.url, src.auth, src.timeout_s);
  const std::string mark = marker_query(src, *matchers);
  std::vector<PromSeries> marks;
  if (std::string e = fetch_markers(client, src, mark, &marks); !e.empty()) return e;
  Sessions sessions = sessions_of(marks);
  std::map<double, std::set<std::string>> kernels_at;
  for (const PromSeries& m : marks) {
    for (const auto& [t, v] : m.points) kernels_at[t].insert(label_of(m.labels, "kernel_release"));
  }
  marks.clear();
  // Evaluating thousands of series at every step of the span would cost the server minutes; over
  // windows of close markers of one kernel, what is between them costs little and the markers
  // come back together.
  SeriesIndex index(policy, for_gate);
  for (const Window& w : windows_of(kernels_at, src.step_s)) {
    const std::string picked =
        (matchers->empty() ? "" : *matchers + ",") + kernel_matcher(w.kernels);
    const std::string values = values_query(picked, marker_query(src, picked), for_gate);
    std::vector<PromSeries> got;
    if (std::string e = client.range(values, w.first, w.last, src.step_s, &got); !e.empty()) {
      return e;
    }
    attach(got, sessions, index);
    if (std::string e = hand_over(sessions, w.last, index.set, sink, count); !e.empty()) return e;
  }
  return "";
}

}  // namespace rtgate::gate
