// osnoise: the kernel's osnoise tracer, per CPU the operating-system noise a busy thread sees
// (comes from `rtla osnoise top`).
//
// The kernel runs it: an "osnoise/N" thread per CPU (SCHED_OTHER) reads the time in a loop for
// runtime_us of every period_us, with preemption, IRQs and softirqs enabled, and counts every
// gap as noise, classifying its source (hw, nmi, irq, softirq, thread). At the end of each period
// it writes one ftrace:osnoise event: the period's runtime, total noise, largest single noise and
// the interference counts (times in us). rtgate runs the tracer in a private tracefs instance
// (framework/trace/kernel_tracer.h: the global osnoise/* knobs it sets are restored on every exit
// path), reads those events raw through libtracefs and reports per CPU what rtla osnoise top
// prints, in base units:
//   max_single_noise   latency (ns): each period's largest single noise (max = rtla's
//                      "Max Single")
//   period_noise       latency (ns): each period's total noise (max = rtla's "Max Noise")
//   noise_per_second   ns of noise per second of runtime (sum noise / sum runtime)
//   cpu_available      % of runtime left to the thread (rtla's "% CPU Aval")
//   interference_*     counts of hw, nmi, irq, softirq and thread interference
// With runtime = period (rtla's default) the threads leave nothing of their CPUs to others of
// their class: a suite that measures every CPU shares them with rtgate's reader.
//
// On a kernel without the tracer (CONFIG_OSNOISE_TRACER) the suite is skipped and says so.
#include <algorithm>
#include <array>
#include <map>
#include <memory>

#include "framework/measure/clock.h"
#include "framework/measure/run_context.h"
#include "framework/registry.h"
#include "framework/rt/cpu_list.h"
#include "framework/trace/kernel_tracer.h"

