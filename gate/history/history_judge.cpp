#include "gate/history/history_judge.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <thread>
#include <tuple>

#include "base/exit_codes.h"
#include "gate/history/history_causes.h"
#include "gate/model/format.h"
#include "gate/noise/change_estimate.h"

namespace rtgate::gate {
namespace {

bool is_rate(const HistorySeries& s) { return s.statistic == "rate"; }

// The policy's floor for a statistic: a log ratio, or events per run for a rate.
double floor_of(const HistorySeries& s, const MetricPolicy& mp) {
  if (is_rate(s)) return mp.count_floor_per_run;
  if (s.statistic == "max") return std::log1p(mp.max_noise_floor_pct / 100);
  if (s.kind == MetricKind::kLatency) return std::log1p(mp.latency_noise_floor_pct / 100);
  return std::log1p(mp.noise_floor_pct / 100);
}

bool beyond_floor(const HistorySeries& s, double floor, double level, double size) {
  if (is_rate(s)) return std::abs(std::exp(level + size) - std::exp(level)) >= floor;
  return std::abs(size) >= floor;
}

// No segment is steadier than its sessions' own runs say (a count of one event in five runs
// cleaned into a constant segment must not make a change point of a tenth of an event), nor than
// a latency quantile's 1/64-bucket quantisation; throughput is floored at 0.1%.
double resolution_of(const HistorySeries& s) {
  const double floor =
      s.kind == MetricKind::kLatency && !is_rate(s) ? std::sqrt(quantisation_log_var()) : 1e-3;
  return std::max(floor, std::sqrt(s.within_var));
}

// f(0) ... f(n - 1), on every core.
template <class F>
void parallel_for(std::size_t n, F&& f) {
  const std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 8);
  if (n < 64 || threads == 1) {
    for (std::size_t i = 0; i < n; ++i) f(i);
    return;
  }
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (std::size_t i = t; i < n; i += threads) f(i);
    });
  }
  for (std::thread& th : pool) th.join();
}

// The series' change points, and which count (beyond the floor) and are worse.
void segment(const HistorySeries& s, const ChangePointTest& test, StatisticTrend& t) {
  t.findings = find_changes(s.values, t.kernel, test);
  t.change_beyond.clear();
  t.change_worse.clear();
  for (const Shift& c : t.findings.changes) {
    const bool beyond = beyond_floor(s, t.floor, level_before(t.findings, c), c.size);
    t.change_beyond.push_back(beyond);
    t.change_worse.push_back(beyond && (c.size > 0) == test.higher_is_worse);
  }
}

std::string statistic_name(const HistorySeries& s) {
  return s.suite + "/" + s.case_name + " " + s.metric + " " + s.statistic;
}

// One line per fact a kernel gate needs (HistoryReport::notes), each naming the first statistic
// that shows it and how many do.
void add_notes(const History& h, int baseline_session, HistoryReport& out) {
  struct Fact {
    int count = 0;
    std::string first;
  };
  Fact baseline;
  std::map<std::string, Fact> started;  // an inconclusive kernel that started a worse segment
  std::string baseline_started;
  for (const StatisticTrend& t : out.trends) {
    const HistorySeries& s = h.series[static_cast<std::size_t>(t.series)];
    int last = -1;  // the last change point at or before the baseline session
    for (std::size_t c = 0; c < t.findings.changes.size(); ++c) {
      const Shift& cp = t.findings.changes[c];
      const int session = s.sessions[static_cast<std::size_t>(cp.at)];
      if (baseline_session >= 0 && session <= baseline_session) last = static_cast<int>(c);
      const HistorySession& first = h.sessions[static_cast<std::size_t>(session)];
      // The newest kernel's own segment is the outcome, not a note.
      if (t.change_worse[c] && first.stored_as == "inconclusive" &&
          first.kernel != out.newest_kernel) {
        Fact& f = started[first.kernel];
        if (f.count++ == 0) {
          f.first =
              statistic_name(s) + " " + describe_change(s, level_before(t.findings, cp), cp.size);
        }
      }
    }
    if (last >= 0 && t.change_worse[static_cast<std::size_t>(last)]) {
      const Shift& cp = t.findings.changes[static_cast<std::size_t>(last)];
      if (baseline.count++ == 0) {
        baseline_started =
            h.sessions[static_cast<std::size_t>(s.sessions[static_cast<std::size_t>(cp.at)])]
                .kernel;
        baseline.first =
            statistic_name(s) + " " + describe_change(s, level_before(t.findings, cp), cp.size);
      }
    }
  }
  if (baseline.count > 0) {
    out.notes.push_back(
        "the baseline (kernel " + h.sessions[static_cast<std::size_t>(baseline_session)].kernel +
        ") is in a worse segment that started at kernel " + baseline_started + ", in " +
        std::to_string(baseline.count) + " statistic" + (baseline.count == 1 ? "" : "s") + " (" +
        baseline.first + "): it is already a regressed kernel");
  }
  for (const auto& [kernel, f] : started) {
    out.notes.push_back(
        "kernel " + kernel + ", inconclusive at its own gate, started a worse segment in " +
        std::to_string(f.count) + " statistic" + (f.count == 1 ? "" : "s") + " (" + f.first + ")");
  }
}

