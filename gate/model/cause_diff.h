// What changed in the causes of a case's latency between two traced results, as data: the gate
// writes it (gate/cause/cause_compare.h) beside its verdicts, exporters print it. Evidence for
// people; the gate never judges it.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace rtgate::gate {

// The least rise, of both a cause's fraction of the samples and its share of their latency, that
// makes it material (a grown cause below it in the baseline is "new").
inline constexpr double kMinRise = 0.10;

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

// "over 50 us": the threshold a comparison counted samples over.
std::string over(std::int64_t threshold_ns);

}  // namespace rtgate::gate
