#include "exporters/history_report.h"

#include <cmath>
#include <map>
#include <sstream>

#include "exporters/gate_table.h"
#include "gate/model/format.h"
#include "gate/noise/change_estimate.h"

namespace rtgate {
namespace {

using gate::History;
using gate::HistoryReport;
using gate::HistorySeries;
using gate::Shift;
using gate::StatisticTrend;
using nlohmann::ordered_json;

double level_before(const StatisticTrend& t, const Shift& s) {
  return gate::level_before(t.findings, s);
}

// A shift in the series' own terms: a ratio in %, or events per run for a rate.
double in_units(const HistorySeries& s, double level, double size) {
  if (s.statistic == "rate") return std::exp(level + size) - std::exp(level);
  return 100 * std::expm1(size);
}

std::string shift_text(const HistorySeries& s, double level, const Shift& sh) {
  return gate::describe_change(s, level, sh.size) + " [" + gate::describe_change(s, level, sh.lo) +
         ", " + gate::describe_change(s, level, sh.hi) + "]";
}

const std::string& kernel_at(const HistoryReport& r, const StatisticTrend& t, int point) {
  return r.kernels[static_cast<std::size_t>(t.kernel[static_cast<std::size_t>(point)])];
}

// The newest test's p-value in the better direction (Shift::p is the worse one's).
double better_p(const HistorySeries& s, const Shift& sh) {
  return gate::upper_tail((s.better == Better::kLower ? -sh.size : sh.size) / sh.se, sh.df);
}

bool drifting(const StatisticTrend& t) {
  const gate::Drift& d = t.findings.drift;
  return d.kernels >= 3 && (d.lo > 0 || d.hi < 0);
}

std::string kernels_line(const History& h) {
  std::vector<std::pair<std::string, int>> runs;
  for (const gate::HistorySession& s : h.sessions) {
    if (runs.empty() || runs.back().first != s.kernel) {
      runs.emplace_back(s.kernel, 0);
    }
    ++runs.back().second;
  }
  std::string out;
  for (const auto& [k, n] : runs) out += (out.empty() ? "" : ", ") + k + " x" + std::to_string(n);
  return out;
}

ordered_json shift_json(const HistorySeries& s, const HistoryReport& r, const StatisticTrend& t,
                        const Shift& sh, double level) {
  ordered_json j;
  j["session"] = s.sessions[static_cast<std::size_t>(sh.at)];
  j["kernel_before"] = kernel_at(r, t, sh.at - 1);
  j["kernel_after"] = kernel_at(r, t, sh.at);
  j["sessions_before"] = sh.before;
  j["sessions_after"] = sh.after;
  j["change"] = in_units(s, level, sh.size);
  j["low"] = in_units(s, level, sh.lo);
  j["high"] = in_units(s, level, sh.hi);
  j["p"] = sh.p;
  return j;
}

}  // namespace

std::string render_history_table(const History& history, const HistoryReport& report) {
  std::ostringstream out;
  out << "history: " << history.sessions.size() << " sessions (" << kernels_line(history)
      << "), newest kernel " << report.newest_kernel << " with " << report.newest_sessions
      << " session" << (report.newest_sessions == 1 ? "" : "s") << "\n";
  if (history.merged_in_boot > 0) {
    out << "(" << history.merged_in_boot
        << " results merged into the session of their boot: a retry in one boot is not another "
           "session)\n";
  }
  if (history.one_boot) {
    out << "(every session is a process of one boot: the history shows the spread between "
           "processes, not what moves between boots)\n";
  }
  int quiet = 0;
  for (const StatisticTrend& t : report.trends) {
    const HistorySeries& s = history.series[static_cast<std::size_t>(t.series)];
    const gate::SeriesFindings& f = t.findings;
    if (f.changes.empty() && !t.newest_worse && !t.newest_better && !drifting(t)) {
      ++quiet;
      continue;
    }
    out << s.suite << "/" << s.case_name << " " << s.metric << " " << s.statistic << ":\n";
    for (std::size_t i = 0; i < f.changes.size(); ++i) {
      const Shift& c = f.changes[i];
      const std::string& from = kernel_at(report, t, c.at - 1);
      const std::string& to = kernel_at(report, t, c.at);
      out << "  change point at session " << s.sessions[static_cast<std::size_t>(c.at)] + 1 << " ("
          << (from == to ? "within kernel " + to : from + " -> " + to)
          << "): " << shift_text(s, level_before(t, c), c) << " " << gate::fmt::p_value(c.p)
          << (t.change_worse[i]    ? "  WORSE"
              : t.change_beyond[i] ? ""
                                   : "  (below the noise floor)")
          << "\n";
    }
    if (f.newest.at >= 0) {
      out << "  newest " << report.newest_kernel << " (" << f.newest.after << ") vs the "
          << f.newest.before
          << " sessions before: " << shift_text(s, level_before(t, f.newest), f.newest) << " "
          << gate::fmt::p_value(t.newest_better ? better_p(s, f.newest) : f.newest.p)
          << (t.newest_worse    ? "  WORSE"
              : t.newest_better ? "  better"
                                : "")
          << "\n";
    }
    if (drifting(t)) {
      out << "  drift over " << f.drift.kernels
          << " kernels: " << gate::fmt::pct(100 * std::expm1(f.drift.per_kernel)) << " a kernel ["
          << gate::fmt::pct(100 * std::expm1(f.drift.lo)) << ", "
          << gate::fmt::pct(100 * std::expm1(f.drift.hi)) << "]\n";
    }
  }
  out << quiet << " of " << report.trends.size()
      << " statistics without a change point, newest-kernel change or drift\n";
  out << "family: " << report.family << " metrics at alpha " << report.alpha
      << " (a statistic at alpha / family / its metric's statistics)\n";
  for (const std::string& note : report.notes) out << "note: " << note << "\n";
  for (const gate::CauseComparison& c : report.causes) out << c.block();
  out << "history: " << report.reason << "\n";
  return out.str();
}

ordered_json history_json(const History& history, const HistoryReport& report) {
  ordered_json j;
  j["schema"] = kHistorySchema;
  j["outcome"] = history_outcome_name(report.outcome);
  j["exit_code"] = gate::exit_code(report);
  j["reason"] = report.reason;
  j["notes"] = report.notes;
  j["causes"] = cause_comparisons_json(report.causes);
  j["alpha"] = report.alpha;
  j["family"] = report.family;
  j["kernels"] = report.kernels;
  j["newest_kernel"] = report.newest_kernel;
  j["newest_sessions"] = report.newest_sessions;
  j["duplicates"] = history.duplicates;
  j["merged_in_boot"] = history.merged_in_boot;
  j["one_boot"] = history.one_boot;
  ordered_json sessions = ordered_json::array();
  for (const gate::HistorySession& s : history.sessions) {
    sessions.push_back({{"id", s.id},
                        {"boot", s.boot},
                        {"results", s.results},
                        {"started_at", s.started_at},
                        {"kernel", s.kernel},
                        {"source", s.source},
                        {"contaminated", s.contaminated},
                        {"stored_as", s.stored_as}});
  }
  j["sessions"] = std::move(sessions);
  ordered_json series = ordered_json::array();
  for (const StatisticTrend& t : report.trends) {
    const HistorySeries& s = history.series[static_cast<std::size_t>(t.series)];
    ordered_json e;
    e["suite"] = s.suite;
    e["case"] = s.case_name;
    e["metric"] = s.metric;
    e["statistic"] = s.statistic;
    e["unit"] = s.statistic == "rate" ? "events/run" : s.unit;
    e["better"] = to_string(s.better);
    e["alpha"] = t.alpha;
    e["sessions"] = s.sessions;
    ordered_json values = ordered_json::array();
    for (double v : s.values) values.push_back(std::exp(v));
    e["values"] = std::move(values);
    ordered_json changes = ordered_json::array();
    for (std::size_t i = 0; i < t.findings.changes.size(); ++i) {
      const Shift& c = t.findings.changes[i];
      ordered_json cj = shift_json(s, report, t, c, level_before(t, c));
      cj["beyond_floor"] = static_cast<bool>(t.change_beyond[i]);
      cj["worse"] = static_cast<bool>(t.change_worse[i]);
      changes.push_back(std::move(cj));
    }
    e["change_points"] = std::move(changes);
    const Shift& n = t.findings.newest;
    ordered_json nj{{"tested", n.at >= 0}};
    if (n.at >= 0) {
      const double level = level_before(t, n);
      nj.update(shift_json(s, report, t, n, level));
      // The change in the worse direction this test finds with 90% power.
      nj["detectable"] =
          in_units(s, level, s.better == Better::kLower ? n.detectable : -n.detectable);
      nj["worse"] = t.newest_worse;
      nj["better"] = t.newest_better;
    }
    e["newest"] = std::move(nj);
    const gate::Drift& d = t.findings.drift;
    ordered_json dj{
        {"kernels", d.kernels},
        {"from_session", s.sessions.empty() ? 0 : s.sessions[static_cast<std::size_t>(d.from)]}};
    if (d.kernels >= 3 && std::isfinite(d.per_kernel)) {
      dj["per_kernel_pct"] = 100 * std::expm1(d.per_kernel);
      dj["low_pct"] = 100 * std::expm1(d.lo);
      dj["high_pct"] = 100 * std::expm1(d.hi);
    }
    e["drift"] = std::move(dj);
    series.push_back(std::move(e));
  }
  j["series"] = std::move(series);
  return j;
}

const char* history_outcome_name(gate::HistoryOutcome o) {
  switch (o) {
    case gate::HistoryOutcome::kWorse:
      return "worse";
    case gate::HistoryOutcome::kNotWorse:
      return "not_worse";
    case gate::HistoryOutcome::kTooShort:
      break;
  }
  return "too_short";
}

}  // namespace rtgate
