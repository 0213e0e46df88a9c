// sched.migrate: rt-migrate-test's check that the kernel runs the N highest-priority RT tasks on
// N CPUs (RT push/pull).
//
// N+1 SCHED_FIFO tasks of distinct priorities on N CPUs wake together at every period's start
// (an absolute CLOCK_MONOTONIC time, so no task wakes another) and each busy-loops `run_ms` of
// wall time. The N highest should start at once, one per CPU, and the lowest only when one of
// them ends. As rt-migrate-test does, the highest task moves to the next CPU after each period
// (`rotate`), so the next wakeup finds it where another task slept and the kernel has to push or
// pull: this is the one thread whose affinity changes after birth, because that is the stimulus
// under test, and it happens between its run and its sleep, never inside the measured window.
//
// A violation is a higher task waiting on a runqueue while a lower one runs, for longer than
// `max_err_us` in one period. Each task knows its own wait from its schedstat run_delay across
// the sleep (runnable but not running: the scheduler's choice, not a late timer), and the lower
// task's CPU time and the gaps in its busy loop bound how long it really ran in that window (in a
// guest the CPU clock runs on while the host keeps the vCPU off, but the loop sees a gap): one that
// started first but was preempted at once (wakeups are not simultaneous) is no violation, while a
// lower task that held a CPU for the whole of the higher one's wait is. rt-migrate-test compares
// start times only (and a loop count), so a late timer or a preempted lower task looks the same to
// it. Every violation is counted with its wait. Any violation fails the suite, except where the
// host could have taken a vCPU away unseen and the violations are sporadic (migrate_order.h):
// that run is inconclusive, not a failure.
//
// `confine_second` is for tests: the second-highest task is born on the highest one's CPU (which
// then stays there), kept off the CPU the lowest runs on; it must wait every period, and the suite
// must fail. It shows the check has teeth.
#include <sched.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "base/text/units.h"
#include "framework/env/cpu_steal.h"
#include "framework/measure/busy.h"
#include "framework/measure/clock.h"
#include "framework/measure/periodic_recorder.h"
#include "framework/measure/run_context.h"
#include "framework/measure/start_line.h"
#include "framework/measure/thread_times.h"
#include "framework/registry.h"
#include "framework/rt/cpu_list.h"
#include "framework/rt/rt_thread.h"
#include "suites/sched_migrate/migrate_order.h"

namespace {

using rtgate::ParamSpec;

constexpr int kTopPriority = 98;  // 99 is the watchdog's

// One task in one period.
struct Slot {
  std::int64_t start_ns = 0;    // when it began to run; 0: it did not run in this period
  std::int64_t end_ns = 0;      // when its busy loop ended
  std::int64_t queued_ns = -1;  // runnable but not running before its start; -1: unknown
  std::int64_t cpu_ns = 0;      // CPU time it got between start and end
  // The longest spans its busy loop did not run: time it did not hold the CPU, though its clocks
  // may say so (a vCPU the host did not run).
  std::array<rtgate::Gap, 8> gaps{};
  std::size_t n_gaps = 0;
};

constexpr std::int64_t kMinGapNs = 20'000;  // well above a loop turn, below any wait judged

// How long the task's loop did not run within [from, to].
std::int64_t gaps_within(const Slot& s, std::int64_t from, std::int64_t to) {
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < s.n_gaps; ++i) {
    sum += std::max<std::int64_t>(
        0, std::min(s.gaps[i].to_ns, to) - std::max(s.gaps[i].from_ns, from));
  }
  return sum;
}

struct Timing {
  std::int64_t period_ns, run_ns, start_ns, end_ns;
};

