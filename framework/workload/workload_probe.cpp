#include "framework/workload/workload_probe.h"

#include <algorithm>

#include "framework/rt/cpu_list.h"

namespace rtgate::workload {

WorkloadProbe::WorkloadProbe(const Params& p, RunContext& ctx, std::int64_t max_duration_ns) {
  if (!p.get_bool("probe")) return;
  const int cpu = static_cast<int>(p.get_int("probe_cpu"));
  const std::vector<int>& cpus = ctx.cpus();
  if (cpu >= 0 && std::find(cpus.begin(), cpus.end(), cpu) == cpus.end()) {
    unusable_ = "probe_cpu " + std::to_string(cpu) +
                " is not a CPU this run may use (usable: " + text::format_cpu_list(cpus) + ")";
    return;
  }
  probe_ = std::make_unique<RtProbe>(
      RtProbeSpec{.cpu = cpu,
                  .priority = static_cast<int>(p.get_int("probe_priority")),
                  .interval_ns = p.get_int("probe_interval_us") * 1000,
                  .max_duration_ns = std::max<std::int64_t>(max_duration_ns, 1'000'000'000)},
      ctx);
}

WorkloadProbe::~WorkloadProbe() { stop(); }

std::string WorkloadProbe::start() {
  if (!unusable_.empty()) return unusable_;
  if (!probe_) return "";
  try {
    probe_->start();
  } catch (const rt::RtError& e) {
    probe_.reset();
    return std::string("RT probe: ") + e.what() + " (-p probe=false runs without it)";
  }
  return "";
}

void WorkloadProbe::stop() {
  if (probe_) probe_->stop();
}

void WorkloadProbe::add_metrics(Case& c) {
  if (probe_) probe_->add_metrics(c);
}

}  // namespace rtgate::workload
