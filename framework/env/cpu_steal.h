// Host steal per CPU: the time a virtual CPU was ready to run and the hypervisor ran something
// else. The guest sees that time vanish in whatever it was doing, so rtgate must count it apart
// from what the kernel under test did.
//
// Two sources, the better one where the kernel offers it:
//   - "steal clock": on KVM with paravirt steal accounting (CONFIG_PARAVIRT_TIME_ACCOUNTING,
//     steal time advertised by the host), the scheduler subtracts steal from each runqueue's
//     task clock, so `.clock - .clock_task` in debugfs sched/debug is the CPU's steal in
//     nanoseconds, as of its last clock update. It is that only when the kernel does not also
//     subtract IRQ time (CONFIG_IRQ_TIME_ACCOUNTING), so the kernel's config must say so.
//   - "/proc/stat": the steal column, in USER_HZ ticks (10 ms): what the kernel sampled at its
//     ticks. Coarse, but on every kernel.
// A running thread's own CPU clock excludes steal under the first source too, which is what lets a
// suite account the steal inside one of its threads' windows exactly (thread_steal.h).
// Neither source sees anything when the hypervisor publishes no steal at all (QEMU's TCG, for
// one): the host's time then lands, unseen, in whatever the guest ran. Such a guest's steal is
// unknown, not zero, and `visible()` says so.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace rtgate {

// Cumulative steal per CPU, in ns, and where it came from.
struct StealReading {
  std::map<int, std::int64_t> ns;
  std::string source;  // "steal clock (sched/debug)" | "/proc/stat" | "" when unreadable
};

// The steal columns of /proc/stat as ns (ticks x 1e9 / USER_HZ).
std::map<int, std::int64_t> parse_proc_stat_steal(std::string_view text, long user_hz);
// Each CPU's `.clock - .clock_task` in the scheduler's debug file, in ns.
std::map<int, std::int64_t> parse_sched_debug_steal(std::string_view text);
// Whether a kernel config text lets `.clock - .clock_task` stand for steal alone:
// PARAVIRT_TIME_ACCOUNTING set and IRQ_TIME_ACCOUNTING not.
bool config_gives_steal_clock(std::string_view config);

// Whether a machine's steal can be seen: on bare metal (no hypervisor) there is none to see; a
// guest sees it when the hypervisor advertises steal time (KVM's feature bit) or once any steal has
// been counted since boot. Empty when visible, else why not.
std::string steal_invisible_because(bool hypervisor, bool advertises_steal_time,
                                    bool steal_counted);

class CpuSteal {
 public:
  // Picks the source once. `sched_debug` and `config` empty: the running kernel's (debugfs
  // sched/debug or /proc/sched_debug; /boot/config-$(uname -r) or /proc/config.gz).
  explicit CpuSteal(std::string sched_debug = "", std::string config = "");

  StealReading read() const;
  // "steal clock (sched/debug)", "/proc/stat (10 ms ticks)", with why the better one is not used.
  const std::string& describe() const { return describe_; }
  bool nanosecond() const { return use_clock_; }
  // False in a guest whose hypervisor publishes no steal: readings are then zeros that mean
  // "unknown", and a verdict must not take them as "the host left this CPU alone".
  bool visible() const { return visible_; }

 private:
  std::string sched_debug_;
  bool use_clock_ = false;
  bool visible_ = true;
  std::string describe_;
};

}  // namespace rtgate
