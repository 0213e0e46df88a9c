// The between-session noise of each gated statistic: how far the mean of a session's runs moves
// from one session (a boot, a process) to the next when the kernel does not change.
//
// A kernel gate compares two sessions. Every run of one session shares its offset (memory layout,
// IRQ placement, frequency, the host's load on a VM), so the runs of a result are replicates of
// the session, not of the kernel: the change's variance has a session term, tau^2 per side
// (change_estimate.h). tau comes, best first, from
//   1. the host's own history: results of this host, selection and parameters from earlier
//      sessions (`rtgate gate --history DIR`, ci/gate-kernel.sh's baseline directory, several
//      baseline files). The series of session means in time order gives the variance of a
//      session mean: their plain variance, or, when the von Neumann ratio shows the series moved (a
//      real change, a drift), their mean square successive difference, which a few steps barely
//      move. The part the sessions' own runs explain is subtracted to give tau^2;
//      Within a group of metrics of one kind (lock.latency's p99 over its locks) the session-mean
//      variances are moderated towards their empirical-Bayes prior, as the runs' are;
//   2. a stated default prior (default_session_noise), when the history has fewer than
//      kMinHistory sessions. Every verdict says which.
#pragma once

#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "gate/model/policy.h"
#include "results/board_class.h"
#include "results/report.h"

