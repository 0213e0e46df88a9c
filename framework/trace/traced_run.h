// TracedRun: --trace for one run of a suite. It starts the private trace session on the run's
// CPUs, the collector that reads it, and the sample hook the run's periodic loops offer every
// sample to; when the run has ended it freezes the trace and puts what was found into the run's
// result: each analysis and each thread's cause profile on the case whose thread it is (else the
// analysis on the suite), the lock contention and the trace's own bookkeeping (events, lost, markers) on the suite.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "framework/trace/trace_collector.h"
#include "framework/trace/trace_hook.h"
#include "framework/trace/trace_session.h"
#include "results/report.h"

namespace rtgate::trace {

struct TraceOptions {
  bool enabled = false;
  bool locks = false;       // --trace=locks: kernel lock contention too
  double threshold_us = 0;  // --trace-threshold-us: mark and analyse samples over it
  std::string threshold_from;  // why rtgate chose threshold_us ("" when the user gave it)
  // Per suite, a threshold rtgate chose (from a baseline) in place of threshold_us.
  struct Chosen {
    double threshold_us = 0;
    std::string from;
  };
  std::map<std::string, Chosen> chosen;
  // These options for one suite: its chosen threshold, if it has one.
  TraceOptions for_suite(const std::string& suite) const;
  double break_us = 0;      // --break-us: stop the trace and the suite at the first sample over
  int buffer_kb = 8192;     // --trace-buffer-kb, per CPU
};

class TracedRun {
 public:
  // nullptr and `why` (one line) when tracing is not available here.
  static std::unique_ptr<TracedRun> start(const TraceOptions& options, const std::vector<int>& cpus,
                                          std::atomic<bool>* stop, std::string* why);
  SampleHook* hook() { return hook_.get(); }
  // After the run's threads have ended: freezes, collects and attaches to `result`.
  // `owners`: counter label -> case (RunContext::trace_owners); a sample of another label stays
  // in the suite's trace record.
  void finish(SuiteResult& result, const std::string& suite, int run_index,
              const std::map<std::string, std::string>& owners);

 private:
  TracedRun() = default;
  TraceOptions options_;
  // Destroyed bottom up: the collector (whose thread calls the hook) before the hook, both
  // before the session they read and write.
  std::unique_ptr<TraceSession> session_;
  std::unique_ptr<TraceHook> hook_;
  std::unique_ptr<TraceCollector> collector_;
};

// The file, in the trace directory beside the result, that holds a suite's excerpts of one CPU.
std::string excerpt_file_name(const std::string& suite, int cpu);

}  // namespace rtgate::trace
