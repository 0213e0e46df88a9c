// A board's history: one host's results of one selection, as sessions in time order, and per
// gated statistic the series of its session values (session_noise.h's session_point: the mean of
// the session's per-run log values; for an event count, the log rate). What `rtgate history`
// judges (history_judge.h) and ci/gate-kernel.sh reads.
//
// A result is reduced to its session values as it is added, so a history of a thousand sessions
// of a thousand cases holds a few million numbers, not a thousand results.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "gate/model/policy.h"
#include "results/report.h"

namespace rtgate::gate {

struct HistorySession {
  std::string id;    // session_id(): the process, or the boot when results of one boot merged
  std::string boot;  // boot_of()
  int results = 1;   // results merged into it (retries in one boot)
  std::vector<std::string> merged_sources;  // the files of the results merged into it
  std::string started_at;
  std::string kernel;  // environment.kernel_release
  std::string host;    // environment.hostname
  std::string source;  // the file it was read from
  bool contaminated = false;
  // How ci/gate-kernel.sh stored it, from the file name: "<time>.inconclusive.json" after an
  // inconclusive gate, "<time>.regressed.json" after a regressed one; else "" (passed, or a
  // result stored by other means).
  std::string stored_as;
};

struct HistorySeries {
  std::string suite, case_name, metric, statistic;
  MetricKind kind = MetricKind::kLatency;
  Better better = Better::kLower;
  std::string unit;
  std::vector<int> sessions;   // indices into History::sessions, ascending
  std::vector<double> values;  // one per entry of `sessions`
  // The mean over sessions of the variance a session value has from its own runs (a count's:
  // its Poisson variance times the dispersion): no segment is steadier than that.
  double within_var = 0;
};

// A traced case's cause profile in one session (--trace), and the samples it measured.
struct HistoryProfile {
  int session = 0;  // index into History::sessions
  std::string suite, case_name;
  trace::CauseProfile profile;
  double measured = 0;
};

struct History {
  std::vector<HistorySession> sessions;  // in time order (started_at)
  std::vector<HistorySeries> series;     // in the order first seen
  std::vector<HistoryProfile> profiles;  // in time order of their sessions
  int duplicates = 0;                    // results of a session already added
  // Results merged into a session of their boot: a retry in one boot is not another session.
  int merged_in_boot = 0;
  // Every session is a process of one boot (a machine that cannot reboot, such as a CI VM):
  // the history's spread is between processes, and says nothing of what moves between boots.
  bool one_boot = false;
};

// One result reduced to what a history keeps (HistoryBuilder::reduce).
struct SessionValues {
  std::string mismatch;  // why it is not of the history ("": it is)
  HistorySession session;
  // The statistic's identity points into the result reduced, which must outlive add().
  struct Value {
    std::string key;
    const SuiteResult* suite = nullptr;
    const Case* case_ = nullptr;
    const Metric* metric = nullptr;
    std::string statistic;
    double value = 0, within_var = 0;
  };
  std::vector<Value> values;
  std::vector<HistoryProfile> profiles;  // session not yet set
};

// The statistics of `m` a history follows under `mp` ("rate" for an event count).
std::vector<std::string> history_statistics(const Metric& m, const MetricPolicy& mp);

class HistoryBuilder {
 public:
  explicit HistoryBuilder(Policy policy) : policy_(std::move(policy)) {}
  // Adds one result (`source` names it). Returns "" when taken, or why it is not the history of
  // the first result added: another host, suite, parameter, load or run option, one line naming
  // what differs ("host lab2", "cyclic interval_us: 1000 -> 200"). A second result of a session
  // already added is counted in History::duplicates and left out.
  std::string add(const RunReport& r, const std::string& source);
  // The same in two steps, for readers on several threads: reduce (const, safe to call
  // concurrently once the first result has been added) and add (one thread at a time), while
  // the result reduced is still alive.
  SessionValues reduce(const RunReport& r, const std::string& source) const;
  std::string add(SessionValues values);
  // The sessions in time order and the series re-indexed to it. The boot is the session: when
  // the results span several boots, those of one boot are merged into one session (the mean of
  // their values); when all share one boot, each process stays a session and the history says
  // so (History::one_boot).
  History finish();

 private:
  Policy policy_;
  std::optional<RunReport> reference_;  // the first result, without its cases
  std::string reference_source_;
  History history_;
  std::unordered_map<std::string, int> session_index_;
  std::unordered_map<std::string, int> series_index_;
  std::vector<std::string> series_keys_;  // by series index: most results list them in order

  void merge_boots();
};

}  // namespace rtgate::gate
