// futex.hash: perf bench futex-hash / futextest style. Each thread owns an array of futexes and
// calls FUTEX_WAIT on each with a value it does not hold, so the kernel hashes the address,
// takes the hash bucket's lock, compares and returns EAGAIN at once: the cost of the futex hash
// table and its bucket locks under contention, with no sleeping at all. Threads are pinned
// round-robin as perf bench pins them. Reported in the original's unit: kops/s (one op = one
// FUTEX_WAIT call).
#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

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

rtgate::SuiteResult run(const rtgate::Params& p, rtgate::RunContext& ctx) {
  rtgate::SuiteResult result;
  const int threads = wl::thread_count(p, ctx);
  const auto per_thread = static_cast<std::size_t>(p.get_int("futexes"));
  const int op = p.get_bool("private") ? FUTEX_WAIT_PRIVATE : FUTEX_WAIT;
  // Every word is 0 and every wait expects 1: the wait never sleeps.
  auto words = std::make_unique<std::atomic<std::uint32_t>[]>(per_thread *
                                                              static_cast<std::size_t>(threads));

  wl::WorkloadProbe probe(p, ctx, ctx.duration_ns());
  if (std::string why = probe.start(); !why.empty()) {
    return rtgate::SuiteResult::ended(rtgate::SuiteStatus::kSkipped, why);
  }
  const wl::GroupRun g = wl::run_group(
      ctx,
      {.name = "futex-hash",
       .threads = threads,
       .cpus = ctx.cpus(),
       .duration_ns = ctx.duration_ns()},
      [&](wl::Worker& w) {
        std::atomic<std::uint32_t>* mine = &words[static_cast<std::size_t>(w.index()) * per_thread];
        while (w.keep_going()) {
          for (std::size_t i = 0; i < per_thread; ++i) {
            const long rc = rtgate::locks::futex_call(mine[i], op, 1);
            if (rc != -EAGAIN && rc != -EINTR) {
              throw std::runtime_error(std::string("FUTEX_WAIT did not fail with EAGAIN: ") +
                                       std::strerror(static_cast<int>(rc < 0 ? -rc : 0)));
            }
          }
          w.add(per_thread);
        }
      });
  probe.stop();

  rtgate::Case c;
  c.name = std::to_string(threads) + "t";
  c.labels = {{"threads", std::to_string(threads)},
              {"futexes_per_thread", std::to_string(per_thread)},
              {"private", p.get_bool("private") ? "true" : "false"},
              {"thread_class", "nonrt"}};
  wl::add_ops_metrics(c, g, "kops/s", 1e3);
  wl::finish_case(result, std::move(c), g, probe);
  return result;
}

}  // namespace

RTGATE_SUITE(
    {.name = "futex.hash",
     .tags = {"workload", "futex"},
     .summary = "perf-bench futex-hash: FUTEX_WAIT returning EAGAIN on many futexes; kops/s",
     .params = wl::with_common_params(
         {ParamSpec::integer("futexes", 1024, 1, 1 << 20, "", "futexes per thread"),
          ParamSpec::boolean("private", true,
                             "FUTEX_PRIVATE_FLAG (false: shared keys, which also look up the "
                             "mapping)")}),
     .needs = rtgate::Needs::kSchedFifo,
     .run = &run});
