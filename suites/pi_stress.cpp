// pi.stress: pi_stress-style, inversions as fast as possible through one PI lock.
//
// N groups of three SCHED_FIFO threads, each group on one CPU. Every round:
//   low  takes the lock, meets the others at barrier A, works `low_work_ns`, unlocks;
//   high meets at A, opens mid's gate, then locks (blocking: low holds it) and unlocks;
//   mid  meets at A, sleeps until high opens the gate, then spins until high is through.
// With working PI, high's block boosts low above mid, low finishes, and high gets through; the
// round completes. Without it mid starves low and the group deadlocks.
//
// Why the gate: leaving barrier A does not mean the others have. Whichever thread arrives last
// completes the phase and then wakes the sleepers; if that is low, high is runnable only once
// low's futex wake reaches it. mid may see the phase complete before that (woken by another
// group's notify: libstdc++'s barrier sleeps on a proxy futex shared by address hash, and on
// PREEMPT_RT a futex wake can block on the hash bucket lock, a sleeping lock). A mid spinning
// then starves low inside its wake of high: high never reaches the lock, nothing is inherited,
// and the group 'deadlocks' with PI working (seen under Debian's 6.1 PREEMPT_RT kernel). So mid
// spins only once high is past the barrier, on its way into the lock: from then on high is
// running or blocked in the kernel on something that boosts its owner. mid's spin is bounded by
// `deadlock_ms` of mid's own CPU time: past it the group is declared deadlocked ("group N
// deadlocked"), the suite fails, and mid stops spinning so that the machine and the run recover.
// CPU time, not wall time: with PI working low preempts mid, so mid's clock stands still however
// long the round takes, and it stands still too while the host has the vCPU (steal) or the
// kernel's CFS protection (RT throttling, the fair server) runs SCHED_OTHER tasks, since the RT
// class saturates each group's CPU here. Only mid spinning while low starves counts. A round
// held off that long in wall time (4 x deadlock_ms) by anything else ends mid's spin as well,
// counted apart ("held_off"), so the watchdog never sees a stalled group. Throughput is
// inversions (completed rounds) per second.
#include <algorithm>
#include <barrier>
#include <memory>

#include "framework/measure/busy.h"
#include "framework/measure/run_context.h"
#include "framework/registry.h"
#include "framework/rt/rt_thread.h"
#include "locks/futex.h"
#include "locks/lock_selection.h"
#include "locks/thread_prelude.h"

