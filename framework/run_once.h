// One repetition of one suite: its loads, trace, watchdog and worker thread, watched from the
// runner's thread until the suite ends, is stopped, or is abandoned.
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "framework/rt/rt_throttle.h"
#include "framework/runner.h"
#include "results/report.h"

namespace rtgate {

// What the runner decided before the run starts.
struct RunPlan {
  const SelectedSuite& sel;
  const RunOptions& opt;
  int index = 0;          // the repetition, from 0
  std::vector<int> cpus;  // the CPUs the run may use (--cpus, else every allowed one)
  const std::atomic<bool>& interrupt;
};

// What a run tells the runner besides its result.
struct RunNotes {
  std::string watchdog_why;  // an abandoned run: why the watchdog fired ("" when it did not)
  // --trace could not be had: why. Kept across runs, so later runs do not try again.
  std::string trace_unavailable;
  bool housekeeping = true;  // a CPU outside the measured ones was found for the runner's thread
};

// The run's result, or nullopt when the suite ignored a stop request and was abandoned (its
// thread is left to the process exit). `throttle` is polled while the run lasts.
std::optional<SuiteResult> run_once(const RunPlan& plan, rt::RtThrottleWatch& throttle,
                                    RunNotes& notes);

}  // namespace rtgate
