// ebizzy: Valerie Henson's web-search workload, as the 2014 pvqspinlock discussion ran it. A few
// chunks of records (size_t j at index j) are filled once; then each thread loops: pick a chunk
// at random, allocate a buffer of the chunk's size, memcpy the chunk into it, bsearch it for a
// random key (which must be found), free the buffer. One loop is one "record" in ebizzy's
// records/s. With alloc=mmap (ebizzy -m, the default here) every loop is an mmap, a page fault
// per page of the memcpy, and an munmap: the mmap_lock, page allocator and TLB-shootdown paths
// the discussion measured under overcommit. alloc=malloc uses the process's malloc (under
// rtgate's mlockall, heap memory already faulted in: mostly a memory-bandwidth test).
//
// Defaults as ebizzy's: 10 chunks of 512 KiB, 2 x CPUs threads.
#include <sys/mman.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "framework/background_load/fast_rand.h"
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
using Record = std::size_t;

int compare(const void* a, const void* b) {
  const Record x = *static_cast<const Record*>(a), y = *static_cast<const Record*>(b);
  return x < y ? -1 : (x > y ? 1 : 0);
}

void* alloc(std::size_t bytes, bool use_mmap) {
  return use_mmap ? wl::map_unlocked(bytes) : std::malloc(bytes);
}

void release(void* p, std::size_t bytes, bool use_mmap) {
  if (use_mmap) {
    munmap(p, bytes);
  } else {
    std::free(p);
  }
}

rtgate::SuiteResult run(const rtgate::Params& p, rtgate::RunContext& ctx) {
  rtgate::SuiteResult result;
  const int threads = wl::thread_count(p, ctx);
  const auto chunks = static_cast<std::size_t>(p.get_int("chunks"));
  const auto chunk_bytes = static_cast<std::size_t>(p.get_int("chunk_kb")) << 10;
  const std::size_t records = chunk_bytes / sizeof(Record);
  const bool use_mmap = p.get_string("alloc") == "mmap";
  wl::AnonRegion data(chunks * chunk_bytes);
  if (!data.ok()) {
    result.status = rtgate::SuiteStatus::kSkipped;
    result.reason = "chunks: " + data.error();
    return result;
  }
  for (std::size_t c = 0; c < chunks; ++c) {
    auto* chunk = reinterpret_cast<Record*>(data.data() + c * chunk_bytes);
    for (std::size_t j = 0; j < records; ++j) chunk[j] = j;
  }

  wl::WorkloadProbe probe(p, ctx, ctx.duration_ns());
  if (std::string why = probe.start(); !why.empty()) {
    return rtgate::SuiteResult::ended(rtgate::SuiteStatus::kSkipped, why);
  }
  const wl::GroupRun g = wl::run_group(
      ctx,
      {.name = "ebizzy", .threads = threads, .cpus = ctx.cpus(), .duration_ns = ctx.duration_ns()},
      [&](wl::Worker& w) {
        wl::FastRand rng(static_cast<std::uint64_t>(w.index()) + 7);
        while (w.keep_going()) {
          const auto* src =
              reinterpret_cast<const Record*>(data.data() + rng.below(chunks) * chunk_bytes);
          void* copy = alloc(chunk_bytes, use_mmap);
          if (copy == nullptr) {
            throw std::runtime_error(std::string("allocating a chunk: ") + std::strerror(errno));
          }
          std::memcpy(copy, src, chunk_bytes);
          const Record key = rng.below(records);
          const void* found = std::bsearch(&key, copy, records, sizeof(Record), compare);
          release(copy, chunk_bytes, use_mmap);
          if (found == nullptr) throw std::runtime_error("bsearch lost a record: memory corrupt");
          w.add(1);
        }
      });
  probe.stop();

  rtgate::Case c;
  c.name = std::to_string(threads) + "t";
  c.labels = {{"threads", std::to_string(threads)},
              {"chunks", std::to_string(chunks)},
              {"chunk_kb", std::to_string(chunk_bytes >> 10)},
              {"alloc", p.get_string("alloc")},
              {"thread_class", "nonrt"}};
  c.metrics.push_back(rtgate::Metric::throughput("records_rate", "records/s", g.ops_per_s()));
  c.metrics.push_back(rtgate::Metric::count("records", static_cast<double>(g.ops), "records",
                                            rtgate::Metric::Gating::kReported));
  wl::finish_case(result, std::move(c), g, probe);
  return result;
}

}  // namespace

RTGATE_SUITE(
    {.name = "ebizzy",
     .tags = {"workload", "mm"},
     .summary = "ebizzy: threads allocate, memcpy and bsearch chunks of records; records/s",
     .params = wl::with_common_params(
         {ParamSpec::integer("chunks", 10, 1, 4096, "", "chunks of records (ebizzy -n)"),
          ParamSpec::integer("chunk_kb", 512, 4, 1 << 20, "KiB", "size of a chunk (ebizzy -s)"),
          ParamSpec::choice("alloc", "mmap", {"mmap", "malloc"},
                            "buffer per record: mmap/munmap (ebizzy -m) or malloc/free")},
         2.0),
     .needs = rtgate::Needs::kSchedFifo,
     .run = &run});
