// deadline.cyclic: cyclicdeadline's measurement, the periodic wakeup latency of SCHED_DEADLINE
// threads.
//
// Thread i has period interval_us + i x step_us, and a runtime and relative deadline given as a
// share of that period (cyclicdeadline's defaults: 1000 us, +500 us per thread, 60% runtime,
// deadline = period, one thread per CPU). Each sleeps to an absolute CLOCK_MONOTONIC time at every
// period's start and records latency = wakeup - the period's start, as cyclic does; on its wakeup
// the deadline class preempts every FIFO task, so this is the latency a deadline task sees.
//
// How a thread becomes SCHED_DEADLINE: pthread attributes cannot carry it (glibc knows no
// SCHED_DEADLINE, and the kernel never lets a new thread inherit it), so the thread is born
// SCHED_FIFO 1 with its affinity, then switches itself with sched_setattr (no glibc wrapper: the
// raw syscall) before it does anything else. Safe because nothing is measured before the start
// line, and the affinity is fixed at birth and never changed: the kernel checks it once, here.
// The kernel's rule (sched_setattr): unless deadline admission control is off
// (sched_rt_runtime_us = -1), a deadline task's affinity must cover its whole root domain, or the
// call fails with EPERM; and while it is a deadline task its affinity cannot be narrowed (EBUSY).
// On a machine without cpuset partitions the root domain is every CPU, so the threads float over
// all CPUs (global EDF), which is what cyclicdeadline does too when it runs on all of them. To
// measure on a subset, cyclicdeadline -a makes that subset an exclusive cpuset with load balancing
// off in the root cpuset (a root domain of its own) and moves every other task of the system out:
// that rewrites the whole machine's cpusets, which rtgate does not do. So here `-p cpus=` must
// name a whole root domain, and anything else is skipped with the EPERM reason. Admission control
// (EBUSY) refuses threads whose summed runtime/period exceeds what the root domain has free
// (sched_rt_runtime_us / sched_rt_period_us per CPU, less other deadline tasks and, on 6.12 and
// later, the fair servers' 5%). cyclicdeadline also turns on HRTICK_DL for runtimes under 2 ms,
// so that the kernel throttles a thread that overruns its budget on time; these threads use a
// few microseconds of theirs, so the tick's precision never matters here and the system's
// scheduler features are left alone.
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "base/io/proc_files.h"
#include "framework/measure/periodic_loop.h"
#include "framework/measure/run_context.h"
#include "framework/measure/start_line.h"
#include "framework/registry.h"
#include "framework/rt/cpu_list.h"
#include "framework/rt/rt_thread.h"

