#include "framework/rt/cpu_list.h"

#include <sched.h>

#include <algorithm>
#include <cerrno>

#include "base/io/proc_files.h"

namespace rtgate::rt {

std::vector<int> allowed_cpus() {
  // The kernel rejects masks smaller than its nr_cpu_ids with EINVAL, so grow until it fits.
  for (int ncpus = 1024; ncpus <= text::kMaxCpu; ncpus *= 2) {
    cpu_set_t* set = CPU_ALLOC(ncpus);
    if (set == nullptr) return {};
    const std::size_t size = CPU_ALLOC_SIZE(ncpus);
    CPU_ZERO_S(size, set);
    if (sched_getaffinity(0, size, set) == 0) {
      std::vector<int> cpus;
      for (int cpu = 0; cpu < ncpus; ++cpu) {
        if (CPU_ISSET_S(cpu, size, set)) cpus.push_back(cpu);
      }
      CPU_FREE(set);
      return cpus;
    }
    const int err = errno;
    CPU_FREE(set);
    if (err != EINVAL) return {};
  }
  return {};
}

std::vector<int> online_cpus() {
  if (auto cpus = text::parse_cpu_list(proc::read_trimmed("/sys/devices/system/cpu/online"));
      cpus && !cpus->empty()) {
    return *cpus;
  }
  return allowed_cpus();
}

std::optional<std::vector<int>> select_cpus(const std::string& selection,
                                            const std::vector<int>& usable, std::string* why) {
  if (selection == "all") return usable;
  const auto wanted = text::parse_cpu_list(selection);
  if (!wanted) {
    *why = "cannot read the CPU list '" + selection + "'";
    return std::nullopt;
  }
  for (int cpu : *wanted) {
    if (std::find(usable.begin(), usable.end(), cpu) == usable.end()) {
      *why = "CPU " + std::to_string(cpu) +
             " is not available (usable: " + text::format_cpu_list(usable) + ")";
      return std::nullopt;
    }
  }
  return wanted;
}

}  // namespace rtgate::rt
