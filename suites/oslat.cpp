// oslat: the OS noise a busy userspace thread sees, per CPU (comes from rt-tests' oslat).
//
// The userspace twin of `osnoise`. Both count the gaps between back-to-back reads of a clock as
// noise; they differ in who reads it:
//   osnoise  the kernel's osnoise tracer: a kernel thread reads the time and the tracer's own
//            hooks name the kind of each interference (hw, nmi, irq, softirq, thread). Needs
//            CONFIG_OSNOISE_TRACER; sees no userspace cost (a trap, a page fault, a TLB miss).
//   oslat    this suite: an ordinary thread, with the policy and priority an RT application
//            would have, reads the TSC (or CLOCK_MONOTONIC_RAW) in userspace, on any kernel.
//            What took the gaps is told by --trace: each new worst gap of a CPU (and, with
//            --trace-threshold-us, the largest over it) goes to the trace analysis, which splits
//            it into IRQs, softirqs, tasks and, in a VM, the host.
// Per CPU, in osnoise's names and base units:
//   noise              latency (ns): every gap longer than threshold_ns (samples: per-period
//   maxima) max_single_noise   latency (ns): each period's largest gap (max = oslat's "Maximum")
//   noise_per_second   ns of noise per second of measured time
//   cpu_available      % of the measured time left to the thread
//   gaps               how many gaps were longer than threshold_ns
//
// Choices, and why:
//   - SCHED_FIFO priority 1 by default: how RT tuning guides and OpenShift's oslat runner use it
//     (oslat -f 1). Only what outranks an RT task then shows: IRQs, softirqs, higher RT tasks,
//     the host, CFS protection. (oslat's own default is SCHED_OTHER, policy=other here, which
//     mostly measures the other SCHED_OTHER tasks' share of the CPU.)
//   - The threshold (1 us) is oslat's bucket width; shorter gaps are the loop itself.
//   - Each thread is busy runtime_us of every period_us (osnoise's knobs) and sleeps the rest. The
//     default, 900 of every 1000 ms, stays below RT throttling's 950 ms per second: the kernel
//     never throttles the threads (a 50 ms gap that no kernel change causes) and the rest of the
//     system keeps a tenth of every measured CPU even where throttling is off. runtime_us =
//     period_us is oslat's unbroken loop, for CPUs tuned for it; where neither RT throttling nor
//     the fair server protects SCHED_OTHER, a FIFO loop like that on every online CPU would leave
//     the system nothing, and the suite refuses it (skipped, saying so).
//   - Gaps are timed on the loop's clock; the gap's start is put on CLOCK_MONOTONIC only for the
//     trace marker.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "base/io/proc_files.h"
#include "framework/measure/clock.h"
#include "framework/measure/run_context.h"
#include "framework/measure/spin_clock.h"
#include "framework/measure/start_line.h"
#include "framework/registry.h"
#include "framework/rt/cpu_list.h"
#include "framework/rt/rt_thread.h"
#include "suites/oslat/noise_loop.h"

