#include "framework/env/environment.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

#include "base/io/proc_files.h"
#include "base/text/strings.h"
#include "base/text/utf8.h"
#include "framework/env/hypervisor_cpuid.h"
#include "framework/env/kernel_config.h"
#include "framework/rt/cpu_list.h"
#include "framework/rt/rt_checks.h"

namespace rtgate {
namespace {

using proc::read_file;
using proc::read_int;
using proc::read_trimmed;

std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  std::istringstream in{std::string(s)};
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool has_word(std::string_view text, std::string_view word) {
  for (const auto& w : words(text)) {
    if (w == word) return true;
  }
  return false;
}

// Value of the first "key : value" line in a /proc/cpuinfo-style text.
std::string field_value(std::string_view text, std::string_view key) {
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (colon != std::string::npos && text::trim(line.substr(0, colon)) == key) {
      return std::string(text::trim(line.substr(colon + 1)));
    }
  }
  return "";
}

// The build-time default preemption mode, which PREEMPT_DYNAMIC kernels boot with.
std::string config_preempt_mode(std::string_view config) {
  if (config_set(config, "CONFIG_PREEMPT_RT")) return "rt";
  if (config_set(config, "CONFIG_PREEMPT_LAZY")) return "lazy";
  if (config_set(config, "CONFIG_PREEMPT")) return "full";
  if (config_set(config, "CONFIG_PREEMPT_VOLUNTARY")) return "voluntary";
  if (config_set(config, "CONFIG_PREEMPT_NONE")) return "none";
  return "";
}

// "preempt=" on the kernel command line; arguments after "--" belong to init, not the kernel.
std::string cmdline_preempt_mode(std::string_view cmdline) {
  for (const auto& w : words(cmdline)) {
    if (w == "--") break;
    if (w.rfind("preempt=", 0) == 0) return w.substr(8);
  }
  return "";
}

void detect_preempt_model(Environment& env) {
  const auto uname_words = words(env.kernel_version);
  auto in_uname = [&](std::string_view w) {
    for (const auto& u : uname_words) {
      if (u == w) return true;
    }
    return false;
  };
  env.realtime = read_trimmed("/sys/kernel/realtime") == "1" || in_uname("PREEMPT_RT");
  if (env.realtime) {
    env.preempt_model = "rt";
    env.extra["preempt_source"] = "realtime";
    return;
  }
  // debugfs shows the live mode as "none voluntary (full) lazy"; it is usually root-only.
  const std::string live = read_trimmed("/sys/kernel/debug/sched/preempt");
  const auto open = live.find('('), close = live.find(')');
  if (open != std::string::npos && close != std::string::npos && close > open + 1) {
    env.preempt_model = "dynamic(" + live.substr(open + 1, close - open - 1) + ")";
    env.extra["preempt_source"] = "debugfs";
    return;
  }
  const bool dynamic = in_uname("PREEMPT_DYNAMIC");
  const bool full = in_uname("PREEMPT");
  if (dynamic) {
    // Without debugfs the best we know is the boot choice: preempt= if given, else the config
    // default. Only a write to debugfs changes it later; preempt_source records the guess.
    std::string mode = cmdline_preempt_mode(env.cmdline);
    std::string source = "cmdline";
    if (mode.empty()) {
      mode = config_preempt_mode(read_kernel_config(env.kernel_release));
      source = "kconfig";
    }
    env.preempt_model = mode.empty() ? "dynamic" : "dynamic(" + mode + ")";
    env.extra["preempt_source"] = mode.empty() ? "uname" : source;
    return;
  }
  // Static builds: uname says "PREEMPT" for full and lazy, nothing for none and voluntary.
  const std::string mode = config_preempt_mode(read_kernel_config(env.kernel_release));
  if (!mode.empty()) {
    env.preempt_model = mode;
    env.extra["preempt_source"] = "kconfig";
  } else {
    env.preempt_model = full ? "full" : "unknown";
    env.extra["preempt_source"] = "uname";
  }
}

std::string cpuid_hypervisor_vendor() {
  const std::string vendor(text::trim(cpuid::hypervisor_leaf().signature));
  if (vendor.rfind("KVMKVMKVM", 0) == 0) return "KVM";
  if (vendor == "Microsoft Hv") return "Hyper-V";
  if (vendor == "VMwareVMware") return "VMware";
  if (vendor == "XenVMMXenVMM") return "Xen";
  if (vendor == "TCGTCGTCGTCG") return "QEMU";
  bool printable = !vendor.empty();
  for (char ch : vendor) printable = printable && std::isprint(static_cast<unsigned char>(ch));
  return printable ? vendor : "";
}

std::string detect_hypervisor(std::string_view cpuinfo) {
  std::string xen_type = read_trimmed("/sys/hypervisor/type");
  if (!xen_type.empty()) return xen_type;
  const bool flag = has_word(field_value(cpuinfo, "flags"), "hypervisor");
  std::string dmi = read_trimmed("/sys/class/dmi/id/sys_vendor");
  static constexpr std::string_view kVirtualVendors[] = {"QEMU",
                                                         "KVM",
                                                         "VMware, Inc.",
                                                         "Xen",
                                                         "innotek GmbH",
                                                         "BHYVE",
                                                         "Parallels Software International Inc."};
  for (auto v : kVirtualVendors) {
    if (dmi == v) return dmi;
  }
  if (!flag) return "";
  if (auto vendor = cpuid_hypervisor_vendor(); !vendor.empty()) return vendor;
  return dmi.empty() ? "yes" : dmi;
}

// The PM QoS file answers a read with exactly the current target as a native s32. Anything else
// is taken as text, which is what some vendor kernels print.
std::int64_t read_cpu_dma_latency() {
  const int fd = open("/dev/cpu_dma_latency", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[32] = {};
  const ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (n == static_cast<ssize_t>(sizeof(std::int32_t))) {
    std::int32_t value = 0;
    std::memcpy(&value, buf, sizeof(value));
    return value;
  }
  if (n <= 0) return -1;
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(buf, &end, 0);
  if (errno != 0 || end == buf || value < 0) return -1;
  return value;
}

std::string detect_governors(const std::vector<int>& cpus) {
  std::vector<std::pair<int, std::string>> found;
  for (int cpu : cpus) {
    const std::string g = read_trimmed("/sys/devices/system/cpu/cpu" + std::to_string(cpu) +
                                       "/cpufreq/scaling_governor");
    if (!g.empty()) found.emplace_back(cpu, g);
  }
  if (found.empty()) return "";
  bool all_same = found.size() == cpus.size();
  for (const auto& [cpu, g] : found) all_same = all_same && g == found.front().second;
  if (all_same) return found.front().second;
  std::string out;
  for (const auto& [cpu, g] : found) {
    out += (out.empty() ? "" : ",") + std::to_string(cpu) + ":" + g;
  }
  return out;
}

std::int64_t meminfo_kb(std::string_view meminfo, std::string_view key) {
  const std::string value = field_value(meminfo, key);
  try {
    return value.empty() ? 0 : std::stoll(value);
  } catch (...) {
    return 0;
  }
}

// The kernel's strings are bytes (a host name or a command line may hold any): valid UTF-8 from
// here on, so that every format can carry them.
void make_names_valid(Environment& env) {
  for (std::string* s : {&env.hostname, &env.kernel_release, &env.kernel_version, &env.machine,
                         &env.cmdline, &env.cpu_model, &env.isolated_cpus, &env.nohz_full,
                         &env.clocksource, &env.governors, &env.smt, &env.boot_id}) {
    *s = text::to_valid_utf8(*s);
  }
}

}  // namespace

Environment capture_environment() {
  Environment env;
  try {
    utsname u{};
    if (uname(&u) == 0) {
      env.hostname = u.nodename;
      env.kernel_release = u.release;
      env.kernel_version = u.version;
      env.machine = u.machine;
    }
    env.cmdline = read_trimmed("/proc/cmdline");
    env.boot_id = read_trimmed("/proc/sys/kernel/random/boot_id");
    env.pid = getpid();
    detect_preempt_model(env);

    const std::string cpuinfo = read_file("/proc/cpuinfo").value_or("");
    for (const char* key : {"model name", "Processor", "cpu model", "cpu"}) {
      env.cpu_model = field_value(cpuinfo, key);
      if (!env.cpu_model.empty()) break;
    }
    env.hypervisor = detect_hypervisor(cpuinfo);

    const std::vector<int> online = rt::online_cpus();
    env.online_cpus = static_cast<int>(online.size());
    env.online_cpu_list = text::format_cpu_list(online);
    env.isolated_cpus = read_trimmed("/sys/devices/system/cpu/isolated");
    env.nohz_full = read_trimmed("/sys/devices/system/cpu/nohz_full");
    if (env.nohz_full == "(null)") env.nohz_full.clear();  // older kernels print this for "unset"

    env.rt_runtime_us = read_int("/proc/sys/kernel/sched_rt_runtime_us", 0);
    env.rt_period_us = read_int("/proc/sys/kernel/sched_rt_period_us", 0);
    env.rt_capable = rt::probe_sched_fifo().empty();
    env.cpu_dma_latency_us = read_cpu_dma_latency();
    env.clocksource =
        read_trimmed("/sys/devices/system/clocksource/clocksource0/current_clocksource");
    env.governors = detect_governors(online);
    env.smt = read_trimmed("/sys/devices/system/cpu/smt/control");
    env.memory_total_kb = meminfo_kb(read_file("/proc/meminfo").value_or(""), "MemTotal");
  } catch (...) {
    // Only allocation can throw above; a partial environment is still worth reporting.
  }
  make_names_valid(env);
  return env;
}

}  // namespace rtgate
