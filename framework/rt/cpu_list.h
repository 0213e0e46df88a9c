// The CPUs of this machine and of the calling thread, and a suite's choice among them (the
// lists' text form is base/text/cpu_list.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/text/cpu_list.h"

namespace rtgate::rt {

// CPUs the kernel has online (/sys/devices/system/cpu/online; the affinity mask as a fallback).
std::vector<int> online_cpus();

// CPUs the calling thread may run on (its affinity mask, which cpusets and taskset narrow).
std::vector<int> allowed_cpus();

// The CPUs a suite's `cpus` parameter selects among `usable` ("all": every one of them), or
// nullopt and `why`: an unreadable list, or "CPU N is not available (usable: ...)".
std::optional<std::vector<int>> select_cpus(const std::string& selection,
                                            const std::vector<int>& usable, std::string* why);

}  // namespace rtgate::rt
