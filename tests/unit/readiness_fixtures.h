// Machines as fixture roots of /proc and /sys for the readiness checks: an RT board tuned well, a
// desktop, a VM like this one, and a 6.12 RT kernel with the deadline fair server. Each is a map
// of files written under a temporary directory, removed with the object.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "framework/readiness/readiness.h"

namespace rtgate::readiness::fixture {

using Files = std::map<std::string, std::string>;

class Root {
 public:
  explicit Root(const Files& files) {
    char tmpl[] = "/tmp/rtgate-sysroot.XXXXXX";
    dir_ = mkdtemp(tmpl);
    for (const auto& [path, text] : files) {
      const std::filesystem::path p = dir_ + path;
      std::filesystem::create_directories(p.parent_path());
      if (path.back() == '/') continue;  // a directory
      std::ofstream(p) << text;
    }
  }
  ~Root() { std::filesystem::remove_all(dir_); }
  Root(const Root&) = delete;
  Root& operator=(const Root&) = delete;
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

// Two CPUs per core and four cores; what every machine here has in common.
inline Files cpus(int n, bool smt) {
  Files f{{"/sys/devices/system/cpu/online", "0-" + std::to_string(n - 1) + "\n"}};
  for (int c = 0; c < n; ++c) {
    const std::string sib =
        smt ? std::to_string(c & ~1) + "-" + std::to_string(c | 1) : std::to_string(c);
    f["/sys/devices/system/cpu/cpu" + std::to_string(c) + "/topology/thread_siblings_list"] =
        sib + "\n";
  }
  f["/sys/devices/system/cpu/smt/control"] = smt ? "on\n" : "notsupported\n";
  return f;
}

inline Files merged(Files a, const Files& b) {
  for (const auto& [k, v] : b) a[k] = v;
  return a;
}

// An irq with a handler (a device's) at `cpus`.
inline Files irq(int n, const std::string& cpus) {
  const std::string d = "/proc/irq/" + std::to_string(n);
  return {{d + "/smp_affinity_list", cpus + "\n"},
          {d + "/effective_affinity_list", cpus + "\n"},
          {d + "/eth0-rx/", ""}};
}

// PREEMPT_RT, CPUs 2-3 isolated, tickless and without RCU callbacks, device interrupts and
// unbound work on 0-1, performance governor, shallow idle, no SMT, no throttling, the watchdogs,
// THP, swap, KSM and NUMA balancing off, the TSC, bare metal, root.
inline Files rt_board() {
  Files f = cpus(4, false);
  f = merged(f, irq(24, "0-1"));
  f = merged(f, irq(25, "0"));
  for (const auto& [k, v] :
       Files{{"/proc/version", "Linux version 6.1.0-53-rt-amd64 #1 SMP PREEMPT_RT Debian\n"},
             {"/sys/kernel/realtime", "1\n"},
             {"/proc/cmdline",
              "BOOT_IMAGE=/vmlinuz isolcpus=managed_irq,domain,2-3 "
              "nohz_full=2-3 rcu_nocbs=2-3 nosmt nowatchdog\n"},
             {"/sys/devices/system/cpu/isolated", "2-3\n"},
             {"/sys/devices/system/cpu/nohz_full", "2-3\n"},
             {"/sys/devices/virtual/workqueue/cpumask", "3\n"},
             {"/sys/bus/workqueue/devices/writeback/cpumask", "3\n"},
             {"/proc/sys/kernel/sched_rt_runtime_us", "-1\n"},
             {"/proc/sys/kernel/sched_rt_period_us", "1000000\n"},
             {"/proc/sys/kernel/timer_migration", "0\n"},
             {"/proc/sys/kernel/nmi_watchdog", "0\n"},
             {"/proc/sys/kernel/soft_watchdog", "0\n"},
             {"/proc/sys/kernel/numa_balancing", "0\n"},
             {"/sys/kernel/mm/transparent_hugepage/enabled", "always madvise [never]\n"},
             {"/sys/kernel/mm/ksm/run", "0\n"},
             {"/proc/swaps", "Filename Type Size Used Priority\n"},
             {"/sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc\n"},
             {"/sys/devices/system/clocksource/clocksource0/available_clocksource", "tsc hpet\n"},
             {"/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme tsc msr\n"},
             {"/proc/stat", "cpu  100 0 50 1000 0 0 0 0 0 0\n"},
             {"/proc/self/limits",
              "Max realtime priority     99     99\n"
              "Max locked memory         unlimited  unlimited  bytes\n"},
             {"/proc/self/status", "Name:\trtgate\nCapEff:\t000001ffffffffff\n"},
             {"/dev/cpu_dma_latency", ""},
             {"/proc/2/status", "Name:\tkthreadd\nCpus_allowed_list:\t0-1\n"}}) {
    f[k] = v;
  }
  for (int c = 0; c < 4; ++c) {
    const std::string d = "/sys/devices/system/cpu/cpu" + std::to_string(c);
    f[d + "/cpufreq/scaling_governor"] = "performance\n";
    f[d + "/cpuidle/state0/name"] = "POLL\n";
    f[d + "/cpuidle/state0/latency"] = "0\n";
    f[d + "/cpuidle/state1/name"] = "C1\n";
    f[d + "/cpuidle/state1/latency"] = "2\n";
  }
  return f;
}

// A desktop: voluntary preemption, nothing isolated, irqbalance, powersave with boost, C6, SMT,
// throttling, timer migration, the watchdogs, THP always, swap, KSM, NUMA balancing, hpet after
// the TSC was marked unstable, a user without RT limits.
inline Files desktop() {
  Files f = cpus(4, true);
  f = merged(f, irq(30, "0-3"));
  for (const auto& [k, v] : Files{
           {"/proc/version", "Linux version 6.1.0-28-amd64 #1 SMP PREEMPT_DYNAMIC Debian\n"},
           {"/proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 quiet\n"},
           {"/proc/sys/kernel/osrelease", "6.1.0-28-amd64\n"},
           {"/boot/config-6.1.0-28-amd64",
            "#\nCONFIG_PREEMPT_DYNAMIC=y\nCONFIG_PREEMPT_VOLUNTARY=y\n"},
           {"/sys/devices/system/cpu/isolated", "\n"},
           {"/sys/devices/system/cpu/nohz_full", "(null)\n"},
           {"/proc/1234/comm", "irqbalance\n"},
           {"/sys/devices/system/cpu/cpufreq/boost", "1\n"},
           {"/sys/devices/virtual/workqueue/cpumask", "f\n"},
           {"/proc/sys/kernel/sched_rt_runtime_us", "950000\n"},
           {"/proc/sys/kernel/sched_rt_period_us", "1000000\n"},
           {"/proc/sys/kernel/timer_migration", "1\n"},
           {"/proc/sys/kernel/nmi_watchdog", "1\n"},
           {"/proc/sys/kernel/soft_watchdog", "1\n"},
           {"/proc/sys/kernel/watchdog", "1\n"},
           {"/proc/sys/kernel/numa_balancing", "1\n"},
           {"/sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never\n"},
           {"/sys/kernel/mm/ksm/run", "1\n"},
           {"/sys/kernel/mm/transparent_hugepage/khugepaged/defrag", "1\n"},
           {"/proc/2/status", "Name:\tkthreadd\nCpus_allowed_list:\t0-3\n"},
           {"/proc/swaps", "Filename Type Size Used Priority\n/dev/sda2 partition 1 0 -2\n"},
           {"/sys/devices/system/clocksource/clocksource0/current_clocksource", "hpet\n"},
           {"/sys/devices/system/clocksource/clocksource0/available_clocksource", "hpet acpi_pm\n"},
           {"/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme tsc msr\n"},
           {"/proc/stat", "cpu  100 0 50 1000 0 0 0 0 0 0\n"},
           {"/proc/self/limits",
            "Max realtime priority     0     0\n"
            "Max locked memory         8388608  8388608  bytes\n"},
           {"/proc/self/status", "Name:\trtgate\nCapEff:\t0000000000000000\n"}}) {
    f[k] = v;
  }
  for (int c = 0; c < 4; ++c) {
    const std::string d = "/sys/devices/system/cpu/cpu" + std::to_string(c);
    f[d + "/cpufreq/scaling_governor"] = "powersave\n";
    f[d + "/cpuidle/state3/name"] = "C6\n";
    f[d + "/cpuidle/state3/latency"] = "133\n";
  }
  return f;
}

// A VM like this one: dynamic preemption whose mode nothing shows, two vCPUs, the hypervisor
// flag, kvm-clock, steal counted, throttling on, root.
inline Files vm(long long steal) {
  Files f = cpus(2, false);
  for (const auto& [k, v] :
       Files{{"/proc/version", "Linux version 6.18.4 #1 SMP PREEMPT_DYNAMIC\n"},
             {"/proc/cmdline", "console=ttyS0 root=/dev/vda\n"},
             {"/proc/sys/kernel/osrelease", "6.18.4\n"},
             {"/proc/sys/kernel/sched_rt_runtime_us", "950000\n"},
             {"/sys/devices/system/clocksource/clocksource0/current_clocksource", "kvm-clock\n"},
             {"/sys/devices/system/clocksource/clocksource0/available_clocksource",
              "kvm-clock tsc acpi_pm\n"},
             {"/sys/class/dmi/id/sys_vendor", "QEMU\n"},
             {"/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu tsc hypervisor\n"},
             {"/proc/stat", "cpu  100 0 50 1000 0 0 0 " + std::to_string(steal) + " 0 0\n"},
             {"/proc/self/limits",
              "Max realtime priority     0     0\n"
              "Max locked memory         8388608  8388608  bytes\n"},
             {"/proc/self/status", "Name:\trtgate\nCapEff:\t000001ffffffffff\n"}}) {
    f[k] = v;
  }
  return f;
}

// A 6.12 RT kernel as tuned as rt_board, but with the deadline fair server's 50 ms a second.
inline Files rt_612_fair_server() {
  Files f = rt_board();
  f["/proc/version"] = "Linux version 6.12.38+deb13-rt-amd64 #1 SMP PREEMPT_RT Debian\n";
  for (int c = 0; c < 4; ++c) {
    f["/sys/kernel/debug/sched/fair_server/cpu" + std::to_string(c) + "/runtime"] = "50000000\n";
  }
  return f;
}

// Every check over `files`, measuring `cpus`.
inline std::vector<Finding> judge(const Files& files, std::vector<int> cpus) {
  const Root root(files);
  const SysRoot sys(root.dir());
  return assess({.root = sys, .cpus = std::move(cpus)});
}

// The findings of the machines that need fixing (a desktop, a VM without steal, a 6.12 RT kernel
// with the fair server), measuring CPUs 2-3: between them, every fix the checks write.
inline std::vector<Finding> untuned_findings() {
  std::vector<Finding> all;
  for (const Files& files : {desktop(), vm(0), rt_612_fair_server()}) {
    for (Finding& f : judge(files, {2, 3})) all.push_back(std::move(f));
  }
  return all;
}

}  // namespace rtgate::readiness::fixture
