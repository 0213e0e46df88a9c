// How the kernel keeps SCHED_OTHER tasks alive when RT tasks would take a CPU whole, and how
// much of the CPU that takes from them: RT throttling (sched_rt_runtime_us of every
// sched_rt_period_us) and, from 6.12, the fair deadline server (debugfs sched/fair_server/cpuN:
// runtime per period, 50 ms per second by default). Either one stops RT tasks for tens of ms once
// they have starved SCHED_OTHER long enough, which an RT thread's latency then shows and which
// no change under test caused.
#pragma once

#include <string>

namespace rtgate::rt {

// "fair server: 50 ms per 1000 ms per CPU; RT throttling: 950 ms per 1000 ms", with what could
// not be read and why. `debugfs` and `proc_sys` are the roots (tests point them elsewhere).
std::string describe_cfs_protection(const std::string& debugfs = "/sys/kernel/debug",
                                    const std::string& proc_sys = "/proc/sys/kernel");

}  // namespace rtgate::rt
