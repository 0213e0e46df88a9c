#include "framework/trace/hwlat_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "base/text/cpu_list.h"
#include "framework/measure/clock.h"
#include "framework/trace/kernel_tracer.h"
#include "framework/trace/tracefs_api.h"

namespace rtgate::trace {
namespace {

constexpr const char* kItem = "hardware latency";
// hwlat's own defaults, written so that every run samples alike whatever the last user left:
// each 1 s window spins 0.5 s with interrupts off on one CPU, the CPUs taken in turn.
constexpr const char* kWindowUs = "1000000";
constexpr const char* kWidthUs = "500000";
constexpr std::int64_t kKernelDefaultThresholdUs = 10;

std::string seconds_text(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g s", s);
  return b;
}

std::string evidence(const HwlatSummary& s) {
  std::string e = "hwlat " + seconds_text(s.seconds) + " on CPUs " + text::format_cpu_list(s.cpus) +
                  " (window 1 s, width 0.5 s, threshold " + std::to_string(s.threshold_us) +
                  " us): " + std::to_string(s.gaps) + (s.gaps == 1 ? " gap" : " gaps");
  if (s.gaps > 0) {
    e += ", max inner " + std::to_string(s.max_inner_us) + " us, outer " +
         std::to_string(s.max_outer_us) + " us";
  }
  if (s.nmis > 0) e += ", " + std::to_string(s.nmis) + " NMIs";
  return e;
}

// The threshold hwlat uses, in us: while it runs, tracing_thresh holds it.
std::int64_t running_threshold() {
  const std::int64_t now =
      std::atoll(KernelTracer::read_global("tracing_thresh").value_or("").c_str());
  return now > 0 ? now : kKernelDefaultThresholdUs;
}

KernelTracerConfig hwlat_config(const HwlatOptions& o) {
  KernelTracerConfig c{
      .tracer = "hwlat",
      .cpus = o.cpus,
      .knobs = {{"hwlat_detector/window", kWindowUs}, {"hwlat_detector/width", kWidthUs}},
      .event = "hwlat",
      .fields = {"duration", "outer_duration", "nmi_count"},
      .buffer_kb = 256,
      .knob_dir = "",
      .cpus_knob = false};
  // Before 5.14 there is no mode, and one CPU at a time is all hwlat does.
  if (tracefs_file_exists(nullptr, "hwlat_detector/mode")) {
    c.knobs.emplace_back("hwlat_detector/mode", "round-robin");
  }
  // Written once hwlat runs and put back before it stops: its start replaces a 0 with the last
  // run's threshold, and its reset keeps the running value as the next run's.
  if (o.threshold_us > 0) {
    c.running_knobs.emplace_back("tracing_thresh", std::to_string(o.threshold_us));
  }
  return c;
}

}  // namespace

readiness::Finding judge_hwlat(const HwlatSummary& s, bool hypervisor) {
  readiness::Finding f{.item = kItem, .evidence = evidence(s)};
  if (s.gaps > 0) {
    f.level = readiness::Level::kBad;
    f.why = "a CPU lost up to " + std::to_string(std::max(s.max_inner_us, s.max_outer_us)) +
            " us with interrupts off (" +
            (hypervisor ? "the host took the vCPU" : "SMIs or firmware") +
            "): a latency floor no kernel setting removes";
    f.fix = hypervisor ? "on the host: pin this VM's vCPUs to isolated host CPUs, and keep other "
                         "guests and host work off them"
                       : "in the firmware setup: turn off what raises SMIs (legacy USB "
                         "emulation, power capping, memory patrol scrub, C1E), then run again";
  } else if (s.stopped) {
    f.level = readiness::Level::kWarn;
    f.why = "the hwlat run was stopped after " + seconds_text(s.seconds) + ", before a gap";
  } else {
    f.why = "no gap over " + std::to_string(s.threshold_us) +
            " us with interrupts off: no SMI or host stall seen";
  }
  return f;
}

readiness::Finding run_hwlat(const HwlatOptions& o, const std::function<bool()>& stop,
                             bool* unavailable) {
  *unavailable = false;
  const auto not_run = [&](const std::string& why) {
    *unavailable = true;
    return readiness::Finding{.item = kItem,
                              .level = readiness::Level::kWarn,
                              .why = "not measured: " + why,
                              .evidence = "--hwlat " + seconds_text(o.seconds)};
  };
  if (std::string why = KernelTracer::unavailable("hwlat", "CONFIG_HWLAT_TRACER"); !why.empty()) {
    return not_run(why);
  }
  HwlatSummary s{.cpus = o.cpus};
  std::string why;
  auto tracer = KernelTracer::start(hwlat_config(o), &why);
  if (!tracer) return not_run(why);
  s.threshold_us = running_threshold();
  const std::int64_t start = monotonic_ns();
  const auto end = start + static_cast<std::int64_t>(std::llround(o.seconds * 1e9));
  tracer->collect_until(end, stop, [&](const TracerSample& t) {
    ++s.gaps;
    s.max_inner_us = std::max<std::uint64_t>(s.max_inner_us, t.values[0]);
    s.max_outer_us = std::max<std::uint64_t>(s.max_outer_us, t.values[1]);
    s.nmis += t.values[2];
  });
  s.seconds = static_cast<double>(monotonic_ns() - start) / 1e9;
  s.stopped = stop();
  return judge_hwlat(s, o.hypervisor);
}

}  // namespace rtgate::trace
