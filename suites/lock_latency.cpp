// lock.latency: how long an RT thread waits for a lock that non-RT threads are hammering.
//
// Per selected lock: R SCHED_FIFO threads wake on an absolute-time schedule (their wakeup
// latency is recorded as a control), then take the lock (acquisition latency), hold it
// `rt_hold_ns`, and release it (release latency: the unlock call, which for PI locks may hand
// the lock over in the kernel). Meanwhile W SCHED_OTHER threads take the same lock as fast as
// they can, holding it `nonrt_hold_ns`; for reader/writer locks a `write_ratio` of their
// operations are writes, and the RT threads read or write as `rt_mode` says. `--load` runs
// beside. The duration is split evenly over the locks.
#include <unistd.h>

#include <algorithm>
#include <memory>

#include "base/stats/summary.h"
#include "framework/measure/busy.h"
#include "framework/measure/periodic_loop.h"
#include "framework/measure/run_context.h"
#include "framework/measure/start_line.h"
#include "framework/registry.h"
#include "framework/rt/rt_thread.h"
#include "locks/lock_selection.h"
#include "locks/thread_prelude.h"

namespace {

using rtgate::ParamSpec;
using rtgate::locks::AnyLock;
using rtgate::locks::LockInfo;
using rtgate::locks::LockKind;

struct Config {
  int rt, nonrt, priority;
  std::int64_t interval_ns, rt_hold_ns, nonrt_hold_ns, think_ns;
  double write_ratio;
  bool rt_reads;
};

// One RT thread's recorders, built by the thread itself before the start line (on its own CPU and
// NUMA node, see StartLine::prepare_and_wait), cache-line aligned.
struct alignas(64) RtSide {
  RtSide(const Config& c, std::size_t blocks, rtgate::LiveStats& live_)
      : live(live_), wakeup(c.interval_ns, 1'000'000'000, blocks, live_) {}
  rtgate::LiveStats& live;
  rtgate::PeriodicRecorder wakeup;
  rtgate::LatencyHistogram acquire, release;
};

// The periodic loop, taking the lock after each wakeup. When it ends it marks the thread done, so
// the watchdog stops watching it (later lock cases run long after this one ends).
void rt_loop(RtSide& s, AnyLock& lock, const Config& c, std::int64_t start, std::int64_t end,
             const std::atomic<bool>& stop, rtgate::SampleHook* hook) {
  rtgate::PeriodicLoop(s.wakeup, s.live, c.interval_ns, hook).run(start, end, stop, [&] {
    const std::int64_t t0 = rtgate::monotonic_ns();
    c.rt_reads ? lock.lock_shared() : lock.lock();
    const std::int64_t t1 = rtgate::monotonic_ns();
    rtgate::spin_for_ns(c.rt_hold_ns);
    const std::int64_t t2 = rtgate::monotonic_ns();
    c.rt_reads ? lock.unlock_shared() : lock.unlock();
    s.acquire.record(t1 - t0);
    s.release.record(rtgate::monotonic_ns() - t2);
  });
}

// A non-RT hammer: xorshift decides read or write, so the mix is exact on average and cheap.
std::uint64_t nonrt_loop(AnyLock& lock, const Config& c, bool rw, std::uint64_t seed,
                         const std::atomic<bool>& done, const std::atomic<bool>& stop) {
  std::uint64_t ops = 0, x = seed | 1;
  const auto write_below = static_cast<std::uint64_t>(c.write_ratio * 1024.0);
  while (!stop.load(std::memory_order_relaxed) && !done.load(std::memory_order_relaxed)) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const bool write = !rw || (x & 1023) < write_below;
    write ? lock.lock() : lock.lock_shared();
    rtgate::spin_for_ns(c.nonrt_hold_ns);
    write ? lock.unlock() : lock.unlock_shared();
    ++ops;
    if (c.think_ns > 0) rtgate::spin_for_ns(c.think_ns);
  }
  return ops;
}

// Where the threads go: RT thread i on cpus[i % n]; the non-RT hammers on the CPUs no RT thread
// uses, so that an RT waiter never spins on the CPU of a holder it preempted. Empty `hammer`
// when the RT threads use every CPU.
struct Layout {
  std::vector<int> rt, hammer;
};

Layout layout_of(const std::vector<int>& cpus, int rt_threads) {
  Layout l;
  for (int i = 0; i < rt_threads && !cpus.empty(); ++i) {
    l.rt.push_back(cpus[static_cast<std::size_t>(i) % cpus.size()]);
  }
  for (int cpu : cpus) {
    if (std::find(l.rt.begin(), l.rt.end(), cpu) == l.rt.end()) l.hammer.push_back(cpu);
  }
  return l;
}

// The lock's case: the RT threads' latencies merged, and the hammers' throughput per second of
// the time they ran (`ran_s`: a stop request shortens it; not the planned slice).
rtgate::Case case_of(const LockInfo& info, const std::vector<std::unique_ptr<RtSide>>& rt,
                     const std::vector<std::uint64_t>& counts, double ran_s) {
  rtgate::Case out;
  out.name = info.name;
  out.labels = {{"lock", info.name},
                {"kind", rtgate::locks::to_string(info.kind)},
                {"pi", rtgate::locks::to_string(info.pi)},
                {"thread_class", "rt"}};
  rtgate::LatencyHistogram acquire, release, wakeup;
  std::vector<double> wake_blocks;
  std::uint64_t skipped = 0, overran = 0;
  for (auto& s : rt) {
    if (!s) continue;  // its thread failed to build it: the run ends as an error saying why
    overran += s->wakeup.work_overruns();
    skipped += s->wakeup.work_skipped();
    acquire.merge(s->acquire);
    release.merge(s->release);
    wakeup.merge(s->wakeup.histogram());
    skipped += s->wakeup.missed_periods();
    const auto& b = s->wakeup.block_maxima();
    wake_blocks.insert(wake_blocks.end(), b.begin(), b.end());
  }
  const double acq_max = static_cast<double>(acquire.max());
  out.metrics.push_back(rtgate::Metric::latency("acquire_latency", std::move(acquire), {acq_max}));
  const double rel_max = static_cast<double>(release.max());
  out.metrics.push_back(rtgate::Metric::latency("release_latency", std::move(release), {rel_max}));
  out.metrics.push_back(
      rtgate::Metric::latency("wakeup_latency", std::move(wakeup), std::move(wake_blocks)));
  std::vector<double> per_thread(counts.begin(), counts.end());
  double total = 0;
  for (double v : per_thread) total += v;
  out.metrics.push_back(rtgate::Metric::throughput("nonrt_throughput", "ops/s", total / ran_s));
  out.metrics.push_back(rtgate::Metric::count("nonrt_fairness_cv",
                                              rtgate::stats::coeff_var(per_thread), "%",
                                              rtgate::Metric::Gating::kReported));
  out.metrics.push_back(rtgate::Metric::count("skipped_periods", static_cast<double>(skipped),
                                              "periods", rtgate::Metric::Gating::kEventRate));
  // RT critical sections (acquire + hold + release) that ran past the next deadline: the
  // schedule re-anchors after them, so they do not show up as wakeup latency (the deadlines they
  // used up are among skipped_periods, with those a late wakeup swallowed).
  out.metrics.push_back(rtgate::Metric::count("overran_periods", static_cast<double>(overran),
                                              "periods", rtgate::Metric::Gating::kEventRate));
  return out;
}

rtgate::Case measure_lock(const LockInfo& info, const Config& c, std::int64_t slice_ns,
                          rtgate::RunContext& ctx) {
  auto lock = info.make();
  const bool rw = info.kind == LockKind::kRw;
  Config cfg = c;
  cfg.rt_reads = c.rt_reads && rw;
  const Layout cpus = layout_of(ctx.cpus(), c.rt);
  std::vector<rtgate::LiveStats*> lives;
  for (int i = 0; i < c.rt; ++i)
    lives.push_back(&ctx.track(info.name + "/rt" + std::to_string(i), info.name));
  std::vector<std::unique_ptr<RtSide>> rt(static_cast<std::size_t>(c.rt));
  const auto blocks = static_cast<std::size_t>(slice_ns / 1'000'000'000) + 2;
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(c.nonrt), 0);
  // The hammers run from before the RT threads start until after they end; the RT threads'
  // common start is fixed once all of them run (StartLine), then each measures slice_ns.
  rtgate::StartLine start_line(c.rt, 1'000'000);
  std::atomic<bool> hammers_done{false};
  const std::int64_t hammers_started = rtgate::monotonic_ns();
  std::int64_t hammers_ended = 0;
  {
    // Hammers are born on the non-RT CPUs (all CPUs when the RT threads leave none: only locks
    // that are safe that way get here, see run()).
    std::vector<std::unique_ptr<rtgate::rt::RtThread>> hammers, threads;
    try {
      for (int i = 0; i < c.nonrt; ++i) {
        hammers.push_back(std::make_unique<rtgate::rt::RtThread>(
            rtgate::rt::ThreadSpec{.name = "rtgate-hammer" + std::to_string(i),
                                   .policy = rtgate::rt::Policy::kOther,
                                   .cpus = cpus.hammer},
            [&, i] {
              rtgate::locks::prepare_lock_thread();
              counts[static_cast<std::size_t>(i)] =
                  nonrt_loop(*lock, cfg, rw, 0x9e3779b97f4a7c15ull * static_cast<unsigned>(i + 1),
                             hammers_done, ctx.stop_flag());
            }));
      }
      for (int i = 0; i < c.rt; ++i) {
        const auto k = static_cast<std::size_t>(i);
        threads.push_back(std::make_unique<rtgate::rt::RtThread>(
            rtgate::rt::ThreadSpec{.name = "rtgate-lat" + std::to_string(i),
                                   .priority = c.priority - i,
                                   .cpus = {cpus.rt[static_cast<std::size_t>(i)]}},
            [slot = &rt[k], live = lives[k], blocks, &lock, &cfg, &start_line, slice_ns, &ctx] {
              const std::int64_t start = start_line.prepare_and_wait([&] {
                rtgate::locks::prepare_lock_thread();
                *slot = std::make_unique<RtSide>(cfg, blocks, *live);
              });
              rt_loop(**slot, *lock, cfg, start, start + slice_ns, ctx.stop_flag(),
                      ctx.sample_hook());
            }));
      }
    } catch (...) {
      ctx.request_stop();
      start_line.abandon(c.rt - static_cast<int>(threads.size()));
      threads.clear();
      hammers.clear();
      throw;
    }
    if (c.rt == 0) {  // hammers alone: they run the slice
      while (!ctx.stop_requested() && rtgate::monotonic_ns() < hammers_started + slice_ns) {
        rtgate::sleep_until_ns(rtgate::monotonic_ns() + 10'000'000);
      }
    }
    threads.clear();  // joins the RT threads
    hammers_done.store(true);
    hammers.clear();
    hammers_ended = rtgate::monotonic_ns();
  }

  return case_of(
      info, rt, counts,
      static_cast<double>(std::max<std::int64_t>(1, hammers_ended - hammers_started)) / 1e9);
}

Config config_from(const rtgate::Params& p) {
  return {.rt = static_cast<int>(p.get_int("rt_threads")),
          .nonrt = static_cast<int>(p.get_int("nonrt_threads")),
          .priority = static_cast<int>(p.get_int("priority")),
          .interval_ns = p.get_int("interval_us") * 1000,
          .rt_hold_ns = p.get_int("rt_hold_ns"),
          .nonrt_hold_ns = p.get_int("nonrt_hold_ns"),
          .think_ns = p.get_int("nonrt_think_ns"),
          .write_ratio = p.get_double("write_ratio"),
          .rt_reads = p.get_string("rt_mode") == "read"};
}

rtgate::SuiteResult run(const rtgate::Params& p, rtgate::RunContext& ctx) {
  rtgate::SuiteResult result;
  auto locks = rtgate::locks::select_locks(p.get_string("locks")).locks;
  const Config c = config_from(p);
  const bool allow = p.get_bool("allow_oversubscribed_spin");
  auto dropped =
      rtgate::locks::drop_unsafe_spinlocks(locks, c.rt, static_cast<int>(ctx.cpus().size()), allow);
  // With no CPU left for the hammers they share the RT threads' CPUs: an RT waiter could spin on
  // the CPU of the SCHED_OTHER holder it preempted, forever. Only locks safe that way stay.
  if (c.nonrt > 0 && layout_of(ctx.cpus(), c.rt).hammer.empty() && !allow) {
    const auto more = rtgate::locks::drop_fifo_unsafe(
        locks, std::to_string(c.rt) + " RT threads leave no CPU of " +
                   std::to_string(ctx.cpus().size()) +
                   " for the non-RT threads; an RT waiter could spin on a preempted holder's "
                   "CPU (-p allow_oversubscribed_spin=true to measure it)");
    dropped.insert(dropped.end(), more.begin(), more.end());
  }
  for (const auto& why : dropped) result.reason += (result.reason.empty() ? "" : "; ") + why;
  if (locks.empty()) {
    result.status = rtgate::SuiteStatus::kSkipped;
    return result;
  }
  const std::int64_t slice = ctx.duration_ns() / static_cast<std::int64_t>(locks.size());
  for (const LockInfo* l : locks) {
    if (ctx.stop_requested()) break;
    result.cases.push_back(measure_lock(*l, c, slice, ctx));
  }
  return result;
}

std::string validate(const rtgate::Params& p) {
  if (const auto sel = rtgate::locks::select_locks(p.get_string("locks")); !sel.error.empty()) {
    return sel.error;
  }
  const auto rt = p.get_int("rt_threads"), nonrt = p.get_int("nonrt_threads");
  if (rt + nonrt == 0) return "rt_threads + nonrt_threads must be at least 1";
  if (p.get_int("priority") - rt + 1 < 1) {
    return "rt_threads=" + std::to_string(rt) + " needs priorities " +
           std::to_string(p.get_int("priority")) + " down to " +
           std::to_string(p.get_int("priority") - rt + 1) + ", below 1: raise priority";
  }
  return "";
}

}  // namespace

