#include "suites/pi_inversion/inversion_scenario.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdlib>
#include <memory>
#include <optional>

#include "base/io/proc_files.h"
#include "framework/measure/busy.h"
#include "framework/measure/thread_times.h"
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

// Sleeps in the kernel until `word` is not 0 or `limit_ns` has passed. A sleeping wait, not a
// spin: mid parks on low's CPU above low, and must not take that CPU before high starts.
void park_until_set(std::atomic<std::uint32_t>& word, std::int64_t limit_ns) {
  const std::int64_t end = monotonic_ns() + limit_ns;
  while (word.load() == 0) {
    const std::int64_t left = end - monotonic_ns();
    if (left <= 0) return;
    const timespec ts{static_cast<time_t>(left / 1'000'000'000),
                      static_cast<long>(left % 1'000'000'000)};
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT_PRIVATE, 0u, &ts,
            nullptr, 0);
  }
}

void wake(std::atomic<std::uint32_t>& word) {
  word.store(1);
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE_PRIVATE, 1, nullptr,
          nullptr, 0);
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

// Evidence while high waits, until it is done: its state, and low's highest effective priority.
void watch_high(const std::atomic<bool>& high_done, int high_tid, int low_tid,
                std::int64_t limit_ns, InversionResult& r) {
  const std::int64_t end = monotonic_ns() + limit_ns;
  while (!high_done.load() && monotonic_ns() < end) {
    const char state = kernel_state(high_tid);
    const int low_prio = kernel_priority(low_tid);
    if (high_done.load()) break;
    if (state == 'S' || state == 'D') {
      r.high_prio_reported = kernel_priority(high_tid);
      if (!r.high_seen_blocked || low_prio < r.low_prio_while_blocked) {
        r.low_prio_while_blocked = low_prio;
      }
      r.high_seen_blocked = true;
      r.high_state_seen = state;
    }
  }
}

// Low takes the lock and waits; mid and high start; high blocks on the lock with mid runnable.
// What happened goes into `r`. Every wait is bounded by `limit_ns`.
void run_scenario(const InversionSetup& s, int cpu, std::int64_t limit_ns, InversionResult& r) {
  std::atomic<bool> low_holds{false}, high_started{false}, high_done{false};
  std::atomic<std::uint32_t> mid_go{0}, low_go{0};
  std::atomic<int> high_tid{0};
  std::atomic<std::int64_t> low_released_at{0}, high_called_at{0}, high_returned_at{0},
      mid_started_at{0};
  std::unique_ptr<RtThread> low, high, mid;
  low = std::make_unique<RtThread>(
      ThreadSpec{.name = "inv-low", .priority = s.low_prio, .cpus = {cpu}}, [&] {
        const ThreadTimesReader times;
        s.low_acquire();
        low_holds = true;
        // Holding the lock, low sleeps until high runs: its critical section starts only then,
        // however long the conductor takes to create mid and high (tens of ms under TCG).
        park_until_set(low_go, limit_ns);
        const ThreadTimes start = times.now();
        r.low_gaps_ns = burn_cpu_ns(s.critical_ns, limit_ns);
        const ThreadTimes end = times.now();
        r.low_window = split_window(start, end);
        low_released_at = end.wall_ns;
        s.low_release();
      });
  wait_for(low_holds, limit_ns);
  mid = std::make_unique<RtThread>(
      ThreadSpec{.name = "inv-mid", .priority = s.mid_prio, .cpus = {cpu}}, [&] {
        park_until_set(mid_go, limit_ns);
        mid_started_at = monotonic_ns();
        spin_for_ns(s.spin_ns);
      });
  mid->tid();  // started: from here on it is parked, or about to park, above low
  high = std::make_unique<RtThread>(
      ThreadSpec{.name = "inv-high", .priority = s.high_prio, .cpus = {cpu}}, [&] {
        high_tid = gettid();
        high_started = true;
        // Low and mid are runnable now, but below high until high blocks.
        wake(low_go);
        wake(mid_go);
        const std::int64_t t0 = monotonic_ns();
        high_called_at = t0;
        s.high_acquire();
        high_returned_at = monotonic_ns();
        r.high_wait_ns = high_returned_at - t0;
        s.high_release();
        high_done = true;
      });
  wait_for(high_started, limit_ns);
  watch_high(high_done, high_tid.load(), low->tid(), limit_ns, r);
  high->join();
  low->join();
  mid->join();
  r.contended = high_called_at.load() != 0 && high_called_at.load() < low_released_at.load();
  r.mid_ran_while_high_waited =
      mid_started_at.load() != 0 && mid_started_at.load() < high_returned_at.load();
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

  // The conductor runs the scenario above the three, on another CPU; a thread that cannot be
  // made, there or in the scenario, is the round's error.
  const int top = std::max({s.low_prio, s.mid_prio, s.high_prio});
  const ThreadSpec conductor{.name = "inv-conductor", .priority = top + 1, .cpus = {conductor_cpu}};
  try {
    RtThread(conductor, [&] {
      try {
        run_scenario(s, cpu, limit_ns, r);
      } catch (const RtError& e) {
        r.error = e.what();
      }
    }).join();
  } catch (const RtError& e) {
    r.error = e.what();
  }
  return r;
}

}  // namespace rtgate::rt