namespace {

using rtgate::ParamSpec;

constexpr std::uint32_t kSchedDeadline = 6;

// The kernel's struct sched_attr as of 3.14 (48 bytes; later fields are optional).
struct SchedAttr {
  std::uint32_t size;
  std::uint32_t sched_policy;
  std::uint64_t sched_flags;
  std::int32_t sched_nice;
  std::uint32_t sched_priority;
  std::uint64_t sched_runtime;
  std::uint64_t sched_deadline;
  std::uint64_t sched_period;
};
static_assert(sizeof(SchedAttr) == 48);

struct Reservation {
  std::int64_t runtime_ns, deadline_ns, period_ns;
};

// 0, or the errno of sched_setattr.
int become_deadline(const Reservation& r) {
  SchedAttr attr{};
  attr.size = sizeof attr;
  attr.sched_policy = kSchedDeadline;
  attr.sched_runtime = static_cast<std::uint64_t>(r.runtime_ns);
  attr.sched_deadline = static_cast<std::uint64_t>(r.deadline_ns);
  attr.sched_period = static_cast<std::uint64_t>(r.period_ns);
  return syscall(SYS_sched_setattr, 0, &attr, 0) == 0 ? 0 : errno;
}

struct alignas(64) Worker {
  Worker(std::int64_t period_ns, std::int64_t block_ns, std::size_t blocks,
         rtgate::LiveStats& live_)
      : rec(period_ns, block_ns, blocks, live_), live(live_) {}
  rtgate::PeriodicRecorder rec;
  rtgate::LiveStats& live;
};

// The first refusal: which thread, and the errno.
struct Refusal {
  std::atomic<int> err{0};
  std::size_t thread = 0;  // written by the thread that set err
};

std::string fmt_pct(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", share);
  return buf;
}

std::string why_refused(int err, const Reservation& r, std::size_t thread, double total_share,
                        const std::vector<int>& cpus) {
  const std::string what = "SCHED_DEADLINE refused for thread " + std::to_string(thread) +
                           " (runtime " + std::to_string(r.runtime_ns / 1000) + " us, deadline " +
                           std::to_string(r.deadline_ns / 1000) + " us, period " +
                           std::to_string(r.period_ns / 1000) + " us): ";
  const std::vector<int> online = rtgate::rt::online_cpus();
  const std::string rt_runtime = rtgate::proc::read_trimmed("/proc/sys/kernel/sched_rt_runtime_us");
  const std::string rt_period = rtgate::proc::read_trimmed("/proc/sys/kernel/sched_rt_period_us");
  switch (err) {
    case EPERM:
      if (cpus != online) {
        return what +
               "EPERM: a deadline task's affinity must cover its whole root domain, and "
               "CPUs " +
               rtgate::text::format_cpu_list(cpus) + " are not all of the online CPUs " +
               rtgate::text::format_cpu_list(online) +
               " (select them all, or make these CPUs a root domain of their own with an "
               "exclusive cpuset partition, as cyclicdeadline -a does)";
      }
      if (rt_runtime == "0") return what + "EPERM: sched_rt_runtime_us is 0, no bandwidth at all";
      return what + "EPERM: needs CAP_SYS_NICE";
    case EBUSY:
      return what + "EBUSY: admission control; the threads ask " + fmt_pct(total_share) +
             " CPUs of bandwidth in all, more than the root domain has free (sched_rt_runtime_us " +
             rt_runtime + " of every sched_rt_period_us " + rt_period +
             " per CPU, less other deadline tasks and the fair servers)";
    case EINVAL:
      return what +
             "EINVAL: the kernel takes 1024 ns <= runtime <= deadline <= period with the period "
             "inside kernel.sched_deadline_period_{min,max}_us, or has no SCHED_DEADLINE";
    case ENOSYS:
      return what + "ENOSYS: no sched_setattr system call (a kernel before 3.14)";
    default:
      return what + std::strerror(err);
  }
}

// Each thread's reservation: periods stepped per thread, runtime and deadline as percentages.
std::vector<Reservation> reservations(const rtgate::Params& p, std::size_t n, std::int64_t pct,
                                      std::int64_t deadline_pct) {
  std::vector<Reservation> res;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t period =
        (p.get_int("interval_us") + static_cast<std::int64_t>(i) * p.get_int("step_us")) * 1000;
    res.push_back({period * pct / 100, period * deadline_pct / 100, period});
  }
  return res;
}

// One thread's case: its reservation and what its periodic loop measured.
rtgate::Case case_of(std::size_t i, Worker& w, const Reservation& r, const std::vector<int>& cpus) {
  rtgate::Case c;
  c.name = "thread" + std::to_string(i);
  c.labels = {{"cpus", rtgate::text::format_cpu_list(cpus)},
              {"thread_class", "rt"},
              {"period_us", std::to_string(r.period_ns / 1000)},
              {"runtime_us", std::to_string(r.runtime_ns / 1000)},
              {"deadline_us", std::to_string(r.deadline_ns / 1000)}};
  c.metrics.push_back(rtgate::Metric::latency("wakeup_latency", std::move(w.rec.histogram()),
                                              std::move(w.rec.block_maxima())));
  c.metrics.push_back(rtgate::Metric::count("overruns", static_cast<double>(w.rec.overruns()),
                                            "wakeups", rtgate::Metric::Gating::kEventRate));
  c.metrics.push_back(rtgate::Metric::count("missed_periods",
                                            static_cast<double>(w.rec.missed_periods()), "periods",
                                            rtgate::Metric::Gating::kEventRate));
  return c;
}

