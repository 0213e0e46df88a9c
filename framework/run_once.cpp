#include "framework/run_once.h"

#include <sched.h>

#include <chrono>
#include <future>
#include <memory>
#include <system_error>
#include <thread>

#include "framework/background_load/load.h"
#include "framework/measure/clock.h"
#include "framework/progress.h"
#include "framework/rt/housekeeping.h"
#include "framework/rt/thread_failures.h"
#include "framework/signals.h"
#include "framework/watchdog.h"

namespace rtgate {
namespace {

constexpr auto kPoll = std::chrono::milliseconds(50);
// Past a stop request, a suite has this long to end before it is abandoned.
constexpr std::int64_t kGraceNs = 5'000'000'000;

SuiteResult error_result(std::string reason) {
  return SuiteResult{.status = SuiteStatus::kError, .reason = std::move(reason)};
}

// What the suite's thread hands back; shared with it, since an abandoned suite's thread
// outlives the run.
struct RunState {
  RunState(double duration_s, std::vector<int> cpus, int index, int runs)
      : ctx(duration_s, std::move(cpus), stop, index, runs) {}
  std::atomic<bool> stop{false};
  RunContext ctx;
  std::promise<SuiteResult> result;
  std::unique_ptr<trace::TracedRun> traced;
};

// This thread (the progress line, the clock) moves off the measured CPUs while the run goes on,
// and back to where it was afterwards.
class Housekeeper {
 public:
  Housekeeper() : known_(sched_getaffinity(0, sizeof allowed_, &allowed_) == 0) {}
  ~Housekeeper() {
    if (known_) sched_setaffinity(0, sizeof allowed_, &allowed_);
  }
  Housekeeper(const Housekeeper&) = delete;
  Housekeeper& operator=(const Housekeeper&) = delete;
  // Every few polls: the suite's threads may still be starting. False when no CPU is left over.
  void poll(RunContext& ctx, bool* housekeeping) {
    if (!known_ || polls_++ % 4 != 1) return;
    cpu_set_t measured;
    if (rt::measured_cpus(ctx, &measured)) {
      *housekeeping = rt::move_to_housekeeping(allowed_, measured);
    }
  }

 private:
  cpu_set_t allowed_;
  bool known_;
  int polls_ = 0;
};

class OneRun {
 public:
  OneRun(const RunPlan& plan, rt::RtThrottleWatch& throttle, RunNotes& notes)
      : plan_(plan),
        throttle_(throttle),
        notes_(notes),
        name_(plan.sel.suite->name.value),
        state_(std::make_shared<RunState>(plan.opt.duration_s, plan.cpus, plan.index,
                                          plan.opt.runs)) {}

  std::optional<SuiteResult> run() {
    std::string why;
    std::optional<load::LoadSet> loads = load::make_loads(plan_.opt.load, &why);
    if (!loads) return error_result("--load: " + why);
    try {
      loads->start();
    } catch (const load::LoadError& e) {
      return error_result(std::string("--load: ") + e.what());
    }
    loads_ = &*loads;
    std::optional<SuiteResult> r = run_loaded();
    loads->stop();  // idempotent: a finished run stopped its loads after the trace's last drain
    return r;
  }

 private:
  // The loads run; everything else starts, is watched and ends here.
  std::optional<SuiteResult> run_loaded() {
    state_->ctx.set_watchdog_s(plan_.opt.watchdog_s);
    start_trace();
    rt::reset_thread_failures(&state_->stop);
    if (plan_.opt.on_run) plan_.opt.on_run(name_, &state_->ctx);
    struct Unhook {
      const RunOptions& opt;
      const std::string& name;
      ~Unhook() {
        if (opt.on_run) opt.on_run(name, nullptr);
      }
    } unhook{plan_.opt, name_};
    // The watchdog exists before the suite's first thread, so that nothing the suite starts is
    // ever unguarded; and a thread that cannot be created (a pids limit, EAGAIN) ends the suite
    // as an error here, before any std::thread is joinable (unwinding past one would terminate).
    try {
      watchdog_.emplace(state_->ctx, plan_.opt.watchdog_s);
    } catch (const std::exception& e) {
      return error_result(std::string("cannot start the watchdog thread: ") + e.what());
    }
    std::future<SuiteResult> done = state_->result.get_future();
    std::thread worker;
    try {
      worker = std::thread([state = state_, &sel = plan_.sel] { run_suite(sel, *state); });
    } catch (const std::system_error& e) {
      return error_result(std::string("cannot start the suite's thread: ") + e.what());
    }
    if (!watch(done)) {
      worker.detach();
      notes_.watchdog_why = watchdog_->fired() ? watchdog_->reason() : "";
      return std::nullopt;
    }
    worker.join();
    throttle_.poll();
    return finish(done.get());
  }

