// What changed in the causes of a case's latency between two traced results: the cause profiles
// (framework/trace/cause_profile.h) of the baseline and current case, compared class by class.
//
// The promise: a cause is named as grown (or new, when the baseline never had it) only when
//  - both profiles count samples over the same threshold, and current has at least kMinSamples;
//  - its rate, the samples over the threshold it took part in per sample measured (the analysed
//    ones: crossings the analysis budget skipped lower the exposure in proportion), rose by the
//    exact rate test the gate uses for events (count_estimate.h), made quasi-Poisson by the
//    dispersion of its counts over the runs' one-second slices (pooled over the sides that have
//    it, at its upper 75% bound) plus, when the sides are two sessions, the session term of a
//    session's offset of its rate (kCauseSessionTau, a stated prior), significant after Holm
//    over the classes of the case at `alpha`;
//  - it is material: both the fraction of samples over the threshold it took part in and its
//    share of their latency rose by at least kMinRise. Rates alone would name every cause of a
//    run that crossed more often; the floors name those whose part of the picture grew.
// Shrunk and gone causes mirror it. The gate never judges any of this; it is evidence beside the
// metric verdicts, and the seeded simulations in tests/unit/cause_compare_calibration_test.cpp
// check the promise on bursty counts, offsets between sessions and uneven runs.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "framework/report/report.h"

namespace rtgate::gate {

inline constexpr std::uint64_t kMinSamples = 10;
inline constexpr double kMinRise = 0.10;
// The default prior of a session's offset of a cause's rate (log scale, one SD): 30% of itself.
inline constexpr double kCauseSessionTau = 0.3;

struct CauseChange {
  std::string cause;  // cause_profile.h's class name: "softirq NET_RX", "task load-rt* (...)"
  bool is_new = false, is_gone = false;
  std::uint64_t samples_base = 0, samples_cur = 0;
  double in_base = 0, in_cur = 0;        // fraction of the profiled samples it took part in
  double share_base = 0, share_cur = 0;  // its share of their latency
  double phi = 1;                        // dispersion the test used
  double p = NAN;                        // one-sided, in the change's direction
};

struct LockChange {
  std::string lock;  // "rename_lock SPIN from d_walk"
  bool is_new = false;
  double waits_base = 0, waits_cur = 0;      // per run
  double wait_ms_base = 0, wait_ms_cur = 0;  // total wait per run
  double phi = 1, p = NAN;
};

// One case's comparison (case_name empty: the suite's kernel lock contention).
struct CauseComparison {
  std::string suite, case_name;
  std::int64_t threshold_ns = 0;
  std::string threshold_from;  // how rtgate chose the threshold ("" when the user gave it)
  std::uint64_t samples_base = 0, samples_cur = 0;
  std::vector<CauseChange> grew;    // most grown share of the latency first
  std::vector<CauseChange> shrank;  // most shrunk first
  std::vector<LockChange> locks;    // locks whose contention grew, most grown wait first
  // Why nothing or only part could be compared ("the baseline has 3 samples over 50 us"), or
  // how the threshold was chosen; "" when the comparison ran as promised.
  std::string note;
  // "new cause softirq NET_RX in 41% of samples over 50 us (was 2%)"; "" when nothing grew.
  std::string headline() const;
  // "cause softirq NET_RX: 41% of samples (was 2%), 38% of the latency (was 1%), p 0.001"
  // "cyclic/cpu1: causes over 50 us (the baseline's p99 of ...), 812 samples (baseline 640)"
  // ("cyclic: kernel locks" for a suite's locks), or "" for locks.
  std::string title() const;
  // The title, then "grew: ...", "shrank: ...", "lock grew: ...", "note: ..." lines, or "no
  // cause grew or shrank".
  std::vector<std::string> lines() const;
  // lines() as text: the title, then each line indented by four spaces, each ending in '\n'.
  std::string block() const;
  static std::string describe(const CauseChange& c);
  static std::string describe(const LockChange& c);
};

// `measured_*`: the samples each side measured, the exposure of the rates.
// `two_sessions`: the sides are different sessions, whose offsets the slices cannot show.
CauseComparison compare_causes(const trace::CauseProfile& base, double measured_base,
                               const trace::CauseProfile& cur, double measured_cur, double alpha,
                               bool two_sessions);

// The samples a case measured: its first latency metric's count over all runs.
double measured_samples(const Case& c);

}  // namespace rtgate::gate