// The degrees of freedom of a Student t with the kurtosis of the history's sessions: each
// log-scale series' raw values standardised within the segments its change points leave (the
// newest kernel's sessions, which are under test, left out), pooled over all series, so that a
// board whose sessions have heavy tails is not judged by normal ones. A t with df > 4 has
// excess kurtosis 6 / (df - 4); none or negative: infinite df.
double tail_df(const History& h, const std::vector<StatisticTrend>& trends, bool cleaned) {
  double z2 = 0, z4 = 0, n = 0;
  for (const StatisticTrend& t : trends) {
    const HistorySeries& s = h.series[static_cast<std::size_t>(t.series)];
    if (is_rate(s)) continue;
    int end = static_cast<int>(s.values.size());
    while (end > 0 && t.kernel[static_cast<std::size_t>(end - 1)] == t.kernel.back()) --end;
    std::vector<int> bounds{0};
    for (const Shift& c : t.findings.changes) {
      if (c.at < end) bounds.push_back(c.at);
    }
    bounds.push_back(end);
    const std::vector<double>& v = cleaned ? t.findings.cleaned : s.values;
    for (std::size_t b = 0; b + 1 < bounds.size(); ++b) {
      const int lo = bounds[b], hi = bounds[b + 1];
      if (hi - lo < 3) continue;
      double mean = 0, var = 0;
      for (int i = lo; i < hi; ++i) mean += v[static_cast<std::size_t>(i)] / (hi - lo);
      for (int i = lo; i < hi; ++i) {
        const double d = v[static_cast<std::size_t>(i)] - mean;
        var += d * d / (hi - lo - 1);
      }
      if (!(var > 0)) continue;
      for (int i = lo; i < hi; ++i) {
        const double z2i = std::pow(v[static_cast<std::size_t>(i)] - mean, 2) / var;
        z2 += z2i;
        z4 += z2i * z2i;
        n += 1;
      }
    }
  }
  if (n < 30) return INFINITY;
  const double excess = (z4 / n) / ((z2 / n) * (z2 / n)) - 3;
  return excess > 0 ? 4 + 6 / excess : INFINITY;
}

// The kernels in order of their first session, and each session's kernel index.
void index_kernels(const History& history, HistoryReport& out, std::vector<int>& session_kernel) {
  std::map<std::string, int> kernel_index;
  for (const HistorySession& s : history.sessions) {
    const auto [it, added] = kernel_index.emplace(s.kernel, static_cast<int>(out.kernels.size()));
    if (added) out.kernels.push_back(s.kernel);
    session_kernel.push_back(it->second);
  }
}

// Per series its change points, then (the tails they show) the segmentation again at the
// history's tail df, then the newest kernel's test. Series are independent: each pass runs on
// every core. Returns each series' test.
std::vector<ChangePointTest> find_trends(const History& history, const Policy& policy,
                                         const std::vector<int>& session_kernel,
                                         HistoryReport& out) {
  std::map<std::tuple<std::string, std::string, std::string>, int> per_metric;
  for (const HistorySeries& s : history.series) ++per_metric[{s.suite, s.case_name, s.metric}];
  out.family = policy.alpha_scope == AlphaScope::kMetric
                   ? 1
                   : std::max(policy.family_size, static_cast<int>(per_metric.size()));
  // First the change points of every series, then the tails they show, then the newest test.
  // Series are independent: each pass runs on every core.
  std::vector<ChangePointTest> tests(history.series.size());
  out.trends.resize(history.series.size());
  parallel_for(history.series.size(), [&](std::size_t i) {
    const HistorySeries& s = history.series[i];
    const MetricPolicy mp = resolve(policy, s.suite, s.case_name, s.metric, true);
    StatisticTrend& t = out.trends[i];
    t.series = static_cast<int>(i);
    t.alpha = mp.alpha / out.family / per_metric.at({s.suite, s.case_name, s.metric});
    t.floor = floor_of(s, mp);
    for (int session : s.sessions) t.kernel.push_back(session_kernel[session]);
    tests[i] = {.alpha = t.alpha,
                .newest_alpha = t.alpha,
                .higher_is_worse = s.better == Better::kLower,
                .resolution = resolution_of(s)};
    segment(s, tests[i], t);
  });
  // Heavy tails change where the splits fall, so the segmentation is redone at their df.
  const double split_df = tail_df(history, out.trends, true);
  if (std::isfinite(split_df)) {
    parallel_for(out.trends.size(), [&](std::size_t i) {
      tests[i].split_tail_df = split_df;
      segment(history.series[i], tests[i], out.trends[i]);
    });
  }
  out.split_tail_df = split_df;
  out.tail_df = tail_df(history, out.trends, false);
  parallel_for(out.trends.size(), [&](std::size_t i) {
    tests[i].tail_df = out.tail_df;
    StatisticTrend& t = out.trends[i];
    t.findings.newest = test_newest(history.series[i].values, t.kernel, t.findings, tests[i]);
  });
  return tests;
}