  static void run_suite(const SelectedSuite& sel, RunState& state) {
    try {
      state.result.set_value(sel.suite->run(sel.params, state.ctx));
    } catch (const std::exception& e) {
      state.result.set_value(error_result(e.what()));
    }
  }

  void start_trace() {
    if (!plan_.opt.trace.enabled || !notes_.trace_unavailable.empty()) return;
    state_->traced = trace::TracedRun::start(plan_.opt.trace.for_suite(name_), plan_.cpus,
                                             &state_->stop, &notes_.trace_unavailable);
    if (state_->traced) state_->ctx.set_sample_hook(state_->traced->hook());
  }

  // Polls until the suite's result is ready (true), or it ignored a stop request past the grace
  // (false: abandoned). The suite ends itself at its duration; past that and a margin it is asked
  // to stop.
  bool watch(std::future<SuiteResult>& done) {
    const RunOptions& opt = plan_.opt;
    ProgressLine progress(state_->ctx, name_, opt.duration_s, plan_.index, opt.runs, opt.progress);
    const std::int64_t soft_end = monotonic_ns() +
                                  static_cast<std::int64_t>((opt.duration_s + 5) * 1e9) +
                                  static_cast<std::int64_t>(opt.duration_s * 0.5e9);
    std::int64_t stop_seen_at = 0;
    Housekeeper housekeeper;
    // kPoll, or until the throttle watch's next sample when that is sooner.
    const auto wait = [&] {
      if (!throttle_.active()) return std::chrono::nanoseconds(kPoll);
      const std::int64_t due = std::max<std::int64_t>(throttle_.next_poll_ns() - monotonic_ns(), 0);
      return std::min(std::chrono::nanoseconds(kPoll), std::chrono::nanoseconds(due));
    };
    throttle_.poll();
    while (done.wait_for(wait()) != std::future_status::ready) {
      throttle_.poll();
      const std::int64_t now = monotonic_ns();
      housekeeper.poll(state_->ctx, &notes_.housekeeping);
      if (plan_.interrupt.load() || (now > soft_end && !plan_.sel.suite->fixed_work)) {
        state_->ctx.request_stop();
      }
      if (state_->ctx.stop_requested() && stop_seen_at == 0) stop_seen_at = now;
      if (stop_seen_at != 0 && (now - stop_seen_at > kGraceNs || shutdown_hurried())) return false;
      progress.tick();
    }
    return true;
  }

  // The trace is drained while the loads still run (their last events are part of the run),
  // then the loads stop and report what they did.
  SuiteResult finish(SuiteResult r) {
    if (state_->traced) {
      state_->traced->finish(r, name_, plan_.index, state_->ctx.trace_owners());
    } else if (plan_.opt.trace.enabled) {
      r.trace = TraceRecord{.unavailable = notes_.trace_unavailable};
    }
    loads_->stop();
    r.loads = loads_->reports();
    if (watchdog_->fired()) {
      r.status = SuiteStatus::kError;
      r.reason = watchdog_->reason();
    }
    if (const std::string failed = rt::first_thread_failure(); !failed.empty()) {
      r.status = SuiteStatus::kError;
      r.reason = failed;
    }
    rt::reset_thread_failures(nullptr);
    return r;
  }

  const RunPlan& plan_;
  rt::RtThrottleWatch& throttle_;
  RunNotes& notes_;
  const std::string name_;
  std::shared_ptr<RunState> state_;
  load::LoadSet* loads_ = nullptr;
  std::optional<Watchdog> watchdog_;
};

}  // namespace

std::optional<SuiteResult> run_once(const RunPlan& plan, rt::RtThrottleWatch& throttle,
                                    RunNotes& notes) {
  return OneRun(plan, throttle, notes).run();
}

}  // namespace rtgate
