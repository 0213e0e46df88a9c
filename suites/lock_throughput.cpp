// lock.throughput: LiTL/libslock-style lock throughput. For each selected lock and each thread
// count of the sweep (default 1 .. 2 x CPUs), the threads loop { lock; critical_ns of work;
// unlock; think_ns of work } for an equal share of the duration. Reported per (lock, threads):
// Mops/s (Hmean over runs in the summary) and fairness (coefficient of variation of the
// per-thread counts, %: 0 is perfectly fair).
#include <algorithm>
#include <barrier>
#include <memory>
#include <sstream>

#include "base/stats/summary.h"
#include "framework/measure/busy.h"
#include "framework/measure/run_context.h"
#include "framework/registry.h"
#include "framework/rt/rt_thread.h"
#include "locks/lock_selection.h"
#include "locks/thread_prelude.h"

namespace {

using rtgate::ParamSpec;
using rtgate::locks::AnyLock;
using rtgate::locks::LockInfo;

std::vector<int> thread_counts(const std::string& spec, int cpus, std::string* error) {
  std::vector<int> out;
  if (spec == "sweep") {
    for (int n = 1; n <= 2 * cpus; ++n) out.push_back(n);
    return out;
  }
  std::stringstream ss(spec);
  for (std::string item; std::getline(ss, item, ',');) {
    char* end = nullptr;
    const long n = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || n < 1 || n > 1024) {
      *error = "threads: '" + item + "' is not a thread count in [1, 1024] (or use 'sweep')";
      return {};
    }
    out.push_back(static_cast<int>(n));
  }
  if (out.empty()) *error = "threads: empty list";
  return out;
}

// Per-thread counter on its own cache line, so counting does not contend.
struct alignas(64) Counter {
  std::uint64_t ops = 0;
  std::int64_t end_ns = 0;  // when the thread stopped counting
};

// The case of one lock and thread count from what each thread counted since `started_ns`.
rtgate::Case case_of(const LockInfo& info, int threads, bool fifo,
                     const std::vector<Counter>& counts, std::int64_t started_ns) {
  std::vector<double> per_thread;
  double total = 0;
  std::int64_t last_end = 0;
  for (const Counter& c : counts) {
    per_thread.push_back(static_cast<double>(c.ops));
    total += static_cast<double>(c.ops);
    last_end = std::max(last_end, c.end_ns);
  }
  // Divided by the time the threads actually counted (a stop request shortens it), not the
  // planned slice, so a shortened case is not mistaken for a collapse.
  const std::int64_t counted_ns = std::max<std::int64_t>(1, last_end - started_ns);
  rtgate::Case out;
  out.name = info.name + "/" + std::to_string(threads) + "t";
  out.labels = {{"lock", info.name},
                {"threads", std::to_string(threads)},
                {"kind", rtgate::locks::to_string(info.kind)},
                {"thread_class", fifo ? "rt" : "nonrt"}};
  out.metrics.push_back(rtgate::Metric::throughput(
      "throughput", "Mops/s", total / (static_cast<double>(counted_ns) / 1e9) / 1e6));
  out.metrics.push_back(rtgate::Metric::count("fairness_cv", rtgate::stats::coeff_var(per_thread),
                                              "%", rtgate::Metric::Gating::kReported));
  return out;
}

