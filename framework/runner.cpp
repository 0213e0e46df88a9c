#include "framework/runner.h"

#include <sched.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <set>

#include "framework/env/environment.h"
#include "framework/env/hygiene.h"
#include "framework/measure/clock.h"
#include "framework/readiness/readiness.h"
#include "framework/rt/cfs_protection.h"
#include "framework/rt/cpu_list.h"
#include "framework/rt/debugfs_mount.h"
#include "framework/rt/dma_latency.h"
#include "framework/rt/memory_lock.h"
#include "framework/rt/rt_checks.h"
#include "framework/rt/rt_throttle.h"
#include "framework/run_once.h"
#include "results/contamination.h"

namespace rtgate {
namespace {

int severity(SuiteStatus s) {
  switch (s) {
    case SuiteStatus::kPassed:
      return 0;
    case SuiteStatus::kSkipped:
      return 1;
    case SuiteStatus::kInconclusive:
      return 2;
    case SuiteStatus::kFailed:
      return 3;
    case SuiteStatus::kError:
      return 4;
  }
  return 4;
}

// RT throttling seen in the scheduler's own state during the suite (rt_throttle.h), beside the
// kernel log's once-per-boot message that hygiene_between() counted.
void add_throttling(Hygiene& h, const rt::RtThrottleWatch& w) {
  if (w.disabled()) {
    h.rt_throttled = 0;
    h.rt_throttled_source = w.source();
    return;
  }
  if (!w.active()) {
    h.rt_throttled_source += (h.rt_throttled_source.empty() ? "" : "; per CPU: ") + w.source();
    return;
  }
  const std::int64_t kmsg = h.rt_throttled;
  h.rt_throttled = std::max<std::int64_t>(kmsg, w.events());
  h.rt_throttled_source = w.source();
  if (w.events() > 0) h.rt_throttled_source += " (" + w.describe() + ")";
  if (kmsg > 0) h.rt_throttled_source += "; kmsg";
}

// What the kernel's CFS protection took from the RT class in the suite: measured from
// sched_switch with --trace (per CPU, summed over the runs), otherwise unknown.
std::string cfs_time_taken(const SuiteResult& res) {
  if (!res.trace || res.trace->cfs_while_rt_runnable_ms.empty()) {
    return "the time it took is not measured without --trace";
  }
  std::string out = "SCHED_OTHER ran while RT was runnable (--trace):";
  for (const auto& [cpu, per_run] : res.trace->cfs_while_rt_runnable_ms) {
    double ms = 0;
    for (const double v : per_run) ms += v;
    char buf[64];
    std::snprintf(buf, sizeof buf, " CPU %d %.1f ms", cpu, ms);
    out += buf;
  }
  return out;
}

// What the result records of its options: the ones as given (not the CPUs they resolved to), so
// that two results can be told apart by how they were asked for.
RunOptionsRecord record_of(const RunOptions& opt) {
  return {.duration_s = opt.duration_s,
          .runs = opt.runs,
          .cpus = text::format_cpu_list(opt.cpus),
          .load = opt.load.text(),
          .watchdog_s = opt.watchdog_s,
          .require_rt = opt.require_rt,
          .recorded = true};
}

// What a suite that needs RT measures without: page faults on the measured path (no mlockall),
// deep C-state exits (no cpu_dma_latency hold). Both make its figures untrustworthy.
std::vector<std::string> rt_setup_flaws(RunReport& report,
                                        std::unique_ptr<rt::DmaLatencyHold>& dma) {
  std::vector<std::string> flaws;
  if (const std::string why = rt::lock_memory(); !why.empty()) {
    report.environment.extra["mlockall"] = why;
    flaws.push_back("mlockall failed: " + why);
  }
  if (!dma) dma = std::make_unique<rt::DmaLatencyHold>(0);
  if (!dma->held()) flaws.push_back("cpu_dma_latency not held: " + dma->reason());
  return flaws;
}

// Why a suite is skipped here ("" when it can run), and whether for lack of RT.
std::string skip_reason(const SelectedSuite& sel, const rt::Readiness& ready) {
  if (has(sel.suite->needs, Needs::kSchedFifo) && !ready.sched_fifo) return ready.reason;
  if (has(sel.suite->needs, Needs::kRoot) && geteuid() != 0) return "needs root";
  return "";
}

// Folds one run's result into the suite's. False when the suite must not run again.
bool fold_run(SuiteResult& res, const SuiteResult& r) {
  if (severity(r.status) > severity(res.status)) {
    res.status = r.status;
    res.reason = r.reason;
  } else if (res.reason.empty()) {
    res.reason = r.reason;  // e.g. a passed run that skipped some cases says which and why
  }
  res.merge_run(r);
  ++res.runs;
  if (r.status == SuiteStatus::kError) return false;
  return !(r.trace && !r.trace->break_reason.empty());  // --break-us ends the suite
}

// The runs of one suite that can run here, with its hygiene around them.
void run_suite(const SelectedSuite& sel, const RunOptions& opt, const std::vector<int>& cpus,
               const std::atomic<bool>& interrupt, std::vector<std::string> setup_flaws,
               SuiteResult& res, RunOutcome& out) {
  rt::RtThrottleWatch throttle(cpus);
  const HygieneSnapshot before = take_hygiene_snapshot();
  const std::int64_t t0 = monotonic_ns();
  std::vector<std::map<int, double>> steal_per_run;
  for (int i = 0; i < opt.runs && !interrupt.load(); ++i) {
    RunNotes notes{.trace_unavailable = out.trace_unavailable};
    const HygieneSnapshot steal0 = take_steal_snapshot();
    const std::optional<SuiteResult> r =
        run_once({.sel = sel, .opt = opt, .index = i, .cpus = cpus, .interrupt = interrupt},
                 throttle, notes);
    steal_per_run.push_back(steal_ms_between(steal0, take_steal_snapshot()));
    out.trace_unavailable = notes.trace_unavailable;
    if (!notes.housekeeping) {
      out.report.environment.extra["housekeeping_cpus"] =
          "none: " + res.name +
          " measures on every allowed CPU; rtgate's watchdog and runner share them";
    }
    if (!r) {
      res.status = SuiteStatus::kError;
      res.reason = (notes.watchdog_why.empty() ? "" : notes.watchdog_why + "; ") +
                   "suite did not stop within 5 s of the stop request and was abandoned";
      out.abandoned = true;
      break;
    }
    if (!fold_run(res, *r)) break;
  }
  res.duration_s = static_cast<double>(monotonic_ns() - t0) / 1e9;
  add_unique(res.contaminated_reasons, setup_flaws);
  Hygiene h = hygiene_between(before, take_hygiene_snapshot(), {getpid()});
  h.steal_ms_per_run = std::move(steal_per_run);
  add_throttling(h, throttle);
  h.cfs_protection = rt::describe_cfs_protection() + "; " + cfs_time_taken(res);
  assess_hygiene(res, std::move(h));
}

}  // namespace

RunOutcome run_suites(const std::vector<SelectedSuite>& selection, const RunOptions& opt,
                      const std::atomic<bool>& interrupt, const SuiteDoneFn& on_suite_done) {
  RunOutcome out;
  // Before anything reads the scheduler's debug file (the environment, the steal clock).
  const rt::DebugfsMount debugfs;
  out.report.tool_version = RTGATE_VERSION;
  out.report.started_at = rfc3339_now();
  out.report.environment = capture_environment();
  if (!debugfs.note().empty()) out.report.environment.extra["debugfs"] = debugfs.note();
  out.report.options = record_of(opt);
  out.report.complete = false;
  const rt::Readiness ready = rt::check_readiness();
  const std::vector<int> cpus = opt.cpus.empty() ? rt::allowed_cpus() : opt.cpus;
  out.report.environment.readiness = readiness::record(readiness::SysRoot("/"), cpus);
  std::unique_ptr<rt::DmaLatencyHold> dma;

  for (const SelectedSuite& sel : selection) {
    if (interrupt.load()) break;
    SuiteResult res;
    res.name = sel.suite->name.value;
    res.params = sel.params.values();
    if (std::string why = skip_reason(sel, ready); !why.empty()) {
      res.status = SuiteStatus::kSkipped;
      res.reason = std::move(why);
      out.rt_unavailable = true;
      out.report.suites.push_back(std::move(res));
      if (opt.require_rt) break;
      continue;
    }
    std::vector<std::string> flaws;
    if (has(sel.suite->needs, Needs::kSchedFifo)) flaws = rt_setup_flaws(out.report, dma);
    run_suite(sel, opt, cpus, interrupt, std::move(flaws), res, out);
    out.report.suites.push_back(std::move(res));
    if (on_suite_done) on_suite_done(out.report);
    if (out.abandoned) break;
  }
  if (!out.report.environment.extra.count("cpu_dma_latency_hold") && dma) {
    out.report.environment.extra["cpu_dma_latency_hold"] = dma->held() ? "0 us" : dma->reason();
  }
  out.interrupted = interrupt.load();
  out.report.complete =
      !out.interrupted && !out.abandoned && !(opt.require_rt && out.rt_unavailable);
  out.report.finished_at = rfc3339_now();
  return out;
}

}  // namespace rtgate
