// TraceCollector: reads a TraceSession's ring buffer while the run goes on (a SCHED_OTHER thread
// draining every CPU's buffer through libtracefs every 50 ms, so a long run loses nothing that an
// analysis needs), keeps each CPU's recent events, and analyses the samples the measuring loops
// marked: the worst of each CPU, the break, and threshold crossings up to a limit (the largest,
// keeping one of each cause). Every analysed sample is also counted into its thread's cause
// profile (cause_profile.h). With `locks` it also counts kernel lock contention over the whole run.
//
// In a VM the host's steal is read per CPU after each drain (CpuSteal), so that each sample is
// analysed with the steal of its CPU between the reading before its deadline and the one after
// its marker. A CPU's worst sample may then be mostly the host's; its worst once host time is set
// aside ("guest_worst") is analysed too, and the sample hook is told to mark samples above that
// (lower_mark_floor), since it otherwise marks only samples above the CPU's worst.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "framework/env/cpu_steal.h"
#include "framework/trace/cause_profile.h"
#include "framework/trace/cfs_while_rt.h"
#include "framework/trace/event_decoder.h"
#include "framework/trace/lock_contention.h"
#include "framework/trace/sample_analysis.h"
#include "framework/trace/trace_session.h"

struct tep_handle;

namespace rtgate::trace {

struct CollectorOptions {
  std::int64_t threshold_ns = 0;  // markers at or over it are "threshold" crossings
  int crossings_per_cpu = 8;      // crossings kept per CPU beyond its worst (twice as many analysed
                                  // per drain)
  std::int64_t history_ns = 500'000'000;     // events kept per CPU, back from the newest
  std::size_t history_cap = 300'000;         // and at most this many
  std::int64_t excerpt_before_ns = 200'000;  // excerpt: this long before the deadline
  std::size_t excerpt_lines = 4000;
  bool locks = false;
  // Called (from the collector's thread) with a CPU and the guest latency of its worst sample
  // once host time is set aside: samples above it are worth marking.
  std::function<void(int cpu, std::int64_t ns)> lower_mark_floor;
};

// What a traced run found.
struct TraceFindings {
  std::vector<SampleAnalysis> analyses;  // per CPU: its worst (or the break) first, then crossings
  LockContention contention;             // traced only with `locks`
  std::uint64_t events = 0;              // events read
  std::uint64_t lost = 0;                // events the ring buffer overwrote before they were read
  std::uint64_t markers = 0;             // samples the loops marked
  std::uint64_t crossings_not_analysed = 0;
  std::string steal_source;  // StealReading::source of the steal readings ("" when unreadable)
  // Per CPU: time SCHED_OTHER tasks ran while an RT task there was runnable (cfs_while_rt.h).
  std::map<int, std::int64_t> cfs_while_rt_runnable_ns;
  // Per measuring thread (its label): every analysed sample counted into a cause profile.
  std::map<std::string, CauseProfile> profiles;
};

class TraceCollector {
 public:
  // nullptr and `why` when the event formats cannot be read.
  static std::unique_ptr<TraceCollector> start(const TraceSession& session, CollectorOptions o,
                                               std::string* why);
  ~TraceCollector();
  TraceCollector(const TraceCollector&) = delete;
  TraceCollector& operator=(const TraceCollector&) = delete;

  // Stops the reader after a last drain (freeze the session first for a clean end) and returns
  // what it found. Call once.
  TraceFindings finish();

 private:
  TraceCollector(const TraceSession& session, CollectorOptions o, tep_handle* tep);
  struct Cpu {
    std::deque<TraceEvent> history;
    pid_t current_before = -1;            // the task running before history.front()
    std::vector<Marker> pending;          // markers of this drain, analysed after its steal reading
    std::optional<SampleAnalysis> worst;  // the worst marked sample (or the break)
    std::optional<SampleAnalysis> guest;  // the worst once host time is set aside (may be `worst`)
    std::vector<SampleAnalysis> crossings;  // the largest threshold crossings besides them
    int analysed_this_drain = 0;            // bounds the analysis work of one drain
  };
  // One reading of every CPU's cumulative steal, and when it was taken (CLOCK_MONOTONIC).
  struct StealRead {
    std::int64_t begin_ns = 0, end_ns = 0;
    StealReading steal;
  };
  void loop();
  void drain();
  void read_steal();
  WindowSteal window_steal(int cpu, std::int64_t from_ns, std::int64_t to_ns) const;
  static int on_event(struct tep_event* event, struct tep_record* record, int cpu, void* self);
  void add(TraceEvent e);
  void on_marker(int n, Cpu& cpu, const Marker& m);
  void retire(Cpu& cpu, std::optional<SampleAnalysis> displaced);
  static std::int64_t guest_floor(const Cpu& cpu);
  bool is_crossing(std::int64_t latency_ns) const;
  bool wants_crossing(Cpu& cpu, std::int64_t latency_ns);
  void keep_crossing(Cpu& cpu, SampleAnalysis a);
  static std::string cause_of(const SampleAnalysis& a);
  void trim(Cpu& cpu);
  CauseProfileBuilder& profile(const std::string& thread);
  std::string excerpt(const Cpu& cpu, const Marker& m) const;

  const TraceSession& session_;
  CollectorOptions options_;
  tep_handle* tep_;
  EventDecoder decoder_;
  std::map<int, Cpu> cpus_;
  std::unordered_set<int> comms_registered_;
  // The policy of each RT task as first seen running, read while it lived: a task gone by the
  // time its sample is analysed (a --load thread, stopped before the last drain) keeps its name.
  std::unordered_map<int, std::string> rt_policies_;
  std::deque<StealRead> steal_reads_;
  std::map<std::string, CauseProfileBuilder> profiles_;
  ContentionCounter contention_;
  CfsWhileRt cfs_while_rt_;
  TraceFindings findings_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace rtgate::trace
