#include "framework/rt/inversion_scenario.h"

#include <time.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdlib>
#include <memory>
#include <optional>

#include "framework/measure/busy.h"
#include "framework/proc_files.h"
#include "framework/rt/cpu_list.h"
#include "framework/rt/rt_thread.h"

namespace rtgate::rt {
namespace {

// Fields after the ")" that closes comm: state is field 3, priority field 18.
std::optional<std::string> stat_field(int tid, int field) {
  const auto text = proc::read_file("/proc/self/task/" + std::to_string(tid) + "/stat");
  if (!text) return std::nullopt;
  const auto close = text->rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::size_t pos = close + 2;
  for (int f = 3; f < field; ++f) {
    pos = text->find(' ', pos);
    if (pos == std::string::npos) return std::nullopt;
    ++pos;
  }
  return text->substr(pos, text->find(' ', pos) - pos);
}

void wait_for(const std::atomic<bool>& flag, std::int64_t limit_ns) {
  const std::int64_t end = monotonic_ns() + limit_ns;
  while (!flag.load() && monotonic_ns() < end) {
  }
}

}  // namespace

int kernel_priority(int tid) {
  const auto f = stat_field(tid, 18);
  return f ? std::atoi(f->c_str()) : INT_MIN;
}

char kernel_state(int tid) {
  const auto f = stat_field(tid, 3);
  return f && !f->empty() ? (*f)[0] : '?';
}

InversionResult run_inversion(const InversionSetup& s) {
  InversionResult r;
  const std::vector<int> cpus = allowed_cpus();
  if (cpus.size() < 2) {
    r.error = "needs two CPUs (one for the scenario, one for the conductor)";
    return r;
  }
  const int cpu = s.cpu >= 0 ? s.cpu : cpus.back();
  const int conductor_cpu = cpus.front() == cpu ? cpus[1] : cpus.front();
  // Every wait below is bounded by this, so a lock that never grants cannot hang a test.
  const std::int64_t limit_ns = 10 * (s.spin_ns + s.critical_ns) + 1'000'000'000;

  auto scenario = [&] {
    std::atomic<bool> low_holds{false}, high_started{false}, high_done{false};
    std::atomic<int> high_tid{0};
    std::unique_ptr<RtThread> low, high, mid;
    low = std::make_unique<RtThread>(
        ThreadSpec{.name = "inv-low", .priority = s.low_prio, .cpus = {cpu}}, [&] {
          s.low_acquire();
          low_holds = true;
          burn_cpu_ns(s.critical_ns, limit_ns);
          s.low_release();
        });
    wait_for(low_holds, limit_ns);
    high = std::make_unique<RtThread>(
        ThreadSpec{.name = "inv-high", .priority = s.high_prio, .cpus = {cpu}}, [&] {
          high_tid = gettid();
          high_started = true;
          const std::int64_t t0 = monotonic_ns();
          s.high_acquire();
          r.high_wait_ns = monotonic_ns() - t0;
          s.high_release();
          high_done = true;
        });
    wait_for(high_started, limit_ns);
    // High is blocked once the kernel shows it sleeping (or it already got the lock).
    const std::int64_t end = monotonic_ns() + limit_ns;
    while (!high_done.load() && kernel_state(high_tid) != 'S' && monotonic_ns() < end) {
    }
    r.high_blocked = !high_done.load() && kernel_state(high_tid) == 'S';
    r.low_prio_while_blocked = kernel_priority(low->tid());
    r.high_prio_reported = kernel_priority(high_tid);
    mid = std::make_unique<RtThread>(
        ThreadSpec{.name = "inv-mid", .priority = s.mid_prio, .cpus = {cpu}}, [&] {
          spin_for_ns(s.spin_ns);
        });
    high->join();
    low->join();
    mid->join();
  };
  auto body = [&] {
    try {
      scenario();
    } catch (const RtError& e) {
      r.error = e.what();
    }
  };

  try {
    const int top = std::max({s.low_prio, s.mid_prio, s.high_prio});
    RtThread conductor(
        ThreadSpec{.name = "inv-conductor", .priority = top + 1, .cpus = {conductor_cpu}}, body);
    conductor.join();
  } catch (const RtError& e) {
    r.error = e.what();
  }
  return r;
}

}  // namespace rtgate::rt
