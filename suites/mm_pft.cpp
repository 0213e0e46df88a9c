// mm.pft: the page-fault test (pft, as mmtests runs it, and as the 2016 csd_lock review
// reported it). For each thread count k of the sweep 1..N (N = overcommit x CPUs), k threads
// each fault in their own private anonymous region, one write per page, drop it with
// MADV_DONTNEED and fault it in again, for an equal share of the duration. Per thread count:
//   faults/sec  faults per wall-clock second (all k threads together)
//   faults/cpu  faults per CPU-second the process spent (user + system): how much the kernel's
//               fault path costs, independent of how many CPUs were busy
// with Hmean and stddev over runs in the summary, like the original's table. Every write is to
// a page that is not present, so it is exactly one fault; the kernel's own count (getrusage
// minflt) is reported beside it as a check.
#include <string>
#include <vector>

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

// Pages between progress updates and stop checks: ~0.1-0.5 ms of faulting.
constexpr std::size_t kBatch = 64;

struct Measured {
  rtgate::Case c;
  std::string error;
  std::string skip;
};

Measured measure(int threads, std::size_t bytes, std::int64_t slice_ns, const rtgate::Params& p,
                 rtgate::RunContext& ctx) {
  Measured m;
  m.c.name = std::to_string(threads) + "t";
  m.c.labels = {{"threads", std::to_string(threads)},
                {"mb_per_thread", std::to_string(bytes >> 20)},
                {"thread_class", "nonrt"}};
  std::vector<wl::AnonRegion> regions;
  for (int i = 0; i < threads; ++i) {
    regions.emplace_back(bytes);
    if (!regions.back().ok()) {
      m.skip = "region: " + regions.back().error();
      return m;
    }
  }
  wl::WorkloadProbe probe(p, ctx, slice_ns);
  if (m.skip = probe.start(); !m.skip.empty()) return m;
  const std::size_t page = wl::AnonRegion::page_size();
  const wl::GroupRun g = wl::run_group(
      ctx, {.name = "pft", .threads = threads, .cpus = ctx.cpus(), .duration_ns = slice_ns},
      [&](wl::Worker& w) {
        wl::AnonRegion& region = regions[static_cast<std::size_t>(w.index())];
        auto* const base = static_cast<volatile char*>(region.data());
        for (;;) {
          for (std::size_t off = 0; off < bytes;) {
            const std::size_t end = std::min(bytes, off + kBatch * page);
            std::uint64_t n = 0;
            for (; off < end; off += page, ++n) base[off] = 1;  // a write: no zero-page detour
            w.add(n);
            if (!w.keep_going()) return;
          }
          if (!region.discard()) throw std::runtime_error("madvise(MADV_DONTNEED) failed");
        }
      });
  probe.stop();
  m.error = g.error;
  const auto faults = static_cast<double>(g.ops);
  m.c.metrics.push_back(rtgate::Metric::throughput("faults_per_sec", "faults/s",
                                                   g.seconds > 0 ? faults / g.seconds : 0));
  m.c.metrics.push_back(rtgate::Metric::throughput("faults_per_cpu", "faults/cpu-s",
                                                   g.cpu.cpu_s() > 0 ? faults / g.cpu.cpu_s() : 0));
  m.c.metrics.push_back(
      rtgate::Metric::count("faults", faults, "faults", rtgate::Metric::Gating::kReported));
  m.c.metrics.push_back(rtgate::Metric::count("minor_faults", static_cast<double>(g.cpu.minflt),
                                              "faults", rtgate::Metric::Gating::kReported));
  wl::add_cpu_metrics(m.c, {g.cpu});
  probe.add_metrics(m.c);
  return m;
}

rtgate::SuiteResult run(const rtgate::Params& p, rtgate::RunContext& ctx) {
  rtgate::SuiteResult result;
  const int max_threads = wl::thread_count(p, ctx);
  const auto bytes = static_cast<std::size_t>(p.get_int("mb")) << 20;
  std::vector<int> counts;
  for (int k = p.get_bool("sweep") ? 1 : max_threads; k <= max_threads; ++k) counts.push_back(k);
  if (std::string why = wl::check_memory_available(bytes * static_cast<std::size_t>(max_threads));
      !why.empty()) {
    result.status = rtgate::SuiteStatus::kSkipped;
    result.reason = "regions: " + why;
    return result;
  }
  const std::int64_t slice = ctx.duration_ns() / static_cast<std::int64_t>(counts.size());
  for (int k : counts) {
    if (ctx.stop_requested()) break;
    Measured m = measure(k, bytes, slice, p, ctx);
    if (!m.skip.empty()) {
      result.status = rtgate::SuiteStatus::kSkipped;
      result.reason = m.skip;
      return result;
    }
    result.cases.push_back(std::move(m.c));
    if (!m.error.empty()) {
      result.status = rtgate::SuiteStatus::kError;
      result.reason = m.error;
      break;
    }
  }
  return result;
}

}  // namespace

RTGATE_SUITE(
    {.name = "mm.pft",
     .tags = {"workload", "mm"},
     .summary = "page-fault test: threads 1..N fault in private memory; faults/sec and faults/cpu",
     .params = wl::with_common_params(
         {ParamSpec::integer("mb", 64, 1, 1 << 16, "MiB", "private region per thread"),
          ParamSpec::boolean("sweep", true, "thread counts 1..N; false: only N")}),
     .needs = rtgate::Needs::kSchedFifo,
     .run = &run});