// What the newest kernel's tests say, series by series.
struct NewestCount {
  int testable = 0, untestable = 0, worse = 0;
  std::string first_worse;  // the first worse statistic and its change
};

NewestCount judge_newest(const History& history, const std::vector<ChangePointTest>& tests,
                         HistoryReport& out) {
  const int newest_session = static_cast<int>(history.sessions.size()) - 1;
  NewestCount count;
  for (std::size_t i = 0; i < out.trends.size(); ++i) {
    StatisticTrend& t = out.trends[i];
    const HistorySeries& s = history.series[i];
    const ChangePointTest& test = tests[i];
    const Shift& n = t.findings.newest;
    if (s.sessions.empty() || s.sessions.back() != newest_session) continue;
    if (n.at < 0) {
      ++count.untestable;
      continue;
    }
    ++count.testable;
    const bool beyond = beyond_floor(s, t.floor, level_before(t.findings, n), n.size);
    t.newest_worse = n.found && beyond;
    const double better_p = upper_tail((test.higher_is_worse ? -n.size : n.size) / n.se, n.df);
    t.newest_better = beyond && better_p <= t.alpha;
    if (t.newest_worse && count.worse++ == 0) {
      count.first_worse =
          statistic_name(s) + " " + describe_change(s, level_before(t.findings, n), n.size);
    }
  }
  return count;
}

void set_outcome(const NewestCount& count, HistoryReport& out) {
  const int worse = count.worse, testable = count.testable, untestable = count.untestable;
  const std::string& first_worse = count.first_worse;
  const std::string worse_text =
      std::to_string(worse) + " statistic" + (worse == 1 ? "" : "s") + " (" + first_worse + ")";
  if (worse > 0 && out.newest_sessions < 2) {
    // A segment is two sessions, as everywhere in the history: one session beyond the history's
    // spread is an outlier session or a change, and nothing but a second session tells which.
    out.outcome = HistoryOutcome::kTooShort;
    out.reason = "the one session of kernel " + out.newest_kernel + " is beyond the history in " +
                 worse_text +
                 ": one session cannot tell an outlier session from a change; a second session "
                 "of this kernel decides";
  } else if (worse > 0) {
    out.outcome = HistoryOutcome::kWorse;
    out.reason = "kernel " + out.newest_kernel + " starts a worse segment in " +
                 std::to_string(worse) + " statistic" + (worse == 1 ? "" : "s") + " (" +
                 first_worse + ")";
  } else if (testable > 0 && untestable == 0) {
    out.outcome = HistoryOutcome::kNotWorse;
    out.reason = "kernel " + out.newest_kernel + " starts no worse segment (" +
                 std::to_string(testable) + " statistics tested)";
  } else {
    out.outcome = HistoryOutcome::kTooShort;
    out.reason = out.kernels.size() < 2
                     ? "one kernel only (" + out.newest_kernel + "): nothing to compare it with"
                     : std::to_string(untestable) + " statistic" + (untestable == 1 ? "" : "s") +
                           " had fewer than 3 sessions before kernel " + out.newest_kernel +
                           " since their last change point";
  }
}

}  // namespace

HistoryReport judge_history(const History& history, const Policy& policy, int baseline_session) {
  HistoryReport out;
  out.alpha = policy.alpha;
  std::vector<int> session_kernel;
  index_kernels(history, out, session_kernel);
  if (history.sessions.empty()) {
    out.reason = "no sessions";
    return out;
  }
  out.newest_kernel = history.sessions.back().kernel;
  for (auto it = history.sessions.rbegin();
       it != history.sessions.rend() && it->kernel == out.newest_kernel; ++it) {
    ++out.newest_sessions;
  }
  const std::vector<ChangePointTest> tests = find_trends(history, policy, session_kernel, out);
  const NewestCount count = judge_newest(history, tests, out);
  add_notes(history, baseline_session, out);
  set_outcome(count, out);
  out.causes = history_causes(history, policy.alpha);
  return out;
}

int exit_code(const HistoryReport& report) {
  switch (report.outcome) {
    case HistoryOutcome::kWorse:
      return kExitFailed;
    case HistoryOutcome::kNotWorse:
      return kExitOk;
    case HistoryOutcome::kTooShort:
      break;
  }
  return kExitInconclusive;
}

std::string describe_change(const HistorySeries& s, double level, double size) {
  if (is_rate(s)) {
    const double d = std::exp(level + size) - std::exp(level);
    return (d >= 0 ? "+" : "") + fmt::num(d) + "/run";
  }
  return fmt::pct(100 * std::expm1(size));
}

}  // namespace rtgate::gate