namespace {

using rtgate::ParamSpec;

constexpr std::array<const char*, 5> kKinds = {"hw", "nmi", "irq", "softirq", "thread"};

struct PerCpu {
  explicit PerCpu(rtgate::LiveStats& l) : live(l) {}
  rtgate::LiveStats& live;
  rtgate::LatencyHistogram max_single, noise;
  std::vector<double> max_single_periods, noise_periods;
  std::uint64_t runtime_ns = 0, noise_ns = 0, periods = 0;
  std::array<std::uint64_t, kKinds.size()> interference{};
  std::int64_t worst_ns = 0;
};

rtgate::Metric rate(std::string name, std::string unit, double value) {
  rtgate::Metric m = rtgate::Metric::count(std::move(name), value, std::move(unit),
                                           rtgate::Metric::Gating::kReported);
  m.kind = rtgate::MetricKind::kDuration;  // noise time per second: lower is better
  return m;
}

std::string validate(const rtgate::Params& p) {
  if (p.get_int("runtime_us") > p.get_int("period_us")) {
    return "runtime_us must not exceed period_us";
  }
  return "";
}

// One CPU's metrics, from what its periods reported.
void add_metrics(PerCpu& c, rtgate::Case& k) {
  k.metrics.push_back(rtgate::Metric::latency("max_single_noise", std::move(c.max_single),
                                              std::move(c.max_single_periods)));
  k.metrics.push_back(
      rtgate::Metric::latency("period_noise", std::move(c.noise), std::move(c.noise_periods)));
  if (c.runtime_ns > 0) {
    const double runtime = static_cast<double>(c.runtime_ns);
    const double noise = static_cast<double>(std::min(c.noise_ns, c.runtime_ns));
    k.metrics.push_back(rate("noise_per_second", "ns/s", noise / runtime * 1e9));
    k.metrics.push_back(
        rtgate::Metric::throughput("cpu_available", "%", (runtime - noise) * 100 / runtime));
  }
  for (std::size_t i = 0; i < kKinds.size(); ++i) {
    k.metrics.push_back(rtgate::Metric::count(std::string("interference_") + kKinds[i],
                                              static_cast<double>(c.interference[i]),
                                              "interferences", rtgate::Metric::Gating::kReported));
  }
}

rtgate::SuiteResult run(const rtgate::Params& p, rtgate::RunContext& ctx) {
  using rtgate::SuiteResult;
  using rtgate::SuiteStatus;
  if (const std::string why =
          rtgate::trace::KernelTracer::unavailable("osnoise", "CONFIG_OSNOISE_TRACER");
      !why.empty()) {
    return SuiteResult::ended(SuiteStatus::kSkipped, why);
  }
  std::string why;
  const auto cpus = rtgate::rt::select_cpus(p.get_string("cpus"), ctx.cpus(), &why);
  if (!cpus) return SuiteResult::ended(SuiteStatus::kSkipped, why);

  rtgate::trace::KernelTracerConfig config{
      .tracer = "osnoise",
      .cpus = *cpus,
      // runtime before period: the kernel refuses a runtime above the current period.
      .knobs = {{"runtime_us", "100"},
                {"period_us", std::to_string(p.get_int("period_us"))},
                {"runtime_us", std::to_string(p.get_int("runtime_us"))},
                // 0 = never stop tracing at a threshold, whatever the last user left there.
                {"stop_tracing_us", "0"},
                {"stop_tracing_total_us", "0"}},
      .event = "osnoise",
      .fields = {"runtime", "noise", "max_sample", "hw_count", "nmi_count", "irq_count",
                 "softirq_count", "thread_count"},
      .buffer_kb = 1024};
  auto tracer = rtgate::trace::KernelTracer::start(config, &why);
  if (!tracer) return SuiteResult::ended(SuiteStatus::kError, why);
  auto per_cpu = rtgate::trace::collect_per_cpu<PerCpu>(
      *tracer, *cpus, ctx, [&](PerCpu& c, const rtgate::trace::TracerSample& s) {
        // The event's times are in us.
        const std::uint64_t runtime = s.values[0] * 1000, noise = s.values[1] * 1000,
                            single = s.values[2] * 1000;
        c.runtime_ns += runtime;
        c.noise_ns += noise;
        c.max_single.record(static_cast<std::int64_t>(single));
        c.noise.record(static_cast<std::int64_t>(noise));
        c.max_single_periods.push_back(static_cast<double>(single));
        c.noise_periods.push_back(static_cast<double>(noise));
        for (std::size_t k = 0; k < kKinds.size(); ++k) c.interference[k] += s.values[3 + k];
        c.worst_ns = std::max(c.worst_ns, static_cast<std::int64_t>(single));
        c.live.publish(++c.periods, c.worst_ns);
      });

  SuiteResult result;
  // A CPU silent through a run of several periods measured nothing.
  const bool expected = rtgate::trace::silence_is_failure(ctx, p.get_int("period_us"));
  for (auto& [cpu, c] : per_cpu) {
    rtgate::Case k = tracer->cpu_case(cpu, "nonrt");
    add_metrics(*c, k);
    result.cases.push_back(std::move(k));
    rtgate::trace::error_if_silent(result, "osnoise", cpu, expected && c->periods == 0);
  }
  return result;
}

}  // namespace

RTGATE_SUITE(
    {.name = "osnoise",
     .tags = {"sched", "kernel_tracer"},
     .summary = "the kernel's osnoise tracer: noise, max single noise, available CPU and "
                "interference counts per CPU, as rtla osnoise top",
     .params = {ParamSpec::integer("period_us", 1'000'000, 100, 5'000'000, "us",
                                   "osnoise period (osnoise/period_us; at most 5 s, half the "
                                   "watchdog's default stall time)"),
                ParamSpec::integer("runtime_us", 1'000'000, 100, 5'000'000, "us",
                                   "busy-loop time per period (osnoise/runtime_us)"),
                ParamSpec::cpu_list("cpus", "all", "CPUs the tracer measures (osnoise/cpus)")},
     .needs = rtgate::Needs::kRoot,
     .run = &run,
     .validate = &validate});
