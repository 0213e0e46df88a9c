// mm.mmap_threads: n threads each looping { mmap a private region; touch every page; munmap },
// the microbenchmark of the 2013 rwsem optimisation review. mmap and munmap take the mm's
// mmap_lock for write, the page faults of the touch take it (or a per-VMA lock) for read, so
// the threads fight over the lock the review was about. Two variants, each for half the
// duration: "bare", and "mutex" with every mmap and every munmap under one process-wide pthread
// mutex, so that writers queue in userspace instead of in the kernel's rwsem. Whether the mutex
// helps or hurts is the figure the review looked at: reported as the % change of mutex vs bare.
//
// One op is one full cycle. rtgate may have called mlockall(MCL_FUTURE), under which mmap would
// populate the region itself and the touch would never fault; workload::map_unlocked() maps it
// PROT_NONE, munlocks and mprotects it instead (two more mmap_lock writers per op, in both
// variants alike, inside the mutex in the mutex variant).
#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>

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

struct Variant {
  rtgate::Case c;
  double ops_per_s = 0;
  std::string error;
  std::string skip;
};

Variant measure(bool with_mutex, int threads, std::size_t bytes, std::int64_t slice_ns,
                const rtgate::Params& p, rtgate::RunContext& ctx) {
  Variant v;
  v.c.name = with_mutex ? "mutex" : "bare";
  v.c.labels = {{"variant", v.c.name},
                {"threads", std::to_string(threads)},
                {"region_kb", std::to_string(bytes >> 10)},
                {"thread_class", "nonrt"}};
  wl::WorkloadProbe probe(p, ctx, slice_ns);
  if (v.skip = probe.start(); !v.skip.empty()) return v;
  std::mutex serialise;
  const std::size_t page = wl::AnonRegion::page_size();
  const wl::GroupRun g =
      wl::run_group(ctx,
                    {.name = with_mutex ? "mmap-mutex" : "mmap-bare",
                     .threads = threads,
                     .cpus = ctx.cpus(),
                     .duration_ns = slice_ns},
                    [&](wl::Worker& w) {
                      while (w.keep_going()) {
                        void* region = nullptr;
                        {
                          std::unique_lock lock(serialise, std::defer_lock);
                          if (with_mutex) lock.lock();
                          region = wl::map_unlocked(bytes);
                        }
                        if (region == nullptr) {
                          throw std::runtime_error(std::string("mmap: ") + std::strerror(errno));
                        }
                        for (std::size_t off = 0; off < bytes; off += page)
                          static_cast<volatile char*>(region)[off] = 1;
                        {
                          std::unique_lock lock(serialise, std::defer_lock);
                          if (with_mutex) lock.lock();
                          munmap(region, bytes);
                        }
                        w.add(1);
                      }
                    });
  probe.stop();
  v.error = g.error;
  v.ops_per_s = g.ops_per_s();
  wl::add_ops_metrics(v.c, g);
  v.c.metrics.push_back(rtgate::Metric::count("minor_faults", static_cast<double>(g.cpu.minflt),
                                              "faults", rtgate::Metric::Gating::kReported));
  wl::add_cpu_metrics(v.c, {g.cpu});
  probe.add_metrics(v.c);
  return v;
}

rtgate::SuiteResult run(const rtgate::Params& p, rtgate::RunContext& ctx) {
  rtgate::SuiteResult result;
  const int threads = wl::thread_count(p, ctx);
  const auto bytes = static_cast<std::size_t>(p.get_int("region_kb")) << 10;
  const std::int64_t slice = ctx.duration_ns() / 2;
  Variant bare = measure(false, threads, bytes, slice, p, ctx);
  if (!bare.skip.empty()) {
    result.status = rtgate::SuiteStatus::kSkipped;
    result.reason = bare.skip;
    return result;
  }
  Variant mutex;
  if (!ctx.stop_requested() && bare.error.empty()) {
    mutex = measure(true, threads, bytes, slice, p, ctx);
    if (bare.ops_per_s > 0 && mutex.error.empty() && mutex.skip.empty()) {
      // Positive: the mutex made the loop faster than leaving the serialisation to the kernel.
      mutex.c.metrics.push_back(rtgate::Metric::count(
          "change_vs_bare", (mutex.ops_per_s - bare.ops_per_s) / bare.ops_per_s * 100, "%",
          rtgate::Metric::Gating::kReported));
    }
  }
  for (Variant* v : {&bare, &mutex}) {
    if (!v->error.empty() && result.reason.empty()) {
      result.status = rtgate::SuiteStatus::kError;
      result.reason = v->c.name + ": " + v->error;
    }
    if (!v->c.metrics.empty()) result.cases.push_back(std::move(v->c));
  }
  return result;
}

}  // namespace

RTGATE_SUITE(
    {.name = "mm.mmap_threads",
     .tags = {"workload", "mm"},
     .summary = "threads looping mmap/touch/munmap, bare and under one pthread mutex; "
                "ops/s and % change",
     .params = wl::with_common_params({ParamSpec::integer("region_kb", 128, 4, 1 << 20, "KiB",
                                                          "size of each mapping; every page is "
                                                          "touched once")}),
     .needs = rtgate::Needs::kSchedFifo,
     .run = &run});
