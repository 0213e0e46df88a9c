#include "framework/workload/worker_group.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "framework/background_load/workers.h"
#include "framework/measure/clock.h"

namespace rtgate::workload {

bool GroupClock::keep_going() const {
  if (abort.load(std::memory_order_relaxed) || ctx.stop_requested()) return false;
  const std::int64_t end = end_ns.load(std::memory_order_relaxed);
  return end == 0 || monotonic_ns() < end;
}

GroupRun run_group(RunContext& ctx, const GroupSpec& spec, const Body& body) {
  const int n = std::max(1, spec.threads);
  GroupClock clock(ctx);
  std::vector<std::unique_ptr<Worker>> workers;
  std::vector<std::int64_t> finished(static_cast<std::size_t>(n), 0);
  for (int i = 0; i < n; ++i) {
    const int cpu =
        spec.cpus.empty() ? -1 : spec.cpus[static_cast<std::size_t>(i) % spec.cpus.size()];
    workers.push_back(std::make_unique<Worker>(
        i, cpu, ctx.track(spec.name + "/" + std::to_string(i)), clock));
  }
  // The gate: every thread checks in, then waits for `go`. A C++20 atomic wait (a futex) costs
  // the waiting threads no CPU, so the last ones to be created are not starved by the first.
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::mutex error_mutex;
  std::string error;

  load::Workers threads;
  auto thread_spec = [&](int i) {
    rt::ThreadSpec s = load::other_thread(spec.name + std::to_string(i));
    const int cpu = workers[static_cast<std::size_t>(i)]->cpu();
    if (cpu >= 0) s.cpus = {cpu};
    return s;
  };
  auto run_one = [&](int i, load::Workers::Counter&) {
    Worker& w = *workers[static_cast<std::size_t>(i)];
    w.live().tid.store(gettid(), std::memory_order_relaxed);
    ready.fetch_add(1);
    ready.notify_all();
    go.wait(false);
    try {
      if (!clock.abort.load()) body(w);
    } catch (const std::exception& e) {
      std::lock_guard lock(error_mutex);
      if (error.empty()) error = e.what();
      clock.abort.store(true);
    }
    finished[static_cast<std::size_t>(i)] = monotonic_ns();
    w.live().done.store(true, std::memory_order_relaxed);
  };
  auto release = [&] {
    go.store(true);
    go.notify_all();
  };

  try {
    threads.start(n, thread_spec, run_one);
  } catch (const std::exception& e) {
    clock.abort.store(true);
    release();
    threads.stop();
    throw std::runtime_error(spec.name + ": " + e.what());
  }
  for (int seen = ready.load(); seen < n; seen = ready.load()) ready.wait(seen);

  const CpuUsage cpu_before = CpuUsage::process();
  const std::int64_t start = monotonic_ns();
  if (spec.duration_ns > 0) clock.end_ns.store(start + spec.duration_ns);
  release();
  threads.join();
  const CpuUsage cpu_after = CpuUsage::process();

  GroupRun out;
  out.threads = n;
  out.seconds =
      static_cast<double>(*std::max_element(finished.begin(), finished.end()) - start) / 1e9;
  for (const auto& w : workers) {
    out.per_thread.push_back(w->ops());
    out.ops += w->ops();
  }
  out.cpu = cpu_after - cpu_before;
  out.stopped = ctx.stop_requested();
  out.error = error;
  return out;
}

}  // namespace rtgate::workload
