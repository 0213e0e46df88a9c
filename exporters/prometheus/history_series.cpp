#include "exporters/prometheus/history_series.h"

#include <array>
#include <cmath>
#include <utility>

#include "base/text/rfc3339.h"
#include "exporters/history_report.h"

namespace rtgate::prom {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

struct Out {
  SeriesSink& sink;
  std::vector<std::pair<std::string, std::string>> constant;
  std::size_t next = 0;

  std::size_t family(const std::string& name, const std::string& help) {
    sink.family({.name = name, .help = help, .type = MetricType::Gauge, .metric = {}});
    return next++;
  }
  void set(std::size_t f, const std::vector<std::pair<std::string, std::string>>& labels,
           double v) {
    ClientMetric m;
    for (const auto& [k, val] : constant) m.label.push_back({k, val});
    for (const auto& [k, val] : labels) m.label.push_back({k, val});
    m.gauge.value = v;
    sink.series(f, std::move(m));
  }
};

std::vector<std::pair<std::string, std::string>> statistic_labels(const gate::HistorySeries& s) {
  return {
      {"suite", s.suite}, {"case", s.case_name}, {"metric", s.metric}, {"statistic", s.statistic}};
}

const char* newest_verdict(const gate::StatisticTrend& t) {
  if (t.findings.newest.at < 0) return "untested";
  return t.newest_worse ? "worse" : t.newest_better ? "better" : "not_worse";
}

}  // namespace

std::string history_host(const HistoryDocument& doc) {
  for (auto it = doc.history.sessions.rbegin(); it != doc.history.sessions.rend(); ++it) {
    if (!it->host.empty()) return it->host;
  }
  return "unknown";
}

void build_history_series(const HistoryDocument& doc, SeriesSink& sink) {
  const gate::HistoryReport& r = doc.report;
  Out out{sink, {{"host", history_host(doc)}, {"kernel_release", r.newest_kernel}}};
  const std::size_t outcome = out.family(
      "rtgate_history_outcome", "1 for the board's history's outcome, 0 for the other two");
  const std::size_t sessions =
      out.family("rtgate_history_sessions", "sessions in the history, and the newest kernel's");
  const std::size_t newest = out.family(
      "rtgate_history_newest",
      "1 for the newest kernel's verdict on the statistic against the segment before it");
  const std::size_t change = out.family(
      "rtgate_history_newest_change",
      "the newest kernel's change on the judge's scale (a log ratio; a rate's log ratio), with "
      "its 90% interval (bound=low, high); NaN when it was not tested");
  const std::size_t points = out.family(
      "rtgate_history_change_point_timestamp_seconds",
      "a change point beyond the noise floor: the start time of the first session after it");
  for (const char* o : {"worse", "not_worse", "too_short"}) {
    out.set(outcome, {{"outcome", o}}, history_outcome_name(r.outcome) == std::string(o) ? 1 : 0);
  }
  out.set(sessions, {{"kernel", "all"}}, static_cast<double>(doc.history.sessions.size()));
  out.set(sessions, {{"kernel", "newest"}}, r.newest_sessions);
  for (const gate::StatisticTrend& t : r.trends) {
    const gate::HistorySeries& s = doc.history.series[static_cast<std::size_t>(t.series)];
    auto l = statistic_labels(s);
    const std::string verdict = newest_verdict(t);
    for (const char* v : {"worse", "better", "not_worse", "untested"}) {
      auto lv = l;
      lv.emplace_back("verdict", v);
      out.set(newest, lv, verdict == v ? 1 : 0);
    }
    // NaN when the newest kernel was not tested: the series stays, without a value to draw.
    const gate::Shift& n = t.findings.newest;
    const bool tested = n.at >= 0;
    for (const auto& [bound, v] : {std::pair{"estimate", n.size}, {"low", n.lo}, {"high", n.hi}}) {
      auto lb = l;
      lb.emplace_back("bound", bound);
      out.set(change, lb, tested ? v : NAN);
    }
    for (std::size_t i = 0; i < t.findings.changes.size(); ++i) {
      if (!t.change_beyond[i]) continue;
      const int at = s.sessions[static_cast<std::size_t>(t.findings.changes[i].at)];
      const gate::HistorySession& after = doc.history.sessions[static_cast<std::size_t>(at)];
      const gate::HistorySession& before = doc.history.sessions[static_cast<std::size_t>(
          s.sessions[static_cast<std::size_t>(t.findings.changes[i].at - 1)])];
      auto lc = l;
      lc.emplace_back("kernel_before", before.kernel);
      lc.emplace_back("kernel_after", after.kernel);
      lc.emplace_back("direction", t.change_worse[i] ? "worse" : "better");
      out.set(points, lc, text::unix_seconds(after.started_at).value_or(NAN));
    }
  }
}

}  // namespace rtgate::prom
