// Scheduling policies by number and by name: one table for every place that prints or parses
// them (hygiene's foreign RT threads, the trace analysis, suite parameters).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rtgate::text {

// SCHED_DEADLINE's number, which not every libc's <sched.h> defines.
inline constexpr int kSchedDeadline = 6;

// "fifo", "rr", "deadline", "other", "batch", "idle"; "" for a number the kernel does not have.
std::string policy_name(int policy);

// The kernel's spelling: "SCHED_FIFO", ...; "" for an unknown number.
std::string kernel_policy_name(int policy);

// The number for a short name ("fifo"), or nullopt.
std::optional<int> policy_from_name(std::string_view name);

}  // namespace rtgate::text
