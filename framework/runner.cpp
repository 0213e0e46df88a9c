#include "framework/runner.h"

#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <future>
#include <memory>
#include <optional>
#include <set>
#include <system_error>
#include <thread>

#include "framework/background_load/load.h"
#include "framework/env/environment.h"
#include "framework/env/hygiene.h"
#include "framework/measure/clock.h"
#include "framework/measure/run_context.h"
#include "framework/progress.h"
#include "framework/rt/cfs_protection.h"
#include "framework/rt/cpu_list.h"
#include "framework/rt/debugfs_mount.h"
#include "framework/rt/dma_latency.h"
#include "framework/rt/housekeeping.h"
#include "framework/rt/memory_lock.h"
#include "framework/rt/rt_checks.h"
#include "framework/rt/rt_throttle.h"
#include "framework/rt/thread_failures.h"
#include "framework/watchdog.h"

namespace rtgate {
namespace {

constexpr auto kPoll = std::chrono::milliseconds(50);

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

// What one run hands back to the runner's thread.
struct RunState {
  RunState(double duration_s, std::vector<int> cpus, int index, int runs)
      : ctx(duration_s, std::move(cpus), stop, index, runs) {}
  std::atomic<bool> stop{false};
  RunContext ctx;
  std::promise<SuiteResult> result;
  // Lives as long as the suite's threads may (an abandoned suite keeps it to the process exit).
  std::unique_ptr<trace::TracedRun> traced;
};

// Runs one repetition on a worker thread while this thread watches the clock, the interrupt flag
// and the progress line. Returns nullopt when the suite ignored a stop request and was abandoned.
std::optional<SuiteResult> run_once(const SelectedSuite& sel, const RunOptions& opt, int index,
                                    const std::vector<int>& cpus,
                                    const std::atomic<bool>& interrupt, std::string* watchdog_why,
                                    std::string* trace_why, bool* housekeeping,
                                    rt::RtThrottleWatch& throttle) {
  // The load runs beside this run only: fresh generators each run, stopped when it ends.
  std::string why;
  std::optional<load::LoadSet> loads = load::parse_load_spec(opt.load, &why);
  if (!loads) return SuiteResult{.status = SuiteStatus::kError, .reason = "--load: " + why};
  try {
    loads->start();
  } catch (const load::LoadError& e) {
    return SuiteResult{.status = SuiteStatus::kError, .reason = std::string("--load: ") + e.what()};
  }
  auto state = std::make_shared<RunState>(opt.duration_s, cpus, index, opt.runs);
  state->ctx.set_watchdog_s(opt.watchdog_s);
  const std::string& name = sel.suite->name.value;
  if (opt.trace.enabled && trace_why->empty()) {
    state->traced =
        trace::TracedRun::start(opt.trace.for_suite(name), cpus, &state->stop, trace_why);
    if (state->traced) state->ctx.set_sample_hook(state->traced->hook());
  }
  std::future<SuiteResult> done = state->result.get_future();
  rt::reset_thread_failures(&state->stop);
  if (opt.on_run) opt.on_run(name, &state->ctx);
  struct Unhook {
    const RunOptions& opt;
    const std::string& name;
    ~Unhook() {
      if (opt.on_run) opt.on_run(name, nullptr);
    }
  } unhook{opt, name};
  // The watchdog exists before the suite's first thread, so that nothing the suite starts is
  // ever unguarded; and a thread that cannot be created (a pids limit, EAGAIN) ends the suite as
  // an error here, before any std::thread is joinable (unwinding past one would terminate).
  std::optional<Watchdog> watchdog;
  try {
    watchdog.emplace(state->ctx, opt.watchdog_s);
  } catch (const std::exception& e) {
    loads->stop();
    return SuiteResult{.status = SuiteStatus::kError,
                       .reason = std::string("cannot start the watchdog thread: ") + e.what()};
  }
  std::thread worker;
  try {
    worker = std::thread([state, &sel] {
      try {
        state->result.set_value(sel.suite->run(sel.params, state->ctx));
      } catch (const std::exception& e) {
        SuiteResult r;
        r.status = SuiteStatus::kError;
        r.reason = e.what();
        state->result.set_value(std::move(r));
      }
    });
  } catch (const std::system_error& e) {
    loads->stop();
    return SuiteResult{.status = SuiteStatus::kError,
                       .reason = std::string("cannot start the suite's thread: ") + e.what()};
  }
  ProgressLine progress(state->ctx, sel.suite->name.value, opt.duration_s, index, opt.runs,
                        opt.progress);
  // The suite ends itself at its duration; past this it is asked to stop, and past the grace
  // after a stop request it is abandoned (its thread is left to the process exit).
  const std::int64_t start = monotonic_ns();
  const std::int64_t soft_end = start + static_cast<std::int64_t>((opt.duration_s + 5) * 1e9) +
                                static_cast<std::int64_t>(opt.duration_s * 0.5e9);
  std::int64_t stop_seen_at = 0;
  constexpr std::int64_t kGraceNs = 5'000'000'000;
  // This thread (the progress line, the clock) moves off the measured CPUs while the run goes
  // on, and back to where it was afterwards; `housekeeping` says whether it found any.
  cpu_set_t allowed;
  const bool know_allowed = sched_getaffinity(0, sizeof allowed, &allowed) == 0;
  struct Restore {
    const cpu_set_t& to;
    bool on;
    ~Restore() {
      if (on) sched_setaffinity(0, sizeof to, &to);
    }
  } restore{allowed, know_allowed};
  int polls = 0;
  // (kPoll, or the throttle watch's sampling interval when that is shorter.)
  std::chrono::nanoseconds wait = kPoll;
  if (throttle.active()) wait = std::min(wait, std::chrono::nanoseconds(throttle.interval_ns()));
  throttle.poll();
  while (done.wait_for(wait) != std::future_status::ready) {
    throttle.poll();
    const std::int64_t now = monotonic_ns();
    if (know_allowed && polls++ % 4 == 1) {
      cpu_set_t measured;
      if (rt::measured_cpus(state->ctx, &measured)) {
        *housekeeping = rt::move_to_housekeeping(allowed, measured);
      }
    }
    if (interrupt.load() || (now > soft_end && !sel.suite->fixed_work)) {
      state->ctx.request_stop();
    }
    if (state->ctx.stop_requested() && stop_seen_at == 0) stop_seen_at = now;
    if (stop_seen_at != 0 && now - stop_seen_at > kGraceNs) {
      loads->stop();
      worker.detach();
      *watchdog_why = watchdog->fired() ? watchdog->reason() : "";
      return std::nullopt;
    }
    progress.tick();
  }
  worker.join();
  throttle.poll();
  loads->stop();
  SuiteResult r = done.get();
  r.loads = loads->reports();
  if (state->traced) {
    state->traced->finish(r, name, index, state->ctx.trace_owners());
  } else if (opt.trace.enabled) {
    r.trace = TraceRecord{.unavailable = *trace_why};
  }
  if (watchdog->fired()) {
    r.status = SuiteStatus::kError;
    r.reason = watchdog->reason();
  }
  if (const std::string failed = rt::first_thread_failure(); !failed.empty()) {
    r.status = SuiteStatus::kError;
    r.reason = failed;
  }
  rt::reset_thread_failures(nullptr);
  return r;
}

void assess_hygiene(SuiteResult& res, Hygiene h) {
  for (Case& c : res.cases) {
    if (const Metric* m = c.find("missed_periods")) {
      std::uint64_t missed = 0;
      for (double v : m->samples) missed += static_cast<std::uint64_t>(v);
      h.missed_periods += missed;
      if (missed > 0) {
        c.contaminated_reasons.push_back(std::to_string(missed) + " missed periods");
      }
    }
    const auto cpu = c.labels.find("cpu");
    if (cpu != c.labels.end()) {
      add_unique(c.contaminated_reasons, contamination_reasons_for_cpu(h, std::stoi(cpu->second)));
    }
    c.contaminated = !c.contaminated_reasons.empty();
    add_unique(res.contaminated_reasons, c.contaminated_reasons);
  }
  add_unique(res.contaminated_reasons, contamination_reasons(h));
  res.contaminated = !res.contaminated_reasons.empty();
  res.hygiene = std::move(h);
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
          .load = opt.load,
          .watchdog_s = opt.watchdog_s,
          .require_rt = opt.require_rt,
          .recorded = true};
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
  std::unique_ptr<rt::DmaLatencyHold> dma;

