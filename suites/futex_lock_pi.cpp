// futex.lock_pi: perf bench futex lock-pi / futextest style. Threads take and release a small
// set of shared PI futexes through the kernel on every iteration (FUTEX_LOCK_PI, hold for
// hold_us, FUTEX_UNLOCK_PI; no userspace fast path, as perf bench does it), so every operation
// goes through the rt_mutex, the PI chain walk and the futex hash bucket locks. Thread i uses
// futex i % futexes (default: all threads on one). Reported in the original's unit: kops/s
// (one op = one lock/unlock pair).
#include <time.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

#include "framework/measure/clock.h"
#include "framework/measure/run_context.h"
#include "framework/registry.h"
#include "framework/workload/worker_group.h"
#include "framework/workload/workload_metrics.h"
#include "framework/workload/workload_params.h"
#include "framework/workload/workload_probe.h"
#include "locks/futex.h"

namespace {

using rtgate::ParamSpec;
namespace wl = rtgate::workload;
namespace lk = rtgate::locks;

// One PI futex word per cache line: separate futexes must not share a line.
struct alignas(64) PiWord {
  std::atomic<std::uint32_t> word{0};
};

std::runtime_error futex_error(const char* what, long rc) {
  return std::runtime_error(std::string(what) + ": " + std::strerror(static_cast<int>(-rc)));
}

rtgate::SuiteResult run(const rtgate::Params& p, rtgate::RunContext& ctx) {
  rtgate::SuiteResult result;
  const int threads = wl::thread_count(p, ctx);
  const auto nfutex = static_cast<std::size_t>(p.get_int("futexes"));
  const timespec hold = rtgate::to_timespec(p.get_int("hold_us") * 1000);
  auto futexes = std::make_unique<PiWord[]>(nfutex);

  wl::WorkloadProbe probe(p, ctx, ctx.duration_ns());
  if (std::string why = probe.start(); !why.empty()) {
    return rtgate::SuiteResult::ended(rtgate::SuiteStatus::kSkipped, why);
  }
  const wl::GroupRun g = wl::run_group(
      ctx,
      {.name = "futex-pi",
       .threads = threads,
       .cpus = ctx.cpus(),
       .duration_ns = ctx.duration_ns()},
      [&](wl::Worker& w) {
        std::atomic<std::uint32_t>& f = futexes[static_cast<std::size_t>(w.index()) % nfutex].word;
        while (w.keep_going()) {
          if (const long rc = lk::futex_lock_pi(f); rc != 0) throw futex_error("FUTEX_LOCK_PI", rc);
          if (hold.tv_nsec > 0 || hold.tv_sec > 0) nanosleep(&hold, nullptr);
          if (const long rc = lk::futex_unlock_pi(f); rc != 0) {
            throw futex_error("FUTEX_UNLOCK_PI", rc);
          }
          w.add(1);
        }
      });
  probe.stop();

  rtgate::Case c;
  c.name = std::to_string(threads) + "t";
  c.labels = {{"threads", std::to_string(threads)},
              {"futexes", std::to_string(nfutex)},
              {"hold_us", std::to_string(p.get_int("hold_us"))},
              {"thread_class", "nonrt"}};
  wl::add_ops_metrics(c, g, "kops/s", 1e3);
  wl::finish_case(result, std::move(c), g, probe);
  return result;
}

}  // namespace

RTGATE_SUITE(
    {.name = "futex.lock_pi",
     .tags = {"workload", "futex"},
     .summary = "perf-bench futex lock-pi: FUTEX_LOCK_PI/UNLOCK_PI pairs on shared PI futexes; "
                "kops/s",
     .params = wl::with_common_params(
         {ParamSpec::integer("futexes", 1, 1, 1024, "", "shared PI futexes (thread i uses i % n)"),
          ParamSpec::integer("hold_us", 1, 0, 1'000'000, "us",
                             "sleep while holding the lock, as perf bench's usleep(1); 0: none")}),
     .needs = rtgate::Needs::kSchedFifo,
     .run = &run});