namespace {

using rtgate::ParamSpec;

// Spun before the first period (inside the start line's lead): the CPU leaves idle and its caches
// hold the loop. Short, so that the first second's busy time stays below the RT throttle.
constexpr std::int64_t kWarmupNs = 10'000'000;

struct Config {
  std::int64_t threshold_ns, period_ns, runtime_ns, duration_ns;
  double ns_per_tick;
  bool tsc;
};

struct Plan {
  int cpu;
  rtgate::LiveStats* live;
};

// Everything one measuring thread touches, built by that thread (its CPU's NUMA node).
struct Worker {
  Worker(int cpu_, std::size_t periods) : cpu(cpu_), rec(periods) {}
  int cpu;
  rtgate::NoiseRecorder rec;
};

// The periods of one thread: busy `runtime` from each period's start, asleep the rest.
template <class Clock>
void measure(const Clock& clock, const Config& c, Worker& w, rtgate::LiveStats& live,
             std::int64_t start_ns, rtgate::RunContext& ctx) {
  rtgate::NoiseLoop<Clock> loop(clock, c.ns_per_tick, c.threshold_ns, w.rec, live,
                                ctx.sample_hook());
  const std::int64_t end_ns = start_ns + c.duration_ns;
  for (std::int64_t period = start_ns; period < end_ns && !ctx.stop_requested();
       period += c.period_ns) {
    if (period > start_ns && c.runtime_ns < c.period_ns) rtgate::sleep_until_ns(period);
    const std::int64_t busy_end = std::min(period + c.runtime_ns, end_ns);
    const bool go_on = loop.spin(busy_end - rtgate::monotonic_ns(), ctx.stop_flag());
    w.rec.close_period();
    if (!go_on) break;
  }
}

void thread_body(const Plan& plan, const Config& c, std::unique_ptr<Worker>* slot,
                 rtgate::StartLine& start_line, rtgate::RunContext& ctx) {
  const std::int64_t start = start_line.prepare_and_wait([&] {
    *slot = std::make_unique<Worker>(plan.cpu,
                                     static_cast<std::size_t>(c.duration_ns / c.period_ns) + 2);
  });
  plan.live->tid.store(gettid(), std::memory_order_relaxed);
  while (rtgate::monotonic_ns() < start) {
  }
#if RTGATE_HAVE_TSC
  if (c.tsc) {
    measure(rtgate::TscClock{}, c, **slot, *plan.live, start, ctx);
  } else {
    measure(rtgate::RawClock{}, c, **slot, *plan.live, start, ctx);
  }
#else
  measure(rtgate::RawClock{}, c, **slot, *plan.live, start, ctx);
#endif
  plan.live->done.store(true, std::memory_order_relaxed);
}

// Whether the kernel keeps SCHED_OTHER tasks running beside RT tasks that never sleep: RT
// throttling (sched_rt_runtime_us below its period) or the fair server (6.12 and later).
bool cfs_protected() {
  const std::int64_t runtime = rtgate::proc::read_int("/proc/sys/kernel/sched_rt_runtime_us", -2);
  const std::int64_t period = rtgate::proc::read_int("/proc/sys/kernel/sched_rt_period_us", -2);
  if (runtime >= 0 && period > 0 && runtime < period) return true;
  std::error_code ec;
  return std::filesystem::is_directory("/sys/kernel/debug/sched/fair_server", ec);
}

std::string validate(const rtgate::Params& p) {
  if (p.get_int("runtime_us") > p.get_int("period_us")) {
    return "runtime_us must not exceed period_us";
  }
  if (!RTGATE_HAVE_TSC && p.get_string("clock") == "tsc") {
    return "clock=tsc needs an x86 CPU (use clock=monotonic_raw)";
  }
  return "";
}

rtgate::Metric rate(std::string name, std::string unit, double value) {
  rtgate::Metric m = rtgate::Metric::count(std::move(name), value, std::move(unit),
                                           rtgate::Metric::Gating::kReported);
  m.kind = rtgate::MetricKind::kDuration;  // noise time per second: lower is better
  return m;
}

rtgate::Case result_case(Worker& w, const Config& c, bool rt) {
  rtgate::Case k;
  k.name = "cpu" + std::to_string(w.cpu);
  k.labels = {{"cpu", std::to_string(w.cpu)},
              {"thread_class", rt ? "rt" : "nonrt"},
              {"clock", c.tsc ? "tsc" : "monotonic_raw"}};
  rtgate::LatencyHistogram per_period;
  for (double v : w.rec.period_max) per_period.record(static_cast<std::int64_t>(v));
  std::vector<double> maxima = w.rec.period_max;
  k.metrics.push_back(rtgate::Metric::latency("noise", std::move(w.rec.noise), maxima));
  k.metrics.push_back(
      rtgate::Metric::latency("max_single_noise", std::move(per_period), std::move(maxima)));
  const double runtime = static_cast<double>(w.rec.runtime_ticks) * c.ns_per_tick;
  if (runtime > 0) {
    const double noise = std::min(static_cast<double>(w.rec.noise_ns), runtime);
    k.metrics.push_back(rate("noise_per_second", "ns/s", noise / runtime * 1e9));
    k.metrics.push_back(
        rtgate::Metric::throughput("cpu_available", "%", (runtime - noise) * 100 / runtime));
  }
  k.metrics.push_back(rtgate::Metric::count("gaps", static_cast<double>(w.rec.gaps), "gaps",
                                            rtgate::Metric::Gating::kReported));
  return k;
}

rtgate::SuiteResult run(const rtgate::Params& p, rtgate::RunContext& ctx) {
  using rtgate::SuiteResult;
  using rtgate::SuiteStatus;
  std::string why;
  const auto cpus = rtgate::rt::select_cpus(p.get_string("cpus"), ctx.cpus(), &why);
  if (!cpus) return SuiteResult::ended(SuiteStatus::kSkipped, why);
  const bool fifo = p.get_string("policy") == "fifo";
  Config c{.threshold_ns = p.get_int("threshold_ns"),
           .period_ns = p.get_int("period_us") * 1000,
           .runtime_ns = p.get_int("runtime_us") * 1000,
           .duration_ns = ctx.duration_ns(),
           .ns_per_tick = 1.0,
           .tsc = false};

  const std::string clock = p.get_string("clock");
  const std::string tsc_why = rtgate::tsc_unusable();
  if (clock == "tsc" && !tsc_why.empty()) {
    return SuiteResult::ended(SuiteStatus::kSkipped, "clock=tsc: " + tsc_why);
  }
  c.tsc = clock == "tsc" || (clock == "auto" && tsc_why.empty());
  if (c.tsc) {
    c.ns_per_tick = rtgate::calibrate_tsc_ns_per_tick();
    if (c.ns_per_tick <= 0) {
      return SuiteResult::ended(SuiteStatus::kError,
                                "the TSC did not advance against CLOCK_MONOTONIC_RAW");
    }
  }

  if (fifo && c.runtime_ns == c.period_ns && !cfs_protected() &&
      cpus->size() >= rtgate::rt::online_cpus().size()) {
    return SuiteResult::ended(
        SuiteStatus::kSkipped,
        "runtime_us = period_us on every online CPU with neither RT throttling nor the fair "
        "server would leave the rest of the system no CPU: leave a CPU out (-p cpus=) or keep "
        "runtime_us below period_us");
  }

  std::vector<Plan> plans;
  for (int cpu : *cpus)
    plans.push_back({cpu, &ctx.track("cpu" + std::to_string(cpu), "cpu" + std::to_string(cpu))});
  std::vector<std::unique_ptr<Worker>> workers(plans.size());
  rtgate::StartLine start_line(static_cast<int>(plans.size()), kWarmupNs);
  {
    std::vector<std::unique_ptr<rtgate::rt::RtThread>> threads;
    try {
      for (std::size_t i = 0; i < plans.size(); ++i) {
        rtgate::rt::ThreadSpec spec{
            .name = "rtgate-oslat" + std::to_string(plans[i].cpu),
            .policy = fifo ? rtgate::rt::Policy::kFifo : rtgate::rt::Policy::kOther,
            .priority = fifo ? static_cast<int>(p.get_int("priority")) : 0,
            .cpus = {plans[i].cpu}};
        threads.push_back(std::make_unique<rtgate::rt::RtThread>(
            spec, [plan = plans[i], slot = &workers[i], &c, &start_line, &ctx] {
              thread_body(plan, c, slot, start_line, ctx);
            }));
      }
    } catch (...) {
      ctx.request_stop();
      start_line.abandon(static_cast<int>(plans.size() - threads.size()));
      throw;
    }
  }  // joins every thread

  SuiteResult result;
  for (auto& w : workers) {
    if (!w) continue;  // its thread failed to build it: the run ends as an error saying why
    if (w->rec.runtime_ticks == 0 && !ctx.stop_requested()) {
      result.status = SuiteStatus::kError;
      result.reason = "the loop on CPU " + std::to_string(w->cpu) + " never ran";
    }
    result.cases.push_back(result_case(*w, c, fifo));
  }
  return result;
}

}  // namespace