namespace {

using rtgate::ParamSpec;
using rtgate::rt::RtThread;
using rtgate::rt::ThreadSpec;

// Cache-line aligned: one group's barriers and flags never share a line with another group's.
struct alignas(64) Group {
  explicit Group(rtgate::LiveStats& live_) : live(live_) {}
  std::unique_ptr<rtgate::locks::AnyLock> lock;
  std::barrier<> a{3}, b{3};
  std::atomic<std::uint64_t> high_done{0};  // the last round high got through
  // mid's gate: the round high is in (low 31 bits), kMidAsleep while mid sleeps on it (a futex).
  std::atomic<std::uint32_t> high_in{0};
  std::atomic<bool> quit{false};  // set by mid on deadlock or at the end
  bool deadlocked = false;        // written by mid only
  std::uint64_t held_off = 0;     // rounds mid gave up on in wall time; mid only
  std::uint64_t rounds = 0;       // written by high only
  rtgate::LiveStats& live;
};

constexpr std::uint32_t kMidAsleep = 1u << 31;

std::uint32_t gate_round(std::uint64_t round) {
  return static_cast<std::uint32_t>(round) & ~kMidAsleep;
}

// high: past barrier A in `round`. Wakes mid only if it sleeps on the gate.
void open_gate(Group& g, std::uint64_t round) {
  if ((g.high_in.exchange(gate_round(round)) & kMidAsleep) != 0) {
    rtgate::locks::futex_wake(g.high_in, 1);
  }
}

// mid: sleeps (never spins: that could starve the thread still waking high) until high is past
// barrier A in `round`.
void wait_for_gate(Group& g, std::uint64_t round) {
  const std::uint32_t want = gate_round(round);
  for (std::uint32_t v = g.high_in.load(); (v & ~kMidAsleep) != want; v = g.high_in.load()) {
    if ((v & kMidAsleep) == 0 && !g.high_in.compare_exchange_strong(v, v | kMidAsleep)) continue;
    rtgate::locks::futex_wait(g.high_in, v | kMidAsleep);  // EAGAIN, EINTR: look again
  }
}

struct Timing {
  std::int64_t end_ns, low_work_ns, deadlock_ns, held_off_ns;
};

void low_body(Group& g, const Timing& t) {
  rtgate::locks::prepare_lock_thread();
  for (std::uint64_t round = 1;; ++round) {
    g.lock->lock();
    g.a.arrive_and_wait();
    if (g.quit.load()) {
      g.lock->unlock();
      g.b.arrive_and_wait();
      return;
    }
    rtgate::burn_cpu_ns(t.low_work_ns, t.deadlock_ns);
    g.lock->unlock();
    g.b.arrive_and_wait();
  }
}

void high_body(Group& g) {
  rtgate::locks::prepare_lock_thread();
  g.live.tid.store(gettid());
  for (std::uint64_t round = 1;; ++round) {
    g.a.arrive_and_wait();
    if (g.quit.load()) {
      g.b.arrive_and_wait();
      return;
    }
    open_gate(g, round);
    g.lock->lock();
    g.lock->unlock();
    g.high_done.store(round);
    g.rounds = round;
    g.live.publish(round, 0);
    g.b.arrive_and_wait();
  }
}

// mid decides when the group ends: at the end of the run, on a stop request, or on deadlock.
void mid_body(Group& g, const Timing& t, const std::atomic<bool>& stop) {
  rtgate::locks::prepare_lock_thread();
  for (std::uint64_t round = 1;; ++round) {
    if (rtgate::monotonic_ns() >= t.end_ns || stop.load(std::memory_order_relaxed) ||
        g.deadlocked) {
      g.quit.store(true);
    }
    g.a.arrive_and_wait();
    if (g.quit.load()) {
      g.b.arrive_and_wait();
      return;
    }
    wait_for_gate(g, round);
    const std::int64_t cpu0 = rtgate::thread_cpu_ns();
    const std::int64_t held_off = rtgate::monotonic_ns() + t.held_off_ns;
    while (g.high_done.load(std::memory_order_acquire) != round) {
      // Stop spinning either way: low can run, high gets through, the round ends.
      if (rtgate::thread_cpu_ns() - cpu0 >= t.deadlock_ns) {
        g.deadlocked = true;
        break;
      }
      if (rtgate::monotonic_ns() >= held_off) {
        ++g.held_off;
        break;
      }
    }
    g.b.arrive_and_wait();
  }
}

// After a failed start: every group ends at its next round, and in the group whose three
// threads did not all start, the missing ones drop out of both barriers, or the others would
// wait there forever. `started`: the threads that did start, three a group in order.
void release_groups(std::vector<std::unique_ptr<Group>>& groups, std::size_t started) {
  for (auto& g : groups) g->quit.store(true);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const std::size_t in_group = std::min<std::size_t>(3, started - std::min(started, 3 * i));
    if (in_group == 0 || in_group == 3) continue;
    for (std::size_t k = in_group; k < 3; ++k) {
      groups[i]->a.arrive_and_drop();
      groups[i]->b.arrive_and_drop();
    }
  }
}

// One group's case: its inversions per second and what went wrong in its rounds.
rtgate::Case case_of(std::size_t i, const Group& g, const std::string& lock, int cpu,
                     double seconds) {
  rtgate::Case c;
  c.name = "group" + std::to_string(i);
  c.labels = {{"lock", lock}, {"cpu", std::to_string(cpu)}, {"thread_class", "rt"}};
  c.metrics.push_back(rtgate::Metric::throughput("inversions", "inversions/s",
                                                 static_cast<double>(g.rounds) / seconds));
  c.metrics.push_back(rtgate::Metric::count("deadlocks", g.deadlocked ? 1 : 0, "groups",
                                            rtgate::Metric::Gating::kReported));
  c.metrics.push_back(rtgate::Metric::count("held_off", static_cast<double>(g.held_off), "rounds",
                                            rtgate::Metric::Gating::kReported));
  return c;
}