rtgate::Case measure(const LockInfo& info, int threads, const rtgate::Params& p,
                     std::int64_t slice_ns, rtgate::RunContext& ctx) {
  auto lock = info.make();
  const std::int64_t critical = p.get_int("critical_ns"), think = p.get_int("think_ns");
  const bool fifo = p.get_string("policy") == "fifo";
  const std::vector<int>& cpus = ctx.cpus();
  std::vector<Counter> counts(static_cast<std::size_t>(threads));
  std::vector<rtgate::LiveStats*> live;
  for (int i = 0; i < threads; ++i) {
    live.push_back(
        &ctx.track(info.name + "/" + std::to_string(threads) + "t/" + std::to_string(i)));
  }
  std::barrier start(threads);
  // The first thread through the barrier fixes the common end time.
  std::atomic<std::int64_t> end_shared{0};
  {
    std::vector<std::unique_ptr<rtgate::rt::RtThread>> ts;
    try {
      for (int i = 0; i < threads; ++i) {
        const auto idx = static_cast<std::size_t>(i);
        ts.push_back(std::make_unique<rtgate::rt::RtThread>(
            rtgate::rt::ThreadSpec{
                .name = "rtgate-tput" + std::to_string(i),
                .policy = fifo ? rtgate::rt::Policy::kFifo : rtgate::rt::Policy::kOther,
                .priority = static_cast<int>(p.get_int("priority")),
                .cpus = {cpus[idx % cpus.size()]}},
            [&, idx] {
              rtgate::locks::prepare_lock_thread();
              start.arrive_and_wait();
              std::int64_t stop_at = 0;
              end_shared.compare_exchange_strong(stop_at, rtgate::monotonic_ns() + slice_ns);
              stop_at = end_shared.load();
              std::uint64_t n = 0;
              while (!ctx.stop_requested()) {
                lock->lock();
                if (critical > 0) rtgate::spin_for_ns(critical);
                lock->unlock();
                if (think > 0) rtgate::spin_for_ns(think);
                if ((++n & 255) == 0) {
                  live[idx]->publish(n, 0);
                  if (rtgate::monotonic_ns() >= stop_at) break;
                }
              }
              counts[idx].ops = n;
              counts[idx].end_ns = rtgate::monotonic_ns();
              live[idx]->done = true;
            }));
      }
    } catch (...) {
      // The threads already started wait at the barrier for the ones that never will be:
      // stop the run, then let them through (they see the stop and end at once).
      ctx.request_stop();
      for (std::size_t i = ts.size(); i < static_cast<std::size_t>(threads); ++i) {
        start.arrive_and_drop();
      }
      throw;
    }
  }  // joins
  return case_of(info, threads, fifo, counts, end_shared.load() - slice_ns);
}

rtgate::SuiteResult run(const rtgate::Params& p, rtgate::RunContext& ctx) {
  rtgate::SuiteResult result;
  const int cpus = static_cast<int>(ctx.cpus().size());
  std::string error;
  const std::vector<int> counts = thread_counts(p.get_string("threads"), cpus, &error);
  auto locks = rtgate::locks::select_locks(p.get_string("locks")).locks;
  const int spinners =
      p.get_string("policy") == "fifo" ? *std::max_element(counts.begin(), counts.end()) : 0;
  for (const auto& why : rtgate::locks::drop_unsafe_spinlocks(
           locks, spinners, cpus, p.get_bool("allow_oversubscribed_spin"))) {
    result.reason += (result.reason.empty() ? "" : "; ") + why;
  }
  if (locks.empty()) {
    result.status = rtgate::SuiteStatus::kSkipped;
    return result;
  }
  const std::int64_t slice =
      ctx.duration_ns() / static_cast<std::int64_t>(locks.size() * counts.size());
  for (const LockInfo* l : locks) {
    for (int n : counts) {
      if (ctx.stop_requested()) return result;
      result.cases.push_back(measure(*l, n, p, slice, ctx));
    }
  }
  return result;
}

std::string validate(const rtgate::Params& p) {
  if (const auto sel = rtgate::locks::select_locks(p.get_string("locks")); !sel.error.empty()) {
    return sel.error;
  }
  std::string error;
  thread_counts(p.get_string("threads"), 1, &error);
  return error;
}

}  // namespace

RTGATE_SUITE(
    {.name = "lock.throughput",
     .tags = {"lock", "throughput"},
     .summary = "Mops/s and fairness per lock and thread count (LiTL-style sweep)",
     .params = {ParamSpec::string("locks", "all", "locks: all or names from `rtgate locks`"),
                ParamSpec::string("threads", "sweep",
                                  "thread counts: 'sweep' (1 .. 2 x CPUs) or a list like 1,2,4"),
                ParamSpec::integer("critical_ns", 100, 0, 10'000'000, "ns", "work inside the lock"),
                ParamSpec::integer("think_ns", 100, 0, 10'000'000, "ns",
                                   "work between acquisitions"),
                ParamSpec::choice("policy", "other", {"other", "fifo"},
                                  "scheduling policy of the threads"),
                ParamSpec::integer("priority", 50, 1, 98, "", "FIFO priority (policy=fifo)"),
                ParamSpec::boolean("allow_oversubscribed_spin", false,
                                   "policy=fifo: run spinlocks with more threads than CPUs")},
     .needs = rtgate::Needs::kNone,
     .run = &run,
     .validate = &validate});
