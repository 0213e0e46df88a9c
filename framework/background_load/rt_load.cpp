// rt:N[:PRIO[:DUTY]] — N competing SCHED_FIFO spinners, pinned round-robin over the allowed
// CPUs, each spinning DUTY% of every 10 ms period and sleeping the rest: RT competition that
// preempts everything below PRIO yet never wedges a CPU.
#include <time.h>

#include <cstdio>

#include "framework/background_load/load_registry.h"
#include "framework/background_load/workers.h"
#include "framework/measure/clock.h"
#include "framework/rt/cpu_list.h"

namespace rtgate::load {
namespace {

constexpr int kMaxThreads = 256;
constexpr int kDefaultPriority = 50;
constexpr int kMaxPriority = 98;  // 99 belongs to rtgate's watchdog
constexpr int kDefaultDuty = 20;
constexpr int kMaxDuty = 90;
constexpr std::int64_t kPeriodNs = 10'000'000;

class RtLoad final : public Load {
 public:
  RtLoad(int threads, int priority, int duty)
      : threads_(threads), priority_(priority), duty_(duty) {}
  ~RtLoad() override { stop(); }

  void start() override {
    const std::vector<int> cpus = rt::allowed_cpus();
    if (cpus.empty()) throw LoadError("rt: no CPU in this thread's affinity mask");
    // Every spinner shares one phase: the spin window is absolute time, so spinners that share
    // a CPU take turns inside the same window and that CPU stays at DUTY%, not a multiple.
    epoch_ns_ = monotonic_ns() + kPeriodNs / 10;
    try {
      workers_.start(
          threads_,
          [&](int i) {
            return rt::ThreadSpec{.name = "load-rt" + std::to_string(i),
                                  .policy = rt::Policy::kFifo,
                                  .priority = priority_,
                                  .cpus = {cpus[static_cast<std::size_t>(i) % cpus.size()]}};
          },
          [this](int, Workers::Counter& ops) { spin(ops); });
    } catch (const LoadError& e) {
      stop();
      throw LoadError(std::string("rt: cannot create a SCHED_FIFO spinner: ") + e.what());
    }
  }

  void stop() override { workers_.stop(); }

  LoadReport report() const override {
    LoadReport r = workers_.report("rt", spec(), threads_, "spins");
    char note[160];
    std::snprintf(note, sizeof note,
                  "SCHED_FIFO %d, %d%% of each %lld ms period; measured CPU time %.1f%% per thread",
                  priority_, duty_, static_cast<long long>(kPeriodNs / 1'000'000),
                  measured_duty_percent(r.seconds));
    r.note = note;
    return r;
  }

 private:
  std::string spec() const {
    return "rt:" + std::to_string(threads_) + ":" + std::to_string(priority_) + ":" +
           std::to_string(duty_);
  }

  void spin(Workers::Counter& ops) {
    const std::int64_t spin_ns = kPeriodNs * duty_ / 100;
    std::int64_t period_start = epoch_ns_;
    while (true) {
      sleep_until_ns(period_start);  // absolute, so the schedule does not drift with wakeup delay
      if (workers_.stopping()) break;
      // The window ends at an absolute time: a spinner that woke late or was preempted spins
      // less, never past its window.
      const std::int64_t end = period_start + spin_ns;
      while (monotonic_ns() < end) {
      }
      ops.add(1);
      period_start += kPeriodNs;
      // After a long preemption, skip the missed periods instead of running them back to back.
      const std::int64_t now = monotonic_ns();
      if (period_start <= now) period_start += ((now - period_start) / kPeriodNs + 1) * kPeriodNs;
    }
    timespec cpu{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
    cpu_ns_.fetch_add(static_cast<std::int64_t>(cpu.tv_sec) * 1'000'000'000 + cpu.tv_nsec);
  }

  // From the spinners' own CPU clocks, added up as they exit: known once the load has stopped.
  double measured_duty_percent(double seconds) const {
    if (seconds <= 0) return 0;
    return 100.0 * static_cast<double>(cpu_ns_.load()) * 1e-9 / (seconds * threads_);
  }

  int threads_;
  int priority_;
  int duty_;
  std::int64_t epoch_ns_ = 0;
  std::atomic<std::int64_t> cpu_ns_{0};
  Workers workers_;  // last: destroyed (joined) before the members its threads use
};

std::unique_ptr<Load> make(const std::vector<std::string>& args, std::string* error) {
  int n = 1;
  int priority = kDefaultPriority;
  int duty = kDefaultDuty;
  if (!check_arg_count(args, 3, error)) return nullptr;
  if (!args.empty() && !parse_int_arg(args[0], "thread count", 1, kMaxThreads, &n, error)) {
    return nullptr;
  }
  if (args.size() > 1 && !parse_int_arg(args[1], "priority", 1, kMaxPriority, &priority, error)) {
    return nullptr;
  }
  if (args.size() > 2 && !parse_int_arg(args[2], "duty percent", 1, kMaxDuty, &duty, error)) {
    return nullptr;
  }
  return std::make_unique<RtLoad>(n, priority, duty);
}

}  // namespace
}  // namespace rtgate::load

RTGATE_LOAD_KIND(rt, {.name = "rt",
                      .usage = "rt[:N[:PRIO[:DUTY]]]",
                      .help = "N SCHED_FIFO spinners (PRIO 1-98, default 50) pinned round-robin, "
                              "spinning DUTY% (1-90, default 20) of each 10 ms (ops: periods)",
                      .make = &rtgate::load::make});