rtgate::SuiteResult run(const rtgate::Params& p, rtgate::RunContext& ctx) {
  std::string why;
  const auto selected = rtgate::rt::select_cpus(p.get_string("cpus"), ctx.cpus(), &why);
  if (!selected) return rtgate::SuiteResult::ended(rtgate::SuiteStatus::kSkipped, why);
  const std::vector<int>& cpus = *selected;
  const std::size_t n =
      p.get_int("threads") > 0 ? static_cast<std::size_t>(p.get_int("threads")) : cpus.size();
  // cyclicdeadline's runtime: 60% of the period, or 80% of the CPUs shared out when the threads
  // outnumber them.
  std::int64_t pct = p.get_int("runtime_pct");
  if (pct == 0) pct = n > cpus.size() ? static_cast<std::int64_t>(cpus.size() * 80 / n) : 60;
  const std::int64_t deadline_pct = p.get_int("deadline_pct");
  if (pct > deadline_pct) {
    return rtgate::SuiteResult::ended(
        rtgate::SuiteStatus::kSkipped,
        "runtime " + std::to_string(pct) + "% of the period is above the deadline's " +
            std::to_string(deadline_pct) + "%: the kernel takes runtime <= deadline");
  }
  const std::int64_t block_ns = p.get_int("block_ms") * 1'000'000;
  const std::int64_t duration_ns = ctx.duration_ns();

  const std::vector<Reservation> res = reservations(p, n, pct, deadline_pct);
  const double total_share = static_cast<double>(n) * static_cast<double>(pct) / 100;
  std::vector<rtgate::LiveStats*> live;
  for (std::size_t i = 0; i < n; ++i) live.push_back(&ctx.track("thread" + std::to_string(i)));
  std::vector<std::unique_ptr<Worker>> workers(n);
  Refusal refusal;
  rtgate::StartLine start_line(static_cast<int>(n), 1'000'000);
  {
    std::vector<std::unique_ptr<rtgate::rt::RtThread>> threads;
    try {
      for (std::size_t i = 0; i < n; ++i) {
        rtgate::rt::ThreadSpec spec{.name = "rtgate-dl" + std::to_string(i),
                                    .policy = rtgate::rt::Policy::kFifo,
                                    .priority = 1,
                                    .cpus = cpus};
        threads.push_back(std::make_unique<rtgate::rt::RtThread>(
            spec, [i, r = res[i], lv = live[i], slot = &workers[i], &refusal, &start_line, block_ns,
                   duration_ns, &ctx] {
              const int err = become_deadline(r);
              if (err != 0) {
                int none = 0;
                if (refusal.err.compare_exchange_strong(none, err)) refusal.thread = i;
              }
              const std::int64_t start = start_line.prepare_and_wait([&] {
                const std::int64_t block = std::max(block_ns, r.period_ns);
                if (err == 0) {
                  *slot = std::make_unique<Worker>(
                      r.period_ns, block, static_cast<std::size_t>(duration_ns / block) + 2, *lv);
                }
              });
              // One refusal skips the suite: no thread measures.
              if (refusal.err.load() != 0) {
                lv->done.store(true, std::memory_order_relaxed);
                return;
              }
              Worker& w = **slot;
              rtgate::PeriodicLoop(w.rec, w.live, r.period_ns, ctx.sample_hook())
                  .run(start, start + duration_ns, ctx.stop_flag());
            }));
      }
    } catch (...) {
      ctx.request_stop();
      start_line.abandon(static_cast<int>(n - threads.size()));
      throw;
    }
  }  // joins every thread; a deadline thread's reservation ends with it

  if (const int err = refusal.err.load(); err != 0) {
    return rtgate::SuiteResult::ended(
        rtgate::SuiteStatus::kSkipped,
        why_refused(err, res[refusal.thread], refusal.thread, total_share, cpus));
  }
  rtgate::SuiteResult result;
  for (std::size_t i = 0; i < n; ++i) {
    if (!workers[i]) continue;  // its thread failed to build it: the run ends as an error
    result.cases.push_back(case_of(i, *workers[i], res[i], cpus));
  }
  return result;
}

std::string validate(const rtgate::Params& p) {
  if (p.get_int("runtime_pct") > p.get_int("deadline_pct")) {
    return "runtime_pct must not exceed deadline_pct: the kernel takes runtime <= deadline";
  }
  return "";
}

}  // namespace

RTGATE_SUITE(
    {.name = "deadline.cyclic",
     .tags = {"sched", "deadline"},
     .summary = "cyclicdeadline-style: periodic wakeup latency of SCHED_DEADLINE threads",
     .params = {ParamSpec::integer("interval_us", 1000, 100, 1'000'000, "us",
                                   "period (and deadline) of the first thread"),
                ParamSpec::integer("step_us", 500, 0, 1'000'000, "us",
                                   "period increment per thread, as cyclicdeadline -s"),
                ParamSpec::integer("threads", 0, 0, 256, "", "threads (0: one per CPU)"),
                ParamSpec::integer("runtime_pct", 0, 0, 100, "%",
                                   "runtime as a share of the period (0: cyclicdeadline's, 60%, "
                                   "or 80% x CPUs / threads when threads outnumber CPUs)"),
                ParamSpec::integer("deadline_pct", 100, 1, 100, "%",
                                   "relative deadline as a share of the period"),
                ParamSpec::cpu_list("cpus", "all",
                                    "CPUs the threads share; must be a whole root domain"),
                ParamSpec::integer("block_ms", 1000, 10, 3'600'000, "ms",
                                   "block length for the per-block maxima the gate compares")},
     .needs = rtgate::Needs::kSchedFifo,
     .run = &run,
     .validate = &validate});
