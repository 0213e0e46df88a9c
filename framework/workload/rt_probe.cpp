#include "framework/workload/rt_probe.h"

#include "framework/measure/clock.h"
#include "framework/measure/periodic_loop.h"

namespace rtgate {
namespace {

int pick_cpu(int wanted, const std::vector<int>& cpus) {
  return wanted >= 0 || cpus.empty() ? wanted : cpus.back();
}

}  // namespace

RtProbe::RtProbe(const RtProbeSpec& spec, RunContext& ctx)
    : spec_(spec),
      cpu_(pick_cpu(spec.cpu, ctx.cpus())),
      ctx_(ctx),
      live_(ctx.track("probe")),
      hook_(ctx.sample_hook()) {}

RtProbe::~RtProbe() { stop(); }

void RtProbe::start() {
  thread_ = std::make_unique<rt::RtThread>(
      rt::ThreadSpec{.name = "rtgate-probe",
                     .priority = spec_.priority,
                     .cpus = cpu_ >= 0 ? std::vector<int>{cpu_} : std::vector<int>{}},
      [this] {
        // The recorder is built here, on the probe's CPU (its NUMA node, by first touch). The
        // schedule starts when the thread runs, not when it was asked for: under the workload,
        // creating it can take longer than a period.
        rec_ = std::make_unique<PeriodicRecorder>(
            spec_.interval_ns, 1'000'000'000,
            static_cast<std::size_t>(spec_.max_duration_ns / 1'000'000'000) + 2, live_);
        PeriodicLoop(*rec_, live_, spec_.interval_ns, hook_)
            .run(monotonic_ns(), PeriodicLoop::kForever, stop_);
      });
}

void RtProbe::stop() {
  stop_.store(true);
  if (thread_) thread_->join();
}

void RtProbe::add_metrics(Case& c) {
  c.labels["probe_cpu"] = std::to_string(cpu_);
  ctx_.claim_trace(live_.label, c.name);
  if (!rec_) return;  // the thread failed to build it: the run ends as an error saying why
  c.metrics.push_back(Metric::latency("probe_wakeup_latency", std::move(rec_->histogram()),
                                      std::move(rec_->block_maxima())));
  c.metrics.push_back(Metric::count("probe_missed_periods",
                                    static_cast<double>(rec_->missed_periods()), "periods",
                                    Metric::Gating::kEventRate));
}

}  // namespace rtgate
