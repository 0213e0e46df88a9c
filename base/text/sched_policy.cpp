#include "base/text/sched_policy.h"

#include <sched.h>

#include <cctype>

namespace rtgate::text {
namespace {

struct Entry {
  int number;
  std::string_view name;
};

constexpr Entry kPolicies[] = {
    {SCHED_OTHER, "other"}, {SCHED_FIFO, "fifo"}, {SCHED_RR, "rr"},
    {SCHED_BATCH, "batch"}, {SCHED_IDLE, "idle"}, {kSchedDeadline, "deadline"},
};

}  // namespace

std::string policy_name(int policy) {
  for (const Entry& e : kPolicies) {
    if (e.number == policy) return std::string(e.name);
  }
  return "";
}

std::string kernel_policy_name(int policy) {
  std::string name = policy_name(policy);
  if (name.empty()) return name;
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return "SCHED_" + name;
}

std::optional<int> policy_from_name(std::string_view name) {
  for (const Entry& e : kPolicies) {
    if (e.name == name) return e.number;
  }
  return std::nullopt;
}

}  // namespace rtgate::text
