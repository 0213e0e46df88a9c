// framework/workload: the pieces every workload suite shares. Thread counts from overcommit;
// regions that really fault even when the process is mlockall'd; a worker group that starts
// its threads together, pins them, honours its duration and stop requests, counts their work
// and survives a body that throws; CPU usage deltas; the RT probe wrapper.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <set>
#include <thread>

#include "framework/background_load/fast_rand.h"
#include "framework/measure/busy.h"
#include "framework/measure/clock.h"
#include "framework/measure/cpu_usage.h"
#include "framework/measure/run_context.h"
#include "framework/rt/cpu_list.h"
#include "framework/rt/rt_checks.h"
#include "framework/workload/anon_region.h"
#include "framework/workload/worker_group.h"
#include "framework/workload/workload_metrics.h"
#include "framework/workload/workload_params.h"
#include "framework/workload/workload_probe.h"

namespace rtgate::workload {
namespace {

Params common_params(std::vector<std::pair<std::string, ParamValue>> set = {}) {
  Params p(with_common_params({}));
  for (auto& [k, v] : set) p.set(k, v);
  return p;
}

struct Ctx {
  explicit Ctx(double duration_s = 1, std::vector<int> cpus = rt::allowed_cpus())
      : ctx(duration_s, std::move(cpus), stop) {}
  std::atomic<bool> stop{false};
  RunContext ctx;
};

TEST(WorkloadParams, ThreadsFromOvercommitRoundToNearestAndNeverZero) {
  EXPECT_EQ(threads_for(1.0, 2), 2);
  EXPECT_EQ(threads_for(2.0, 2), 4);
  EXPECT_EQ(threads_for(8.0, 2), 16);
  EXPECT_EQ(threads_for(1.5, 3), 5);  // 4.5 rounds away from zero
  EXPECT_EQ(threads_for(0.25, 2), 1);
  EXPECT_EQ(threads_for(0.25, 1), 1);  // 0.25 would round to 0: at least one thread
}

TEST(WorkloadParams, CommonRowsFollowTheSuitesOwnAndAnExplicitCountWins) {
  const auto specs = with_common_params({ParamSpec::integer("writes", 1, 1, 2, "", "")}, 2.0);
  ASSERT_GE(specs.size(), 6u);
  EXPECT_EQ(specs[0].name, "writes");
  std::set<std::string> names;
  for (const auto& s : specs) names.insert(s.name);
  for (const char* n :
       {"overcommit", "threads", "probe", "probe_cpu", "probe_priority", "probe_interval_us"}) {
    EXPECT_EQ(names.count(n), 1u) << n;
  }
  Ctx c(1, {0, 1, 2});
  Params p(specs);
  EXPECT_DOUBLE_EQ(p.get_double("overcommit"), 2.0);
  EXPECT_EQ(thread_count(p, c.ctx), 6);
  p.set("threads", std::int64_t{5});
  EXPECT_EQ(thread_count(p, c.ctx), 5);
}

TEST(FastRand, StaysInRangeAndSpreadsOverIt) {
  FastRand a(1), b(2);
  std::vector<int> hits(16, 0);
  bool differ = false;
  for (int i = 0; i < 16000; ++i) {
    const std::uint64_t x = a.below(16);
    ASSERT_LT(x, 16u);
    ++hits[x];
    differ = differ || a.next() != b.next();
  }
  EXPECT_TRUE(differ) << "two seeds, one sequence";
  // 1000 expected per bucket; a bucket under 700 or over 1300 is > 9 sigma for a fair source.
  for (int h : hits) {
    EXPECT_GT(h, 700);
    EXPECT_LT(h, 1300);
  }
}

long thread_minflt() { return CpuUsage::thread().minflt; }

// Touching n pages of a fresh region costs at least n minor faults; after discard() again.
void expect_faults(AnonRegion& r) {
  const std::size_t page = AnonRegion::page_size(), pages = r.size() / page;
  for (int pass = 0; pass < 2; ++pass) {
    const long before = thread_minflt();
    for (std::size_t off = 0; off < r.size(); off += page) r.data()[off] = 1;
    EXPECT_GE(thread_minflt() - before, static_cast<long>(pages)) << "pass " << pass;
    ASSERT_TRUE(r.discard());
  }
}

TEST(AnonRegion, TouchingFaultsAndDiscardMakesItFaultAgain) {
  AnonRegion r(4 << 20);
  ASSERT_TRUE(r.ok()) << r.error();
  expect_faults(r);
}

// The reason the helper exists: under mlockall(MCL_FUTURE) a plain mmap is populated at once.
TEST(AnonRegion, StillFaultsInAnMlockalledProcess) {
  if (geteuid() != 0) GTEST_SKIP() << "locking the whole test process needs root (CAP_IPC_LOCK)";
  ASSERT_EQ(mlockall(MCL_CURRENT | MCL_FUTURE), 0) << std::strerror(errno);
  struct Unlock {
    ~Unlock() { munlockall(); }
  } unlock;
  AnonRegion r(4 << 20);
  ASSERT_TRUE(r.ok()) << r.error();
  expect_faults(r);
  // map_unlocked too: a fresh mapping, touched, faults page by page.
  const std::size_t bytes = 256 << 10, page = AnonRegion::page_size();
  void* p = map_unlocked(bytes);
  ASSERT_NE(p, nullptr) << std::strerror(errno);
  const long before = thread_minflt();
  for (std::size_t off = 0; off < bytes; off += page) static_cast<char*>(p)[off] = 1;
  EXPECT_GE(thread_minflt() - before, static_cast<long>(bytes / page));
  munmap(p, bytes);
}

TEST(AnonRegion, MovesOwnershipAndUnmapsOnDestruction) {
  AnonRegion a(1 << 20);
  ASSERT_TRUE(a.ok());
  char* const addr = a.data();
  AnonRegion b(std::move(a));
  EXPECT_FALSE(a.ok());  // NOLINT(bugprone-use-after-move): moved-from state is specified
  EXPECT_EQ(b.data(), addr);
  unsigned char vec = 0;
  EXPECT_EQ(mincore(addr, AnonRegion::page_size(), &vec), 0) << "mapped while owned";
  b.reset();
  EXPECT_NE(mincore(addr, AnonRegion::page_size(), &vec), 0) << "still mapped after reset";
  EXPECT_EQ(errno, ENOMEM);
}

TEST(AnonRegion, MemoryCheckRefusesMoreThanTheMachineHas) {
  EXPECT_EQ(check_memory_available(1 << 20), "");
  const std::string why = check_memory_available(std::size_t{1} << 50);  // 1 PiB
  EXPECT_NE(why.find("MiB available"), std::string::npos) << why;
}

TEST(WorkerGroup, PinsRoundRobinCountsWorkAndEndsAtItsDuration) {
  Ctx c;
  const std::vector<int>& cpus = c.ctx.cpus();
  std::vector<std::atomic<int>> ran_on(4);
  const GroupRun g =
      run_group(c.ctx, {.name = "t-pin", .threads = 4, .cpus = cpus, .duration_ns = 200'000'000},
                [&](Worker& w) {
                  ran_on[static_cast<std::size_t>(w.index())] = sched_getcpu();
                  EXPECT_EQ(w.cpu(), cpus[static_cast<std::size_t>(w.index()) % cpus.size()]);
                  while (w.keep_going()) {
                    spin_for_ns(100'000);
                    w.add(1);
                  }
                });
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(ran_on[static_cast<std::size_t>(i)], cpus[static_cast<std::size_t>(i) % cpus.size()]);
  }
  EXPECT_EQ(g.threads, 4);
  // 200 ms of work, ending within one 0.1 ms batch of the end; a loaded machine may delay the
  // last thread's return by a scheduling period or a few: 0.5 s is far beyond that.
  EXPECT_GE(g.seconds, 0.2);
  EXPECT_LT(g.seconds, 0.7);
  std::uint64_t sum = 0;
  for (auto n : g.per_thread) sum += n;
  EXPECT_EQ(sum, g.ops);
  EXPECT_GT(g.ops, 4u);
  EXPECT_GT(g.cpu.usr_s + g.cpu.sys_s, 0.0);
  EXPECT_FALSE(g.stopped);
  EXPECT_TRUE(g.error.empty());
  int done = 0;
  c.ctx.for_each_tracked([&](LiveStats& s) { done += s.done.load() ? 1 : 0; });
  EXPECT_EQ(done, 4) << "every worker marks its live stats done";
}

TEST(WorkerGroup, ReleasesAllThreadsAtOnceAndTimesFixedWork) {
  Ctx c;
  std::atomic<int> min_checked_in{100};
  const std::int64_t t0 = monotonic_ns();
  const GroupRun g = run_group(c.ctx, {.name = "t-fixed", .threads = 3}, [&](Worker& w) {
    // Every thread records its tid before it checks in at the gate: a body that runs sees all
    // three, or the gate let it through early.
    int checked_in = 0;
    c.ctx.for_each_tracked([&](LiveStats& s) { checked_in += s.tid.load() != 0 ? 1 : 0; });
    for (int seen = min_checked_in.load(); checked_in < seen;) {
      if (min_checked_in.compare_exchange_weak(seen, checked_in)) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50 * (w.index() + 1)));
    w.add(10);
  });
  EXPECT_EQ(min_checked_in.load(), 3);
  EXPECT_EQ(g.ops, 30u);
  EXPECT_EQ(g.per_thread, (std::vector<std::uint64_t>{10, 10, 10}));
  // The group lasts as long as its slowest body (150 ms), and not longer than the whole call.
  EXPECT_GE(g.seconds, 0.15);
  EXPECT_LE(g.seconds, static_cast<double>(monotonic_ns() - t0) / 1e9);
}

TEST(WorkerGroup, AStopRequestEndsItPromptly) {
  Ctx c(60);
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    c.ctx.request_stop();
  });
  const GroupRun g = run_group(
      c.ctx, {.name = "t-stop", .threads = 2, .duration_ns = 60'000'000'000}, [](Worker& w) {
        while (w.keep_going()) {
          spin_for_ns(50'000);
          w.add(1);
        }
      });
  stopper.join();
  EXPECT_TRUE(g.stopped);
  // Stopped at ~0.1 s; each body checks every 50 us. 1 s allows for a very loaded machine.
  EXPECT_LT(g.seconds, 1.0);
}

