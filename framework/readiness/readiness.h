// Is this machine fit to measure RT latency? Each check reads /proc and /sys (through a SysRoot,
// so fixtures can stand in) and judges one item ok, warn or bad, with why it matters for latency
// in one line, the exact fix a user can paste, and the evidence it read. A check is one file in
// framework/readiness/checks/ that registers itself (RTGATE_READINESS_CHECK): no list to edit.
#pragma once

#include <string>
#include <vector>

#include "framework/readiness/sys_root.h"
#include "results/environment.h"

namespace rtgate::readiness {

enum class Level { kOk, kWarn, kBad };
const char* to_string(Level l);

struct Finding {
  std::string item;  // "preempt model", "cpu isolation", ...
  Level level = Level::kOk;
  std::string why;       // what it means for the measurement, one line
  std::string fix;       // what to paste (a cmdline parameter, sysctl, sysfs write), or ""
  std::string evidence;  // what was read: "/sys/kernel/realtime: 1"
};

struct Context {
  const SysRoot& root;
  std::vector<int> cpus;  // the CPUs a run measures on
};

using CheckFn = void (*)(const Context&, std::vector<Finding>&);

struct CheckSpec {
  int order = 0;  // where its items stand in the table (by topic: kernel, CPUs, memory, ...)
  const char* name = "";
  CheckFn fn = nullptr;
};

struct CheckRegistrar {
  explicit CheckRegistrar(CheckSpec spec);
};

// Every registered check over `ctx`, in their order.
std::vector<Finding> assess(const Context& ctx);

// The CPUs online under `root` (its /sys/devices/system/cpu/online), ascending.
std::vector<int> online_cpus(const SysRoot& root);

// "ready for RT measurement", or "not ready: 3 bad, 5 warn" (warnings alone: "ready, with 2
// warnings").
std::string summary(const std::vector<Finding>& findings);
int count(const std::vector<Finding>& findings, Level l);

// The findings over `cpus` as a result records them (results/environment.h).
std::vector<ReadinessItem> record(const SysRoot& root, const std::vector<int>& cpus);

}  // namespace rtgate::readiness

#define RTGATE_READINESS_CONCAT_INNER(a, b) a##b
#define RTGATE_READINESS_CONCAT(a, b) RTGATE_READINESS_CONCAT_INNER(a, b)
#define RTGATE_READINESS_CHECK(...)                                                               \
  namespace {                                                                                     \
  const ::rtgate::readiness::CheckRegistrar RTGATE_READINESS_CONCAT(rtgate_readiness_, __LINE__){ \
      ::rtgate::readiness::CheckSpec __VA_ARGS__};                                                \
  }