rtgate::SuiteResult run(const rtgate::Params& p, rtgate::RunContext& ctx) {
  const auto* info = rtgate::locks::LockCatalogue::instance().find(p.get_string("lock"));
  const std::vector<int>& cpus = ctx.cpus();
  const auto n = static_cast<std::size_t>(
      p.get_int("groups") > 0 ? p.get_int("groups") : static_cast<std::int64_t>(cpus.size()));
  const int low = static_cast<int>(p.get_int("low_prio"));
  // Deadlock detection must end mid's spin before the watchdog sees the group stalled (it would
  // end the suite as "error" and demote the group's published thread, not the spinner): the
  // wall-time bound at most half the watchdog's stall time.
  const std::int64_t asked_ns = p.get_int("deadlock_ms") * 1'000'000;
  const auto cap_ns = static_cast<std::int64_t>(ctx.watchdog_s() * 0.5e9);
  // The CPU-time bound a quarter of it, so that a real deadlock (mid's CPU time running with
  // the wall clock) is found before the wall-time bound.
  const std::int64_t deadlock_ns = std::min(asked_ns, cap_ns / 2);
  const Timing t{.end_ns = rtgate::monotonic_ns() + ctx.duration_ns(),
                 .low_work_ns = p.get_int("low_work_us") * 1000,
                 .deadlock_ns = deadlock_ns,
                 .held_off_ns = std::min(4 * deadlock_ns, cap_ns)};
  std::vector<std::unique_ptr<Group>> groups;
  for (std::size_t i = 0; i < n; ++i) {
    groups.push_back(std::make_unique<Group>(ctx.track("group" + std::to_string(i))));
    groups.back()->lock = info->make();
  }
  const std::int64_t t0 = rtgate::monotonic_ns();
  {
    std::vector<std::unique_ptr<RtThread>> threads;
    try {
      for (std::size_t i = 0; i < n; ++i) {
        Group* g = groups[i].get();
        const std::vector<int> on = {cpus[i % cpus.size()]};
        const std::string id = std::to_string(i);
        threads.push_back(std::make_unique<RtThread>(
            ThreadSpec{.name = "pis-low" + id, .priority = low, .cpus = on},
            [g, &t] { low_body(*g, t); }));
        threads.push_back(std::make_unique<RtThread>(
            ThreadSpec{.name = "pis-mid" + id, .priority = low + 1, .cpus = on},
            [g, &t, &ctx] { mid_body(*g, t, ctx.stop_flag()); }));
        threads.push_back(std::make_unique<RtThread>(
            ThreadSpec{.name = "pis-high" + id, .priority = low + 2, .cpus = on},
            [g] { high_body(*g); }));
      }
    } catch (...) {
      ctx.request_stop();
      release_groups(groups, threads.size());
      throw;
    }
  }  // joins
  const double seconds = static_cast<double>(rtgate::monotonic_ns() - t0) / 1e9;

  rtgate::SuiteResult result;
  std::string deadlocked;
  for (std::size_t i = 0; i < n; ++i) {
    const Group& g = *groups[i];
    result.cases.push_back(case_of(i, g, info->name, cpus[i % cpus.size()], seconds));
    if (g.deadlocked)
      deadlocked += (deadlocked.empty() ? "group " : ", group ") + std::to_string(i);
  }
  if (!deadlocked.empty()) {
    result.status = rtgate::SuiteStatus::kFailed;
    result.reason = deadlocked + " deadlocked: mid starved low for " +
                    std::to_string(t.deadlock_ns / 1'000'000) +
                    " ms of its CPU time (no priority inheritance?)";
  }
  if (t.deadlock_ns < asked_ns) {
    result.reason += (result.reason.empty() ? "" : "; ") + std::string("deadlock_ms ") +
                     std::to_string(asked_ns / 1'000'000) + " capped at " +
                     std::to_string(t.deadlock_ns / 1'000'000) +
                     " ms, a quarter of the --watchdog stall time";
  }
  return result;
}

std::string validate(const rtgate::Params& p) {
  const auto* info = rtgate::locks::LockCatalogue::instance().find(p.get_string("lock"));
  if (info == nullptr) return rtgate::locks::select_locks(p.get_string("lock")).error;
  if (info->kind == rtgate::locks::LockKind::kSpin) {
    return "lock '" + info->name + "' spins: high would spin on low's CPU forever";
  }
  return "";
}

}  // namespace

RTGATE_SUITE(
    {.name = "pi.stress",
     .tags = {"pi", "rt", "stress"},
     .summary = "pi_stress-style: groups of 3 FIFO threads drive inversions through a PI lock",
     .params = {ParamSpec::string("lock", "pi_mutex",
                                  "the lock (a non-PI lock shows the deadlock detection)"),
                ParamSpec::integer("groups", 0, 0, 256, "", "groups of three (0: one per CPU)"),
                ParamSpec::integer("low_prio", 10, 1, 94, "",
                                   "low's FIFO priority; mid and high run 1 and 2 above"),
                ParamSpec::integer("low_work_us", 20, 0, 100'000, "us",
                                   "low's CPU time inside the lock per round"),
                ParamSpec::integer("deadlock_ms", 1000, 10, 60'000, "ms",
                                   "a group whose round takes longer is deadlocked")},
     .needs = rtgate::Needs::kSchedFifo,
     .run = &run,
     .validate = &validate});