  for (const SelectedSuite& sel : selection) {
    if (interrupt.load()) break;
    SuiteResult res;
    res.name = sel.suite->name.value;
    res.params = sel.params.values();
    const bool needs_rt = has(sel.suite->needs, Needs::kSchedFifo);
    if (needs_rt && !ready.sched_fifo) {
      res.status = SuiteStatus::kSkipped;
      res.reason = ready.reason;
      out.rt_unavailable = true;
    } else if (has(sel.suite->needs, Needs::kRoot) && geteuid() != 0) {
      res.status = SuiteStatus::kSkipped;
      res.reason = "needs root";
      out.rt_unavailable = true;
    }
    if (res.status == SuiteStatus::kSkipped) {
      out.report.suites.push_back(std::move(res));
      if (opt.require_rt && out.rt_unavailable) break;
      continue;
    }
    // What the RT suite measures without: page faults on the measured path (no mlockall), deep
    // C-state exits (no cpu_dma_latency hold). Both make its figures untrustworthy.
    std::vector<std::string> setup_flaws;
    if (needs_rt) {
      if (const std::string why = rt::lock_memory(); !why.empty()) {
        out.report.environment.extra["mlockall"] = why;
        setup_flaws.push_back("mlockall failed: " + why);
      }
      if (!dma) dma = std::make_unique<rt::DmaLatencyHold>(0);
      if (!dma->held()) setup_flaws.push_back("cpu_dma_latency not held: " + dma->reason());
    }

    rt::RtThrottleWatch throttle(cpus);
    const HygieneSnapshot before = take_hygiene_snapshot();
    const std::int64_t t0 = monotonic_ns();
    std::vector<std::map<int, double>> steal_per_run;
    for (int i = 0; i < opt.runs && !interrupt.load(); ++i) {
      std::string why;
      bool housekeeping = true;
      const HygieneSnapshot steal0 = take_steal_snapshot();
      std::optional<SuiteResult> r = run_once(sel, opt, i, cpus, interrupt, &why,
                                              &out.trace_unavailable, &housekeeping, throttle);
      steal_per_run.push_back(steal_ms_between(steal0, take_steal_snapshot()));
      if (!housekeeping) {
        out.report.environment.extra["housekeeping_cpus"] =
            "none: " + res.name +
            " measures on every allowed CPU; rtgate's watchdog and runner share them";
      }
      if (!r) {
        res.status = SuiteStatus::kError;
        res.reason = (why.empty() ? "" : why + "; ") +
                     "suite did not stop within 5 s of the stop request and was abandoned";
        out.abandoned = true;
        break;
      }
      if (severity(r->status) > severity(res.status)) {
        res.status = r->status;
        res.reason = r->reason;
      } else if (res.reason.empty()) {
        res.reason = r->reason;  // e.g. a passed run that skipped some cases says which and why
      }
      res.merge_run(*r);
      ++res.runs;
      if (r->status == SuiteStatus::kError) break;
      if (r->trace && !r->trace->break_reason.empty()) break;  // --break-us ends the suite
    }
    res.duration_s = static_cast<double>(monotonic_ns() - t0) / 1e9;
    add_unique(res.contaminated_reasons, setup_flaws);
    Hygiene h = hygiene_between(before, take_hygiene_snapshot(), {getpid()});
    h.steal_ms_per_run = std::move(steal_per_run);
    add_throttling(h, throttle);
    h.cfs_protection = rt::describe_cfs_protection() + "; " + cfs_time_taken(res);
    assess_hygiene(res, std::move(h));
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