RTGATE_SUITE(
    {.name = "oslat",
     .tags = {"sched", "noise"},
     .summary = "OS noise a busy userspace thread sees per CPU, oslat-style (the userspace twin "
                "of the kernel-side osnoise): max single noise, noise per second, available CPU",
     .params = {ParamSpec::cpu_list("cpus", "all", "CPUs to measure, one busy thread each"),
                ParamSpec::choice("policy", "fifo", {"fifo", "other"},
                                  "scheduling policy of the busy threads (oslat -f, or its "
                                  "SCHED_OTHER default)"),
                ParamSpec::integer("priority", 1, 1, 98, "",
                                   "SCHED_FIFO priority with policy=fifo (oslat -f)"),
                ParamSpec::choice("clock", "auto", {"auto", "tsc", "monotonic_raw"},
                                  "the clock the loop reads; auto: the TSC where its rate is "
                                  "constant and it never stops, else CLOCK_MONOTONIC_RAW"),
                ParamSpec::integer("threshold_ns", 1000, 100, 1'000'000'000, "ns",
                                   "a gap between two reads longer than this is noise (oslat's "
                                   "1 us bucket; the osnoise tracer's default is 5 us)"),
                ParamSpec::integer("period_us", 1'000'000, 1000, 5'000'000, "us",
                                   "period of the busy/sleep cycle and of max_single_noise (at "
                                   "most 5 s, half the watchdog's default stall time)"),
                ParamSpec::integer("runtime_us", 900'000, 1000, 5'000'000, "us",
                                   "busy time per period; = period_us for oslat's unbroken "
                                   "loop")},
     .needs = rtgate::Needs::kSchedFifo,
     .run = &run,
     .validate = &validate});
