#include "framework/env/cpu_steal.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "base/io/proc_files.h"
#include "framework/env/hypervisor_cpuid.h"
#include "framework/env/kernel_config.h"

namespace rtgate {
namespace {

constexpr const char* kDebugfsFile = "/sys/kernel/debug/sched/debug";
constexpr const char* kProcFile = "/proc/sched_debug";

std::string_view next_line(std::string_view& rest) {
  const std::size_t nl = rest.find('\n');
  const std::string_view line = rest.substr(0, nl);
  rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
  return line;
}

bool parse_int(std::string_view s, std::int64_t& out) {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

// "  .clock   : 43190088.753442" (ms with 6 decimals) -> ns, exactly (no floating point).
bool parse_ms_value(std::string_view line, std::string_view key, std::int64_t& ns) {
  const std::size_t k = line.find_first_not_of(" \t");
  if (k == std::string_view::npos || line.substr(k, key.size()) != key) return false;
  std::string_view rest = line.substr(k + key.size());
  const std::size_t colon = rest.find(':');
  if (colon == std::string_view::npos ||
      rest.substr(0, colon).find_first_not_of(" \t") != std::string_view::npos) {
    return false;  // ".clock_task" must not match ".clock"
  }
  rest = rest.substr(colon + 1);
  rest.remove_prefix(std::min(rest.size(), rest.find_first_not_of(" \t")));
  while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\r')) rest.remove_suffix(1);
  const std::size_t dot = rest.find('.');
  std::int64_t whole = 0, frac = 0;
  if (!parse_int(rest.substr(0, dot), whole)) return false;
  if (dot != std::string_view::npos) {
    std::string_view digits = rest.substr(dot + 1);
    if (digits.empty() || digits.size() > 6 || !parse_int(digits, frac)) return false;
    for (std::size_t i = digits.size(); i < 6; ++i) frac *= 10;
  }
  ns = whole * 1'000'000 + frac;  // six decimals of a ms are ns
  return true;
}

std::string sched_debug_path() {
  if (access(kDebugfsFile, R_OK) == 0) return kDebugfsFile;
  if (access(kProcFile, R_OK) == 0) return kProcFile;
  return "";
}

bool cpu_has_hypervisor_flag() {
  const auto text = proc::read_file("/proc/cpuinfo");
  if (!text) return false;
  const std::size_t flags = text->find("\nflags");
  if (flags == std::string::npos) return false;
  const std::size_t end = text->find('\n', flags + 1);
  const std::string line = text->substr(flags, end - flags) + " ";
  return line.find(" hypervisor ") != std::string::npos;
}

// KVM_FEATURE_STEAL_TIME is bit 5 of KVM's feature leaf (Documentation/virt/kvm/x86/cpuid.rst).
bool kvm_advertises_steal_time() { return (cpuid::kvm_features() & (1U << 5)) != 0; }

std::string running_release() {
  utsname u{};
  return uname(&u) == 0 ? u.release : "";
}

}  // namespace

std::map<int, std::int64_t> parse_proc_stat_steal(std::string_view text, long user_hz) {
  std::map<int, std::int64_t> out;
  if (user_hz <= 0) return out;
  while (!text.empty()) {
    const std::string_view line = next_line(text);
    if (line.size() < 4 || line.substr(0, 3) != "cpu" || line[3] < '0' || line[3] > '9') continue;
    // cpuN user nice system idle iowait irq softirq steal ...
    std::string_view rest = line.substr(3);
    std::int64_t v[9] = {};
    int n = 0;
    while (n < 9 && !rest.empty()) {
      rest.remove_prefix(std::min(rest.size(), rest.find_first_not_of(' ')));
      const std::size_t sp = rest.find(' ');
      if (!parse_int(rest.substr(0, sp), v[n])) break;
      ++n;
      rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp);
    }
    if (n == 9) out[static_cast<int>(v[0])] = v[8] * (1'000'000'000 / user_hz);
  }
  return out;
}

std::map<int, std::int64_t> parse_sched_debug_steal(std::string_view text) {
  std::map<int, std::int64_t> out;
  int cpu = -1;
  std::int64_t clock = -1;
  while (!text.empty()) {
    const std::string_view line = next_line(text);
    if (line.starts_with("cpu#")) {
      const std::string_view num = line.substr(4, line.find_first_of(", ") - 4);
      std::int64_t c = -1;
      cpu = parse_int(num, c) ? static_cast<int>(c) : -1;
      clock = -1;
      continue;
    }
    if (cpu < 0) continue;
    std::int64_t ns = 0;
    if (parse_ms_value(line, ".clock", ns)) {
      clock = ns;
    } else if (clock >= 0 && parse_ms_value(line, ".clock_task", ns)) {
      out[cpu] = std::max<std::int64_t>(0, clock - ns);
      cpu = -1;  // the rest of the section is its runqueues and tasks
    }
  }
  return out;
}

bool config_gives_steal_clock(std::string_view config) {
  return config_set(config, "CONFIG_PARAVIRT_TIME_ACCOUNTING") &&
         !config_set(config, "CONFIG_IRQ_TIME_ACCOUNTING");
}

std::string steal_invisible_because(bool hypervisor, bool advertises_steal_time,
                                    bool steal_counted) {
  if (!hypervisor || advertises_steal_time || steal_counted) return "";
  return "a virtual machine whose hypervisor publishes no steal time (none counted since boot; "
         "QEMU TCG is one): the host's time is unknown, not zero";
}

CpuSteal::CpuSteal(std::string sched_debug, std::string config) {
  sched_debug_ = sched_debug.empty() ? sched_debug_path() : std::move(sched_debug);
  if (config.empty()) config = read_kernel_config(running_release());
  const char* why_not = nullptr;
  if (config.empty()) {
    why_not = "the kernel's config is not readable, so sched/debug's clocks cannot be trusted";
  } else if (!config_set(config, "CONFIG_PARAVIRT_TIME_ACCOUNTING")) {
    why_not = "the kernel does not account paravirt steal (no CONFIG_PARAVIRT_TIME_ACCOUNTING)";
  } else if (config_set(config, "CONFIG_IRQ_TIME_ACCOUNTING")) {
    why_not = "the kernel's task clock also leaves out IRQ time (CONFIG_IRQ_TIME_ACCOUNTING)";
  } else if (sched_debug_.empty()) {
    why_not = "sched/debug is not readable (debugfs not mounted)";
  } else if (const auto text = proc::read_file(sched_debug_);
             !text || parse_sched_debug_steal(*text).empty()) {
    why_not = "sched/debug shows no runqueue clocks";
  }
  use_clock_ = why_not == nullptr;
  describe_ = use_clock_ ? "steal clock (" + sched_debug_ + ": clock - clock_task, ns)"
                         : std::string("/proc/stat (10 ms ticks; ") + why_not + ")";
  bool counted = false;
  for (const auto& [cpu, ns] : read().ns) counted = counted || ns > 0;
  const std::string invisible =
      steal_invisible_because(cpu_has_hypervisor_flag(), kvm_advertises_steal_time(), counted);
  visible_ = invisible.empty();
  if (!visible_) describe_ += "; none visible: " + invisible;
}

StealReading CpuSteal::read() const {
  StealReading r;
  if (use_clock_) {
    if (const auto text = proc::read_file(sched_debug_)) {
      r.ns = parse_sched_debug_steal(*text);
      if (!r.ns.empty()) {
        r.source = "steal clock";
        return r;
      }
    }
  }
  if (const auto text = proc::read_file("/proc/stat")) {
    r.ns = parse_proc_stat_steal(*text, sysconf(_SC_CLK_TCK));
    if (!r.ns.empty()) r.source = "/proc/stat";
  }
  return r;
}

}  // namespace rtgate
