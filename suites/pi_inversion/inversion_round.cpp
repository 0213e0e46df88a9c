#include "suites/pi_inversion/inversion_round.h"

#include <algorithm>
#include <cstdio>

namespace rtgate::rt {
namespace {

std::string ms(std::int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f ms", static_cast<double>(ns) / 1e6);
  return buf;
}

}  // namespace

RoundJudgement judge_pi_round(const InversionResult& r, std::int64_t bound_ns,
                              std::int64_t cpu_steal_ns) {
  RoundJudgement j;
  const WindowSplit& low = r.low_window;
  // Where the guest cannot see its steal, the host's time inside low's section lands in low's CPU
  // clock (QEMU's TCG keeps every guest clock running while the vCPU is off), so it is not in
  // `unaccounted`; low's loop sees it as gaps that its run delay does not explain.
  const std::int64_t hidden =
      cpu_steal_ns < 0
          ? std::max<std::int64_t>(0, r.low_gaps_ns - low.preempted_ns - low.unaccounted_ns)
          : 0;
  j.host_ns = low.unaccounted_ns + hidden;
  if (r.mid_ran_while_high_waited) {
    j.call = RoundCall::kInversion;
    j.why = "mid ran while high waited " + ms(r.high_wait_ns) + ": low was not boosted";
    return j;
  }
  const std::int64_t kernel_wait = r.high_wait_ns - j.host_ns;
  if (kernel_wait < bound_ns) return j;
  const std::int64_t over = kernel_wait - bound_ns + 1;
  // Steal outside low's section (before low ran, or between its release and high's return): on
  // the CPU over the round, less what low's own clocks already placed.
  const std::int64_t outside_window = std::max<std::int64_t>(0, r.high_wait_ns - low.wall_ns);
  const std::int64_t outside_steal =
      cpu_steal_ns < 0 ? 0 : std::max<std::int64_t>(0, cpu_steal_ns - low.unaccounted_ns);
  if (cpu_steal_ns < 0 && outside_window >= over) {
    // A guest that cannot see its steal: time outside low's section could be the host's, and
    // nothing in the guest can tell. Low's own clocks still judge the section itself.
    j.call = RoundCall::kHost;
    j.why = "high waited " + ms(r.high_wait_ns) + ", " + ms(outside_window) +
            " of it outside low's section, on a CPU whose steal cannot be seen";
    return j;
  }
  if (std::min(outside_window, outside_steal) >= over) {
    j.call = RoundCall::kHost;
    j.host_ns += std::min(outside_window, outside_steal);
    j.why = "high waited " + ms(r.high_wait_ns) + " and the host took " + ms(cpu_steal_ns) +
            " of its CPU in the round";
    return j;
  }
  if (low.preempted_ns >= over) {
    j.call = RoundCall::kPreempted;
    j.why = "high waited " + ms(r.high_wait_ns) + ": low was kept off its CPU " +
            ms(low.preempted_ns) +
            " by another task while holding the lock (not mid, not the host)";
    return j;
  }
  j.call = RoundCall::kOverBound;
  j.why = "high waited " + ms(r.high_wait_ns) + " (bound " + ms(bound_ns) +
          "); low's section took " + ms(low.wall_ns) + " for " + ms(low.cpu_ns) +
          " of CPU, the host " + ms(j.host_ns);
  return j;
}

}  // namespace rtgate::rt
