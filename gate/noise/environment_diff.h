// Whether two results were measured on comparable machines.
#pragma once

#include <string>
#include <vector>

#include "results/environment.h"

namespace rtgate::gate {

struct EnvironmentDiff {
  // "field: baseline -> current", in this fixed order. First, listed only, each readiness item
  // whose level differs ("readiness cpu isolation: ok -> bad"). Decisive (a difference is a
  // mismatch):
  //   cpu_model, online_cpus, preempt_model, cmdline, realtime, isolated_cpus, nohz_full, smt,
  //   clocksource, hypervisor, rt_runtime_us, mlockall, cpu_dma_latency_hold;
  // then listed only: kernel_release, kernel_version, governors, memory_total_kb.
  // A field empty or unknown on both sides is equal. The cmdline is compared as a set of boot
  // parameters without BOOT_IMAGE= and initrd= (they name the kernel image) and shown as
  // "cmdline: -gone +added". mlockall and cpu_dma_latency_hold are the runner's failure markers
  // in Environment::extra, compared by state, not by the wording of the reason: mlockall present
  // means it failed; cpu_dma_latency_hold "0 us" means held, absent not attempted, anything else
  // not held (the reason).
  std::vector<std::string> differences;
  // A decisive field differs: a latency difference may be the machine's. The kernel (release
  // and version) differing is what a kernel gate compares, and governors and memory size move
  // little on their own, so those are listed but not a mismatch.
  bool mismatch = false;
};

EnvironmentDiff diff_environments(const Environment& base, const Environment& cur);

}  // namespace rtgate::gate
