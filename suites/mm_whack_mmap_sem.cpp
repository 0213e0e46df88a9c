// mm.whack_mmap_sem: the page-fault storm from the 2014 linux-rt-users discussion of
// multi-reader PI rwsems. One large anonymous buffer, 2 x CPUs threads (overcommit 2.0) pinned
// round-robin, each doing W single-byte writes at random offsets: nearly every write to a page
// not yet touched is a page fault, and every fault takes the mm's mmap_lock for read (or, on
// newer kernels, a per-VMA lock), so the threads contend on it exactly as the original did.
//
// Reported like the original: the run time in microseconds from releasing the threads to the
// last one finishing (a duration, lower is better), one sample per repetition; the summary
// over samples gives min/avg/max/stddev. The work is fixed (W writes per thread): repetitions
// continue, each on a freshly discarded buffer, until --duration is used up, and at least one
// runs however long it takes. Beside it: writes/s, the minor faults the kernel counted (proof
// that the storm happened), user/system CPU time, and the RT probe's wakeup latency.
#include <algorithm>
#include <cstdint>
#include <string>

#include "framework/background_load/fast_rand.h"
#include "framework/measure/clock.h"
#include "framework/measure/run_context.h"
#include "framework/registry.h"
#include "framework/workload/anon_region.h"
#include "framework/workload/worker_group.h"
#include "framework/workload/workload_metrics.h"
#include "framework/workload/workload_params.h"
#include "framework/workload/workload_probe.h"

namespace {

using rtgate::ParamSpec;
namespace wl = rtgate::workload;

// Writes between stop checks and progress updates: at worst 1024 faults, a few ms.
constexpr std::uint64_t kBatch = 1024;

rtgate::SuiteResult skipped(std::string why) {
  return rtgate::SuiteResult::ended(rtgate::SuiteStatus::kSkipped, std::move(why));
}

rtgate::SuiteResult run(const rtgate::Params& p, rtgate::RunContext& ctx) {
  const auto bytes = static_cast<std::size_t>(p.get_int("buffer_mb")) << 20;
  const auto writes = static_cast<std::uint64_t>(p.get_int("writes"));
  const int threads = wl::thread_count(p, ctx);
  if (std::string why = wl::check_memory_available(bytes); !why.empty()) {
    return skipped("buffer: " + why);
  }
  wl::AnonRegion buffer(bytes);
  if (!buffer.ok()) return skipped("buffer: " + buffer.error());

  // Fixed work: the probe's block maxima are sized for a generous hour.
  wl::WorkloadProbe probe(p, ctx, 3'600'000'000'000);
  if (std::string why = probe.start(); !why.empty()) return skipped(why);

  rtgate::Case c;
  c.name = std::to_string(threads) + "t";
  c.labels = {{"threads", std::to_string(threads)},
              {"buffer_mb", std::to_string(bytes >> 20)},
              {"writes", std::to_string(writes)},
              {"thread_class", "nonrt"}};
  std::vector<double> runtime_us, rate, faults;
  std::vector<rtgate::CpuUsage> cpu;
  const std::int64_t t0 = rtgate::monotonic_ns();
  std::string error;
  for (int rep = 0; !ctx.stop_requested(); ++rep) {
    // Each repetition starts from an untouched buffer, as each run of the original did.
    if (!buffer.discard()) {
      error = "madvise(MADV_DONTNEED) failed: the buffer would not fault again";
      break;
    }
    char* const base = buffer.data();
    const wl::GroupRun g = wl::run_group(
        ctx, {.name = "whack", .threads = threads, .cpus = ctx.cpus()}, [&](wl::Worker& w) {
          wl::FastRand rng(static_cast<std::uint64_t>(rep) * 1'000'003 +
                           static_cast<std::uint64_t>(w.index()));
          for (std::uint64_t done = 0; done < writes;) {
            const std::uint64_t n = std::min(kBatch, writes - done);
            for (std::uint64_t i = 0; i < n; ++i) {
              // volatile: the compiler must not merge or drop the stores.
              volatile char* const at = base + rng.below(bytes);
              *at = static_cast<char>(*at + 1);
            }
            done += n;
            w.add(n);
            if (!w.keep_going()) return;
          }
        });
    if (!g.error.empty()) error = g.error;
    if (g.stopped || !g.error.empty()) break;  // a partial repetition is not a sample
    runtime_us.push_back(g.seconds * 1e6);
    rate.push_back(g.ops_per_s());
    faults.push_back(static_cast<double>(g.cpu.minflt));
    cpu.push_back(g.cpu);
    if (rtgate::monotonic_ns() - t0 >= ctx.duration_ns()) break;
  }
  probe.stop();

  if (!runtime_us.empty()) {
    c.metrics.push_back(wl::duration_metric("runtime", "us", runtime_us));
    c.metrics.push_back(
        wl::with_samples(rtgate::Metric::throughput("write_rate", "writes/s", 0), rate));
    c.metrics.push_back(wl::with_samples(
        rtgate::Metric::count("minor_faults", 0, "faults", rtgate::Metric::Gating::kReported),
        faults));
    wl::add_cpu_metrics(c, cpu);
  }
  probe.add_metrics(c);
  rtgate::SuiteResult result;
  result.cases.push_back(std::move(c));
  if (!error.empty()) {
    result.status = rtgate::SuiteStatus::kError;
    result.reason = error;
  }
  return result;
}

}  // namespace

RTGATE_SUITE(
    {.name = "mm.whack_mmap_sem",
     .tags = {"workload", "mm"},
     .summary = "page-fault storm on one big buffer, 2 x CPUs threads; run time in us per run",
     .params = wl::with_common_params(
         {ParamSpec::integer("buffer_mb", 1024, 1, 1 << 20, "MiB",
                             "size of the anonymous buffer the threads write into"),
          ParamSpec::integer("writes", 100'000, 1, 1'000'000'000, "",
                             "single-byte writes per thread, at random offsets")},
         2.0),
     .needs = rtgate::Needs::kSchedFifo,
     .run = &run,
     .fixed_work = true});
