#include "framework/rt/housekeeping.h"

namespace rtgate::rt {

bool measured_cpus(RunContext& ctx, cpu_set_t* out) noexcept {
  CPU_ZERO(out);
  bool any = false;
  ctx.for_each_tracked([&](LiveStats& s) {
    const pid_t tid = s.tid.load(std::memory_order_relaxed);
    if (tid <= 0 || s.done.load(std::memory_order_relaxed)) return;
    cpu_set_t mine;
    if (sched_getaffinity(tid, sizeof mine, &mine) != 0) return;
    CPU_OR(out, out, &mine);
    any = true;
  });
  return any;
}

bool move_to_housekeeping(const cpu_set_t& allowed, const cpu_set_t& measured) noexcept {
  cpu_set_t free;
  CPU_ZERO(&free);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &allowed) && !CPU_ISSET(cpu, &measured)) CPU_SET(cpu, &free);
  }
  if (CPU_COUNT(&free) == 0) return false;
  cpu_set_t now;
  if (sched_getaffinity(0, sizeof now, &now) == 0 && CPU_EQUAL(&now, &free)) return true;
  return sched_setaffinity(0, sizeof free, &free) == 0;
}

}  // namespace rtgate::rt
