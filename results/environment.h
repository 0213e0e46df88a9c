// The facts about the machine that a latency figure depends on, as a result records them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace rtgate {

// One item of the machine's readiness for RT measurement, as `rtgate env` judged it when the run
// started (framework/readiness/readiness.h).
struct ReadinessItem {
  std::string item;
  std::string level;  // ok, warn, bad
  std::string why, fix, evidence;
  bool operator==(const ReadinessItem&) const = default;
};

struct Environment {
  std::string hostname;
  std::string kernel_release;  // uname -r
  std::string kernel_version;  // uname -v
  std::string machine;         // uname -m
  std::string preempt_model;   // none|voluntary|full|lazy|rt|dynamic(<mode>)|unknown
  bool realtime = false;       // PREEMPT_RT (/sys/kernel/realtime or uname -v)
  std::string cmdline;         // /proc/cmdline, trimmed
  std::string cpu_model;       // first "model name" of /proc/cpuinfo
  int online_cpus = 0;
  std::string online_cpu_list;     // e.g. "0-3"
  std::string isolated_cpus;       // /sys/devices/system/cpu/isolated ("" when none)
  std::string nohz_full;           // /sys/devices/system/cpu/nohz_full ("" when none)
  std::int64_t rt_runtime_us = 0;  // -1 = throttling disabled
  std::int64_t rt_period_us = 0;
  bool rt_capable = false;               // a SCHED_FIFO thread could be created here
  std::int64_t cpu_dma_latency_us = -1;  // current PM QoS target; -1 when unreadable
  std::string clocksource;               // current clocksource
  std::string governors;   // e.g. "performance" or "0:powersave,1:performance"; "" n/a
  std::string smt;         // /sys/devices/system/cpu/smt/control, "" when absent
  std::string hypervisor;  // "" on bare metal, else vendor or "yes"
  std::int64_t memory_total_kb = 0;
  // The session a result was measured in: this boot (/proc/sys/kernel/random/boot_id) and the
  // measuring process. Runs of one session share its offset (memory layout, IRQ placement, the
  // host's load), so the gate counts sessions, not runs, as the replicates of a kernel.
  std::string boot_id;
  std::int64_t pid = 0;
  std::map<std::string, std::string> extra;  // anything else worth keeping, free-form
  // The readiness verdicts at the run's start, for its CPUs; empty in results before them.
  std::vector<ReadinessItem> readiness;
};

}  // namespace rtgate