// Everything one task touches, built by its own thread (first touch on its CPU's node).
struct alignas(64) Task {
  Task(std::int64_t period_ns, std::size_t periods, rtgate::LiveStats& live_)
      : rec(period_ns, std::max<std::int64_t>(period_ns, 1'000'000'000), periods + 2, live_),
        slots(periods),
        live(live_) {}
  rtgate::PeriodicRecorder rec;
  std::vector<Slot> slots;
  rtgate::LiveStats& live;
  std::int64_t start_ns = 0;  // the start line's common start
  rtgate::ThreadTimesReader times;
};

struct Plan {
  int priority;
  std::vector<int> born_on;      // the task's affinity at birth
  std::vector<int> rotate_over;  // empty: never moves
  rtgate::LiveStats* live;
};

void move_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof set, &set);  // a failure only weakens the stimulus
}

// The measured loop. No allocation, lock or I/O beyond the thread's own schedstat read.
void run_task(Task& t, const Plan& plan, const Timing& tm, const std::atomic<bool>& stop) {
  t.live.tid.store(gettid(), std::memory_order_relaxed);
  t.rec.start(tm.start_ns);
  std::size_t next_cpu = 1;
  for (std::int64_t next = tm.start_ns + tm.period_ns;
       next <= tm.end_ns && !stop.load(std::memory_order_relaxed);) {
    const std::int64_t deadline = next;
    const rtgate::ThreadTimes before = t.times.now();
    rtgate::sleep_until_ns(deadline);
    const std::int64_t woke = rtgate::monotonic_ns();
    const rtgate::ThreadTimes running = t.times.now();
    const auto k = static_cast<std::size_t>((deadline - tm.start_ns) / tm.period_ns - 1);
    Slot scratch;
    Slot& slot = k < t.slots.size() ? t.slots[k] : scratch;
    slot.n_gaps = rtgate::spin_until_noting_gaps(woke + tm.run_ns, kMinGapNs, slot.gaps.data(),
                                                 slot.gaps.size());
    const rtgate::ThreadTimes ended = t.times.now();
    next = t.rec.on_wakeup(deadline, woke, tm.end_ns);
    slot.start_ns = woke;
    slot.end_ns = ended.wall_ns;
    slot.queued_ns = t.times.has_run_delay() ? running.run_delay_ns - before.run_delay_ns : -1;
    slot.cpu_ns = ended.cpu_ns - running.cpu_ns;
    if (!plan.rotate_over.empty()) {
      move_to(plan.rotate_over[next_cpu]);
      next_cpu = (next_cpu + 1) % plan.rotate_over.size();
    }
  }
  t.rec.finish();
  t.live.done.store(true, std::memory_order_relaxed);
}

struct Violation {
  std::size_t period;
  int higher, lower;  // priorities
  std::int64_t wait_ns;
};

// For each period and each task above the lowest: the longest a lower task ran while it waited.
// The wait starts at its wakeup (start - queued), or at the period's start when schedstat is
// unavailable; the lower task's part is bounded both by the overlap of its run with that wait,
// less the spans its loop did not run in it, and by the CPU time it got.
std::vector<Violation> judge(const std::vector<std::unique_ptr<Task>>& tasks,
                             const std::vector<Plan>& plans, const Timing& tm,
                             std::int64_t max_err_ns, std::size_t* judged) {
  std::vector<Violation> found;
  const std::size_t periods = tasks.front()->slots.size();
  for (std::size_t k = 0; k < periods; ++k) {
    const std::int64_t period_start = tm.start_ns + static_cast<std::int64_t>(k + 1) * tm.period_ns;
    bool any = false;
    for (std::size_t h = 1; h < tasks.size(); ++h) {
      const Slot& hi = tasks[h]->slots[k];
      if (hi.start_ns == 0) continue;
      any = true;
      const std::int64_t waited_from =
          hi.queued_ns >= 0 ? hi.start_ns - hi.queued_ns : period_start;
      Violation worst{k + 1, plans[h].priority, 0, 0};
      for (std::size_t l = 0; l < h; ++l) {
        const Slot& lo = tasks[l]->slots[k];
        if (lo.start_ns == 0) continue;
        const std::int64_t from = std::max(lo.start_ns, waited_from);
        const std::int64_t to = std::min(lo.end_ns, hi.start_ns);
        const std::int64_t ran = std::min(to - from - gaps_within(lo, from, to), lo.cpu_ns);
        if (ran > worst.wait_ns) worst = {k + 1, plans[h].priority, plans[l].priority, ran};
      }
      if (worst.wait_ns > max_err_ns) found.push_back(worst);
    }
    if (any) ++*judged;
  }
  return found;
}

