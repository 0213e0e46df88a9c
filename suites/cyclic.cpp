// cyclic: periodic wakeup latency, cyclictest's measurement done right.
//
// One thread per selected CPU, born SCHED_FIFO (or RR/OTHER) with its affinity. Each sleeps to an
// absolute CLOCK_MONOTONIC deadline and records latency = wakeup - deadline. When a wakeup comes
// a whole period late or more, the schedule skips to the next future period as cyclictest's does
// (one stall is one sample), and the periods that already passed are counted as missed, which
// cyclictest does not report.
#include <algorithm>
#include <memory>
#include <optional>

#include "framework/measure/clock.h"
#include "framework/measure/periodic_loop.h"
#include "framework/measure/run_context.h"
#include "framework/measure/start_line.h"
#include "framework/registry.h"
#include "framework/rt/cpu_list.h"
#include "framework/rt/rt_thread.h"

namespace {

using rtgate::ParamSpec;

// Everything one measuring thread touches. The thread builds it itself before the start line
// (on its own CPU and NUMA node, see StartLine::prepare_and_wait), cache-line aligned so no two
// threads' hot fields share a line.
struct alignas(64) Worker {
  Worker(int cpu_, std::int64_t interval_ns_, std::int64_t block_ns, std::size_t blocks,
         rtgate::LiveStats& live_)
      : cpu(cpu_),
        interval_ns(interval_ns_),
        live(live_),
        rec(interval_ns_, block_ns, blocks, live_) {}
  int cpu;
  std::int64_t interval_ns;
  rtgate::LiveStats& live;
  rtgate::PeriodicRecorder rec;
};

std::optional<rtgate::rt::Policy> policy_from(const std::string& s) {
  if (s == "fifo") return rtgate::rt::Policy::kFifo;
  if (s == "rr") return rtgate::rt::Policy::kRr;
  if (s == "other") return rtgate::rt::Policy::kOther;
  return std::nullopt;
}

rtgate::SuiteResult run(const rtgate::Params& p, rtgate::RunContext& ctx) {
  std::string why;
  const auto selected = rtgate::rt::select_cpus(p.get_string("cpus"), ctx.cpus(), &why);
  if (!selected) return rtgate::SuiteResult::ended(rtgate::SuiteStatus::kSkipped, why);
  const std::vector<int>& cpus = *selected;
  const std::int64_t interval_ns = p.get_int("interval_us") * 1000;
  const std::int64_t distance_ns = p.get_int("distance_us") * 1000;
  const std::int64_t block_ns = p.get_int("block_ms") * 1'000'000;
  const auto policy = *policy_from(p.get_string("policy"));

  // Per CPU: its interval, block and live counter (registered here, on the suite's thread); the
  // Worker itself is built by its thread.
  struct Plan {
    int cpu;
    std::int64_t interval, block;
    rtgate::LiveStats* live;
  };
  std::vector<Plan> plans;
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    const std::int64_t interval = interval_ns + static_cast<std::int64_t>(i) * distance_ns;
    plans.push_back({cpus[i], interval, std::max(block_ns, interval),
                     &ctx.track("cpu" + std::to_string(cpus[i]), "cpu" + std::to_string(cpus[i]))});
  }
  std::vector<std::unique_ptr<Worker>> workers(plans.size());

  // The common start is fixed once every thread runs (1 ms ahead of the last one's arrival).
  rtgate::StartLine start_line(static_cast<int>(plans.size()), 1'000'000);
  const std::int64_t duration_ns = ctx.duration_ns();
  {
    std::vector<std::unique_ptr<rtgate::rt::RtThread>> threads;
    try {
      for (std::size_t i = 0; i < plans.size(); ++i) {
        rtgate::rt::ThreadSpec spec{.name = "rtgate-cyc" + std::to_string(plans[i].cpu),
                                    .policy = policy,
                                    .priority = static_cast<int>(p.get_int("priority")),
                                    .cpus = {plans[i].cpu}};
        threads.push_back(std::make_unique<rtgate::rt::RtThread>(
            spec, [plan = plans[i], slot = &workers[i], &start_line, duration_ns, &ctx] {
              const std::int64_t start_ns = start_line.prepare_and_wait([&] {
                *slot = std::make_unique<Worker>(
                    plan.cpu, plan.interval, plan.block,
                    static_cast<std::size_t>(duration_ns / plan.block) + 2, *plan.live);
              });
              Worker& w = **slot;
              rtgate::PeriodicLoop(w.rec, w.live, w.interval_ns, ctx.sample_hook())
                  .run(start_ns, start_ns + duration_ns, ctx.stop_flag());
            }));
      }
    } catch (...) {
      ctx.request_stop();  // the threads already started end at their first wakeup
      start_line.abandon(static_cast<int>(plans.size() - threads.size()));
      throw;
    }
  }  // joins every thread

  rtgate::SuiteResult result;
  for (auto& w : workers) {
    if (!w) continue;  // its thread failed to build it: the run ends as an error saying why
    rtgate::Case c;
    c.name = "cpu" + std::to_string(w->cpu);
    // period_us: what a missed period costs in time, so that the gate can bound how many
    // missed periods the host's steal could explain.
    c.labels = {{"cpu", std::to_string(w->cpu)},
                {"thread_class", "rt"},
                {"period_us", std::to_string(w->interval_ns / 1000)}};
    c.metrics.push_back(rtgate::Metric::latency("wakeup_latency", std::move(w->rec.histogram()),
                                                std::move(w->rec.block_maxima())));
    c.metrics.push_back(rtgate::Metric::count("overruns", static_cast<double>(w->rec.overruns()),
                                              "wakeups", rtgate::Metric::Gating::kEventRate));
    c.metrics.push_back(rtgate::Metric::count("missed_periods",
                                              static_cast<double>(w->rec.missed_periods()),
                                              "periods", rtgate::Metric::Gating::kEventRate));
    result.cases.push_back(std::move(c));
  }
  return result;
}

}  // namespace

RTGATE_SUITE(
    {.name = "cyclic",
     .tags = {"sched", "smoke"},
     .summary = "periodic wakeup latency per CPU, cyclictest-style, missed periods counted",
     .params = {ParamSpec::integer("interval_us", 1000, 50, 1'000'000, "us",
                                   "wakeup period of the first thread"),
                ParamSpec::integer("priority", 95, 1, 98, "",
                                   "RT priority (99 is reserved for the watchdog)"),
                ParamSpec::cpu_list("cpus", "all", "CPUs to measure, one thread each"),
                ParamSpec::choice("policy", "fifo", {"fifo", "rr", "other"},
                                  "scheduling policy of the measuring threads"),
                ParamSpec::integer("distance_us", 0, 0, 1'000'000, "us",
                                   "interval increment per thread, as cyclictest -d"),
                ParamSpec::integer("block_ms", 1000, 10, 3'600'000, "ms",
                                   "block length for the per-block maxima the gate "
                                   "compares")},
     .needs = rtgate::Needs::kSchedFifo,
     .run = &run});
