// timerlat: the kernel's timerlat tracer, per CPU its IRQ and thread timer latency as histograms
// (comes from `rtla timerlat hist`).
//
// The kernel runs it: a "timerlat/N" thread per CPU (SCHED_FIFO 95) arms a periodic hrtimer; at
// each expiry the timer's IRQ handler records how late it runs (context irq), and the woken
// thread how late it runs (context thread), both from the timer's expected time, so the thread
// latency contains the IRQ latency. rtgate runs the tracer in a private tracefs instance
// (framework/trace/kernel_tracer.h: the global osnoise/* knobs it sets are restored on every exit
// path), reads the ftrace:timerlat events raw through libtracefs while the run goes on, and keeps
// two latency histograms per CPU. Nothing of rtgate's runs on the measured path.
//
// On a kernel without the tracer (CONFIG_TIMERLAT_TRACER) the suite is skipped and says so.
#include <algorithm>
#include <map>
#include <memory>

#include "framework/measure/clock.h"
#include "framework/measure/run_context.h"
#include "framework/registry.h"
#include "framework/rt/cpu_list.h"
#include "framework/trace/kernel_tracer.h"

namespace {

using rtgate::ParamSpec;

// timerlat's "context" field.
constexpr std::uint64_t kIrq = 0, kThread = 1;

// One latency of one CPU: the histogram and the maxima of its blocks (timed by the events' own
// time stamps, from the CPU's first event).
struct Series {
  rtgate::LatencyHistogram hist;
  std::vector<double> block_maxima;
  void add(std::int64_t ns, std::size_t block) {
    hist.record(ns);
    if (block_maxima.size() <= block) block_maxima.resize(block + 1, 0.0);
    block_maxima[block] = std::max(block_maxima[block], static_cast<double>(ns));
  }
};

struct PerCpu {
  explicit PerCpu(rtgate::LiveStats& l) : live(l) {}
  rtgate::LiveStats& live;
  Series irq, thread;
  std::int64_t first_ts = -1;
  std::uint64_t last_seq = 0;
  std::uint64_t missed = 0;  // activations whose events never arrived (seqnum gaps)
  std::uint64_t samples = 0;
  std::int64_t max_ns = 0;
};

rtgate::SuiteResult run(const rtgate::Params& p, rtgate::RunContext& ctx) {
  using rtgate::SuiteResult;
  using rtgate::SuiteStatus;
  if (const std::string why =
          rtgate::trace::KernelTracer::unavailable("timerlat", "CONFIG_TIMERLAT_TRACER");
      !why.empty()) {
    return SuiteResult::ended(SuiteStatus::kSkipped, why);
  }
  std::string why;
  const auto cpus = rtgate::rt::select_cpus(p.get_string("cpus"), ctx.cpus(), &why);
  if (!cpus) return SuiteResult::ended(SuiteStatus::kSkipped, why);
  const std::int64_t block_ns =
      std::max(p.get_int("block_ms") * 1'000'000, p.get_int("period_us") * 1000);

  rtgate::trace::KernelTracerConfig config{
      .tracer = "timerlat",
      .cpus = *cpus,
      // 0 = never stop tracing at a threshold, whatever the last user left there.
      .knobs = {{"timerlat_period_us", std::to_string(p.get_int("period_us"))},
                {"stop_tracing_us", "0"},
                {"stop_tracing_total_us", "0"}},
      .event = "timerlat",
      .fields = {"context", "timer_latency", "seqnum"},
      .buffer_kb = static_cast<int>(p.get_int("buffer_kb"))};
  auto tracer = rtgate::trace::KernelTracer::start(config, &why);
  if (!tracer) return SuiteResult::ended(SuiteStatus::kError, why);
  auto per_cpu = rtgate::trace::collect_per_cpu<PerCpu>(
      *tracer, *cpus, ctx, [&](PerCpu& c, const rtgate::trace::TracerSample& s) {
        if (c.first_ts < 0) c.first_ts = s.ts;
        const std::uint64_t context = s.values[0];
        const auto latency = static_cast<std::int64_t>(s.values[1]);
        const std::uint64_t seq = s.values[2];
        const auto block =
            static_cast<std::size_t>(std::max<std::int64_t>(0, s.ts - c.first_ts) / block_ns);
        if (context == kIrq) {
          // Each activation's IRQ event comes first, with the next seqnum.
          if (c.last_seq != 0 && seq > c.last_seq + 1) c.missed += seq - c.last_seq - 1;
          c.last_seq = std::max(c.last_seq, seq);
          c.irq.add(latency, block);
        } else if (context == kThread) {
          c.thread.add(latency, block);
          c.max_ns = std::max(c.max_ns, latency);
          c.live.publish(++c.samples, c.max_ns);
        }
      });

  SuiteResult result;
  // A CPU silent through a run of several periods measured nothing.
  const bool expected = rtgate::trace::silence_is_failure(ctx, p.get_int("period_us"));
  for (auto& [cpu, c] : per_cpu) {
    rtgate::Case k = tracer->cpu_case(cpu, "rt");
    k.metrics.push_back(rtgate::Metric::latency("irq_latency", std::move(c->irq.hist),
                                                std::move(c->irq.block_maxima)));
    k.metrics.push_back(rtgate::Metric::latency("thread_latency", std::move(c->thread.hist),
                                                std::move(c->thread.block_maxima)));
    k.metrics.push_back(rtgate::Metric::count("missed_activations", static_cast<double>(c->missed),
                                              "activations", rtgate::Metric::Gating::kEventRate));
    result.cases.push_back(std::move(k));
    rtgate::trace::error_if_silent(result, "timerlat", cpu, expected && c->samples == 0);
  }
  return result;
}

}  // namespace

RTGATE_SUITE(
    {.name = "timerlat",
     .tags = {"sched", "kernel_tracer"},
     .summary = "the kernel's timerlat tracer: IRQ and thread timer latency per CPU, as rtla "
                "timerlat hist",
     .params = {ParamSpec::integer("period_us", 1000, 100, 1'000'000, "us",
                                   "timerlat period (osnoise/timerlat_period_us)"),
                ParamSpec::cpu_list("cpus", "all", "CPUs the tracer measures (osnoise/cpus)"),
                ParamSpec::integer("block_ms", 1000, 10, 3'600'000, "ms",
                                   "block length for the per-block maxima the gate compares"),
                ParamSpec::integer("buffer_kb", 4096, 256, 1'048'576, "kB",
                                   "per-CPU ring buffer of the private tracefs instance")},
     .needs = rtgate::Needs::kRoot,
     .run = &run});