// The steal the run's CPUs saw between two readings.
std::int64_t steal_between(const rtgate::StealReading& a, const rtgate::StealReading& b,
                           const std::vector<int>& cpus) {
  std::int64_t sum = 0;
  for (int cpu : cpus) {
    const auto x = a.ns.find(cpu), y = b.ns.find(cpu);
    if (x != a.ns.end() && y != b.ns.end() && y->second > x->second) sum += y->second - x->second;
  }
  return sum;
}

// The tasks' plans: task 0 the lowest, task n the highest; with `rotate` the highest moves CPU
// every period, with `confine` the two highest are born on the first CPU.
std::vector<Plan> plans_of(const std::vector<int>& cpus, int low, bool rotate, bool confine,
                           rtgate::RunContext& ctx) {
  const int n = static_cast<int>(cpus.size());
  std::vector<Plan> plans;
  for (int i = 0; i <= n; ++i) {
    Plan plan{.priority = low + i, .born_on = cpus, .rotate_over = {}, .live = nullptr};
    if (i == n && rotate) {
      plan.born_on = {cpus[0]};
      plan.rotate_over = cpus;
    }
    if (confine && i >= n - 1) plan.born_on = {cpus[0]};
    plan.live = &ctx.track("prio" + std::to_string(plan.priority));
    plans.push_back(std::move(plan));
  }
  return plans;
}

// Task i's case: its start delay and missed periods.
rtgate::Case task_case(std::size_t i, Task& task, const Plan& plan) {
  rtgate::Case c;
  c.name = "prio" + std::to_string(plan.priority);
  c.labels = {{"prio", std::to_string(plan.priority)},
              {"role", i == 0 ? "lowest" : "higher"},
              {"thread_class", "rt"}};
  // The delay from the period's start to the task's start: for the lowest, a whole run of a
  // higher task by design.
  c.metrics.push_back(rtgate::Metric::latency("start_delay", std::move(task.rec.histogram()),
                                              std::move(task.rec.block_maxima())));
  c.metrics.push_back(rtgate::Metric::count("missed_periods",
                                            static_cast<double>(task.rec.missed_periods()),
                                            "periods", rtgate::Metric::Gating::kEventRate));
  return c;
}

// The order's case: the violations found in the judged periods and the waits they caused.
rtgate::Case order_case(const std::vector<Violation>& found, std::size_t judged, std::size_t tasks,
                        const std::vector<int>& cpus, std::int64_t steal_ns) {
  rtgate::LatencyHistogram waits;
  double worst = 0;
  for (const Violation& v : found) {
    waits.record(v.wait_ns);
    worst = std::max(worst, static_cast<double>(v.wait_ns));
  }
  rtgate::Case order;
  order.name = "order";
  order.labels = {{"tasks", std::to_string(tasks)},
                  {"cpus", rtgate::text::format_cpu_list(cpus)},
                  {"thread_class", "rt"}};
  order.metrics.push_back(rtgate::Metric::count("violations", static_cast<double>(found.size()),
                                                "violations", rtgate::Metric::Gating::kReported));
  // How long a higher task waited while a lower one ran, per violation.
  order.metrics.push_back(
      rtgate::Metric::latency("inversion_wait", std::move(waits),
                              found.empty() ? std::vector<double>{} : std::vector<double>{worst}));
  order.metrics.push_back(rtgate::Metric::count("judged_periods", static_cast<double>(judged),
                                                "periods", rtgate::Metric::Gating::kReported));
  order.metrics.push_back(rtgate::Metric::count("host_steal_ms",
                                                static_cast<double>(steal_ns) / 1e6, "ms",
                                                rtgate::Metric::Gating::kReported));
  return order;
}

