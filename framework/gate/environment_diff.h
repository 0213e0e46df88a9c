// Whether two results were measured on comparable machines.
#pragma once

#include <string>
#include <vector>

#include "framework/report/environment.h"

namespace rtgate::gate {

struct EnvironmentDiff {
  // "field: baseline -> current", in a fixed order: cpu_model, online_cpus, preempt_model,
  // cmdline, kernel_release. The cmdline is compared as a set of boot parameters without
  // BOOT_IMAGE= and initrd= (they name the kernel image) and shown as "cmdline: -gone +added".
  std::vector<std::string> differences;
  // A field other than kernel_release differs: a latency difference may be the machine's. The
  // kernel release differing is what a kernel gate compares, so it is listed but not a mismatch.
  bool mismatch = false;
};

EnvironmentDiff diff_environments(const Environment& base, const Environment& cur);

}  // namespace rtgate::gate