TEST(WorkerGroup, ABodyThatThrowsStopsTheOthersAndIsReported) {
  Ctx c(60);
  const GroupRun g = run_group(
      c.ctx, {.name = "t-throw", .threads = 3, .duration_ns = 60'000'000'000}, [](Worker& w) {
        if (w.index() == 1) throw std::runtime_error("body failed");
        while (w.keep_going()) spin_for_ns(50'000);
      });
  EXPECT_EQ(g.error, "body failed");
  EXPECT_LT(g.seconds, 5.0);
}

TEST(CpuUsage, CountsTheCpuTimeBurnt) {
  const CpuUsage before = CpuUsage::thread(), proc_before = CpuUsage::process();
  burn_cpu_ns(100'000'000, 5'000'000'000);
  const CpuUsage used = CpuUsage::thread() - before;
  // 100 ms of thread CPU time burnt; getrusage's tick-based split may put some under system.
  EXPECT_GE(used.cpu_s(), 0.09);
  EXPECT_LT(used.cpu_s(), 1.0);
  EXPECT_GE((CpuUsage::process() - proc_before).cpu_s(), used.cpu_s() - 0.01);
}

TEST(WorkloadMetrics, CpuMetricsAreDurationsInSecondsOnePerSample) {
  Case c;
  add_cpu_metrics(c, {CpuUsage{.usr_s = 1, .sys_s = 2}, CpuUsage{.usr_s = 3, .sys_s = 4}});
  ASSERT_NE(c.find("cpu_usr_s"), nullptr);
  const Metric& sys = *c.find("cpu_sys_s");
  EXPECT_EQ(sys.kind, MetricKind::kDuration);
  EXPECT_EQ(sys.unit, "s");
  EXPECT_EQ(sys.better, Better::kLower);
  EXPECT_EQ(sys.samples, (std::vector<double>{2, 4}));
}

TEST(WorkloadProbe, DisabledDoesNothingAndAnUnusableCpuIsAReason) {
  Ctx c(1, {0});
  {
    WorkloadProbe off(common_params({{"probe", false}}), c.ctx, 1'000'000'000);
    EXPECT_FALSE(off.enabled());
    EXPECT_EQ(off.start(), "");
    Case k;
    off.add_metrics(k);
    EXPECT_TRUE(k.metrics.empty());
  }
  WorkloadProbe bad(common_params({{"probe_cpu", std::int64_t{4000}}}), c.ctx, 1'000'000'000);
  EXPECT_NE(bad.start().find("probe_cpu 4000 is not a CPU this run may use"), std::string::npos);
}

TEST(WorkloadProbe, MeasuresWakeupsWhileItRuns) {
  if (const std::string why = rt::probe_sched_fifo(); !why.empty()) GTEST_SKIP() << why;
  Ctx c;
  WorkloadProbe probe(common_params(), c.ctx, 1'000'000'000);
  ASSERT_EQ(probe.start(), "");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  probe.stop();
  Case k;
  probe.add_metrics(k);
  const Metric* lat = k.find("probe_wakeup_latency");
  ASSERT_NE(lat, nullptr);
  // 200 ms of 1 ms periods: ~200 wakeups; 100 allows for missed periods on a loaded VM.
  EXPECT_GT(lat->histogram->count(), 100u);
  EXPECT_EQ(k.labels.count("probe_cpu"), 1u);
}

}  // namespace
}  // namespace rtgate::workload