// Why the suite cannot run here with these parameters ("" when it can).
std::string cannot_run(int n, int low, bool confine) {
  if (low + n > kTopPriority) {
    return std::to_string(n + 1) + " tasks need priorities " + std::to_string(low) + ".." +
           std::to_string(low + n) + ", above " + std::to_string(kTopPriority) +
           " (99 is the watchdog's): select fewer CPUs (-p cpus=) or a lower prio";
  }
  if (confine && n < 2) {
    return "confine_second needs 2 CPUs or more: on one CPU no lower task can run elsewhere";
  }
  return "";
}

// The suite's call on the priority order (judge_order): held, the host's (a vCPU it did not
// run), or broken RT push/pull. `confined`: the task confine_second kept on the first CPU.
void call_order(const std::vector<Violation>& found, std::size_t judged,
                const rtgate::CpuSteal& steal, std::int64_t steal_ns, const Plan* confined,
                const std::vector<int>& cpus, rtgate::SuiteResult& result) {
  const bool host_could = !steal.visible() || steal_ns > 0;
  const rtgate::rt::OrderCall call = rtgate::rt::judge_order(found.size(), judged, host_could);
  if (call != rtgate::rt::OrderCall::kHeld) {
    const Violation& v = found.front();
    result.reason = std::to_string(found.size()) + " violation" + (found.size() == 1 ? "" : "s") +
                    " of the priority order in " + std::to_string(judged) +
                    " periods; first in period " + std::to_string(v.period) + ": prio " +
                    std::to_string(v.higher) + " waited " + rtgate::text::duration(v.wait_ns) +
                    " while prio " + std::to_string(v.lower) + " ran";
  }
  if (call == rtgate::rt::OrderCall::kHost) {
    result.status = rtgate::SuiteStatus::kInconclusive;
    result.reason =
        "host: " + result.reason + "; too few to tell from a vCPU the host did not run (steal " +
        (steal.visible() ? rtgate::text::duration(steal_ns) + " from " + steal.describe()
                         : steal.describe()) +
        "); broken push/pull shows in most periods";
  } else if (call == rtgate::rt::OrderCall::kBroken) {
    result.status = rtgate::SuiteStatus::kFailed;
    result.reason += " (the " + std::to_string(cpus.size()) + " highest tasks did not get the " +
                     std::to_string(cpus.size()) + " CPUs: RT push/pull)";
    if (confined != nullptr) {
      result.reason += "; confine_second kept prio " + std::to_string(confined->priority) +
                       " on CPU " + std::to_string(cpus[0]) + " on purpose";
    }
  }
}