RTGATE_SUITE(
    {.name = "lock.latency",
     .tags = {"lock", "rt"},
     .summary = "RT acquisition latency of each lock while non-RT threads hammer it",
     .params = {ParamSpec::string("locks", "all",
                                  "locks: all (every lock safe for the configuration) or names"),
                ParamSpec::integer("rt_threads", 1, 0, 64, "",
                                   "SCHED_FIFO threads taking the lock periodically"),
                ParamSpec::integer("nonrt_threads", 2, 0, 256, "",
                                   "SCHED_OTHER threads hammering it"),
                ParamSpec::integer("interval_us", 1000, 50, 1'000'000, "us", "RT threads' period"),
                ParamSpec::integer("priority", 80, 1, 98, "",
                                   "priority of RT thread 0; thread i runs at priority - i"),
                ParamSpec::integer("rt_hold_ns", 2000, 0, 10'000'000, "ns", "RT critical section"),
                ParamSpec::integer("nonrt_hold_ns", 20000, 0, 100'000'000, "ns",
                                   "non-RT critical section"),
                ParamSpec::integer("nonrt_think_ns", 1000, 0, 100'000'000, "ns",
                                   "non-RT pause between operations"),
                ParamSpec::real("write_ratio", 0.5, 0.0, 1.0, "",
                                "rw locks: share of non-RT operations that write"),
                ParamSpec::choice("rt_mode", "read", {"read", "write"},
                                  "rw locks: RT threads read or write"),
                ParamSpec::boolean("allow_oversubscribed_spin", false,
                                   "run spinlocks even with more FIFO spinners than CPUs (the "
                                   "watchdog bounds the collapse)")},
     .needs = rtgate::Needs::kSchedFifo,
     .run = &run,
     .validate = &validate});