namespace rtgate::gate {

enum class NoiseSource { kDefault, kHistory };

struct SessionNoise {
  // Variance of a session's offset on the log scale (event counts: of the log rate), and its
  // degrees of freedom (+inf: a stated prior, taken as known). From a history it is the variance
  // of the session means less the part their own runs explain, and is not truncated at 0: a
  // history that by chance varied little must still carry the uncertainty of its few sessions,
  // which the estimate's df expresses only if the estimate is kept whole (change_estimate.h).
  double tau_sq = 0;
  double tau_df = INFINITY;
  // The variance of the history's session means that tau_sq was taken from (0 for the prior):
  // what the session part's own uncertainty scales with.
  double session_mean_var = 0;
  // What the history shows within its sessions, a prior for a side's own estimate (0 df: none):
  // the per-run variance of a log-scale statistic, or the dispersion (variance / mean) of a count.
  double run_var = NAN;
  double run_df = 0;
  int sessions = 0;  // sessions the history had for this statistic
  // Fewer than kMinHistory sessions: their own spread (the variance of their means less what
  // their runs explain) and its df, which can raise the prior (NoiseModel::of) but not replace it.
  double short_var = NAN, short_df = 0;
  bool raised = false;  // the prior was raised by the sessions' own spread
  NoiseSource source = NoiseSource::kDefault;
  // "tau 8.2% from 10 sessions of history" or "tau 10% by the default prior (no history)".
  std::string describe(bool ratio) const;
};

// Fewer sessions than this leave tau to the default prior: two differences say almost nothing.
inline constexpr int kMinHistory = 5;
// What the default prior weighs when 2 to 4 sessions of the baseline show a wider spread than
// it: as many sessions' worth as this. The sessions can only raise the prior.
inline constexpr double kPriorWeight = 4;

// The stated prior, per board class (board_class.h), as a session offset SD (log scale) of a
// latency quantile or throughput ("narrow") and of the max, a near-max quantile or an event rate
// ("wide"), between boots and between processes of one boot:
//
//   class          between boots       within a boot
//   bare_metal     10%   / 25%          3%   / 10%
//   vm             25%   / 125%         25%  / 60%
//   emulated       25%   / 125%         25%  / 60%
//   deterministic  2%    / 3%           2%   / 3%
//
// gate/README.md says where each figure comes from.
SessionNoise default_session_noise(const std::string& statistic, BoardClass board, bool same_boot);

// One session's value of one statistic: the mean of its runs (log scale; for a count the log of
// (events + 0.5) / runs), the variance that mean has from its own runs, and the within-session
// spread (log statistics: the pooled per-run variance and its df; counts: the Pearson
// chi-square and its df).
struct SessionPoint {
  double mean = NAN, mean_var = 0;
  double spread_ss = 0, spread_df = 0;
};

// One session's point of a statistic of `m` ("rate" for an event count): what the noise model
// and a board's history (history.h) read of a result.
SessionPoint session_point(const Metric& m, const std::string& statistic);

// tau^2 from session points in time order (see the file comment). Needs kMinHistory points.
SessionNoise estimate_session_noise(const std::vector<SessionPoint>& series, bool counts);

// A stable identity of the process a result was measured in: boot id and process, or (for older
// results) host and start time. A gate whose sides share it compares runs of one process.
std::string session_id(const RunReport& r);
// The boot a result was measured in (its boot id; session_id for older results). The boot is the
// session: the processes of one boot share its layout and IRQ placement.
std::string boot_of(const RunReport& r);
// A boot id as a number, as Prometheus keeps it (rtgate_boot_key): a 52-bit hash of the id,
// exact in a double. nullopt for an empty id.
std::optional<double> boot_number(const std::string& boot_id);

class NoiseModel {
 public:
  NoiseModel() = default;
  // Sessions in time order (started_at). The boot is the session: when the results span several
  // boots, the processes of one boot are merged into one session, and the noise learned is the
  // noise between boots. When they all share one boot (a machine that cannot reboot), each
  // process is a session, and the noise learned is used only for gates within one boot: what
  // moves between boots is not in it. Metrics judged as policy says; results of other hosts,
  // suites' parameters or run options must be filtered out first.
  static NoiseModel from_sessions(const std::vector<const RunReport*>& sessions,
                                  const Policy& policy);
  using Key = std::tuple<std::string, std::string, std::string, std::string>;
  // Per (suite, case, metric, statistic), the points of each session group (a boot; a process
  // when all share one boot), the groups numbered in time order.
  using Points = std::map<Key, std::map<int, std::vector<SessionPoint>>>;
  // The same from points already reduced (a history read from Prometheus): `sessions` groups,
  // `one_boot` when they are processes of one boot.
  static NoiseModel from_points(const Points& grouped, int sessions, bool one_boot);
  // The noise of one statistic of one metric: the history's, else the default prior.
  // `tail`: the statistic is a near-max (few samples above it), whose default is the max's.
  SessionNoise of(const std::string& suite, const std::string& case_name, const std::string& metric,
                  const std::string& statistic, MetricKind kind, bool tail = false) const;
  int sessions() const { return sessions_; }
  // The sessions learned from are processes of one boot.
  bool one_boot() const { return one_boot_; }
  // What the history gave, per (suite, case, metric, statistic).
  const std::map<Key, SessionNoise>& known() const { return known_; }
  // Chooses the default prior: the noisier side's board class, one boot when both ran in one.
  void set_environment(const Environment& base, const Environment& cur);
  // One line for the gate's output: where tau comes from.
  std::string describe(int baseline_sessions) const;

 private:
  std::map<Key, SessionNoise> known_;
  int sessions_ = 0;
  int from_history_ = 0;  // statistics whose tau the history gave
  BoardClass board_ = BoardClass::kBareMetal;
  bool same_boot_ = false;
  bool one_boot_ = false;
  // The history's noise may judge this pair: it was learned between boots, or the pair is in one.
  bool history_fits() const { return !one_boot_ || same_boot_; }
};

// Adds the point of each statistic of `r` a gate judges (as `policy` says) to `out`, in session
// group `group`.
void add_session_points(const RunReport& r, int group, const Policy& policy,
                        NoiseModel::Points& out);

// Moderates the history's session-mean variances within each (suite, metric, statistic) group
// of at least kMinGroup members (event rates excepted): see session_noise.cpp.
void borrow_across_groups(const std::map<NoiseModel::Key, std::vector<SessionPoint>>& series,
                          std::map<NoiseModel::Key, SessionNoise>& known);

}  // namespace rtgate::gate