rtgate::SuiteResult run(const rtgate::Params& p, rtgate::RunContext& ctx) {
  std::string why;
  const auto selected = rtgate::rt::select_cpus(p.get_string("cpus"), ctx.cpus(), &why);
  if (!selected) return rtgate::SuiteResult::ended(rtgate::SuiteStatus::kSkipped, why);
  const std::vector<int>& cpus = *selected;
  const int n = static_cast<int>(cpus.size());
  const int low = static_cast<int>(p.get_int("prio"));
  const bool confine = p.get_bool("confine_second");
  if (std::string why_not = cannot_run(n, low, confine); !why_not.empty()) {
    return rtgate::SuiteResult::ended(rtgate::SuiteStatus::kSkipped, why_not);
  }
  const bool rotate = p.get_bool("rotate") && !confine && n > 1;
  const std::int64_t period_ns = p.get_int("period_ms") * 1'000'000;
  const std::int64_t duration_ns = ctx.duration_ns();
  const auto periods = static_cast<std::size_t>(std::max<std::int64_t>(1, duration_ns / period_ns));

  std::vector<Plan> plans = plans_of(cpus, low, rotate, confine, ctx);
  std::vector<std::unique_ptr<Task>> tasks(plans.size());
  const rtgate::CpuSteal steal;
  const rtgate::StealReading steal_before = steal.read();
  rtgate::StartLine start_line(static_cast<int>(plans.size()), 1'000'000);
  Timing tm{.period_ns = period_ns, .run_ns = p.get_int("run_ms") * 1'000'000};
  {
    std::vector<std::unique_ptr<rtgate::rt::RtThread>> threads;
    try {
      for (std::size_t i = 0; i < plans.size(); ++i) {
        rtgate::rt::ThreadSpec spec{.name = "rtg-mig" + std::to_string(plans[i].priority),
                                    .priority = plans[i].priority,
                                    .cpus = plans[i].born_on};
        threads.push_back(std::make_unique<rtgate::rt::RtThread>(
            spec,
            [plan = &plans[i], slot = &tasks[i], &start_line, &tm, periods, &ctx, duration_ns] {
              const std::int64_t start = start_line.prepare_and_wait(
                  [&] { *slot = std::make_unique<Task>(tm.period_ns, periods, *plan->live); });
              Timing mine = tm;
              (*slot)->start_ns = start;
              mine.start_ns = start;
              mine.end_ns = start + duration_ns;
              run_task(**slot, *plan, mine, ctx.stop_flag());
            }));
      }
    } catch (...) {
      ctx.request_stop();
      start_line.abandon(static_cast<int>(plans.size() - threads.size()));
      throw;
    }
  }  // joins every thread
  const std::int64_t steal_ns = steal_between(steal_before, steal.read(), cpus);

  rtgate::SuiteResult result;
  if (std::any_of(tasks.begin(), tasks.end(), [](const auto& t) { return !t; })) {
    return result;  // a thread failed to build its task: the run ends as an error saying why
  }
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    result.cases.push_back(task_case(i, *tasks[i], plans[i]));
  }

  // Every task got the same start from the start line.
  tm.start_ns = tasks.front()->start_ns;
  std::size_t judged = 0;
  const std::vector<Violation> found =
      judge(tasks, plans, tm, p.get_int("max_err_us") * 1000, &judged);
  result.cases.push_back(order_case(found, judged, tasks.size(), cpus, steal_ns));

  call_order(found, judged, steal, steal_ns, confine ? &plans[plans.size() - 2] : nullptr, cpus,
             result);
  return result;
}

std::string validate(const rtgate::Params& p) {
  // The lowest runs once a higher task ends: both runs must fit in a period, with room to sleep.
  if (p.get_int("period_ms") <= 2 * p.get_int("run_ms")) {
    return "period_ms must exceed 2 x run_ms: the lowest task runs after a higher one ends, and "
           "both must end before the next period";
  }
  return "";
}

}  // namespace

RTGATE_SUITE(
    {.name = "sched.migrate",
     .tags = {"sched", "rt"},
     .summary = "rt-migrate-test-style: N+1 FIFO tasks on N CPUs, the N highest must run first",
     .params = {ParamSpec::cpu_list("cpus", "all", "the N CPUs; N+1 tasks run on them"),
                ParamSpec::integer("prio", 2, 1, 97, "",
                                   "the lowest task's FIFO priority; the others run 1..N above"),
                ParamSpec::integer("period_ms", 100, 10, 2000, "ms",
                                   "the tasks wake together at every period's start"),
                ParamSpec::integer("run_ms", 20, 1, 500, "ms", "each task's busy loop per period"),
                ParamSpec::integer("max_err_us", 1000, 0, 1'000'000, "us",
                                   "a higher task may wait this long while a lower one runs"),
                ParamSpec::boolean("rotate", true,
                                   "the highest task moves to the next CPU every period, as "
                                   "rt-migrate-test's does, so wakeups need push/pull"),
                ParamSpec::boolean("confine_second", false,
                                   "for tests: the second-highest task is kept on the highest "
                                   "one's CPU, so it waits while the lowest runs: must fail")},
     .needs = rtgate::Needs::kSchedFifo,
     .run = &run,
     .validate = &validate});
