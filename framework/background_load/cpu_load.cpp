// cpu:N — N SCHED_OTHER busy threads, unpinned: the plain "the machine is busy" competitor.
#include <cstdint>

#include "framework/background_load/fast_rand.h"
#include "framework/background_load/load_registry.h"
#include "framework/background_load/workers.h"

namespace rtgate::load {
namespace {

constexpr int kMaxThreads = 256;
// One loop: long enough that the stop check and counter update cost nothing (a few µs), short
// enough that stop() is not delayed by it.
constexpr int kIterationsPerLoop = 4096;

class CpuLoad final : public Load {
 public:
  explicit CpuLoad(int threads) : threads_(threads) {}
  ~CpuLoad() override { stop(); }

  void start() override {
    try {
      workers_.start(
          threads_, [](int i) { return other_thread("load-cpu" + std::to_string(i)); },
          [this](int i, Workers::Counter& ops) { spin(i, ops); });
    } catch (const LoadError&) {
      stop();
      throw;
    }
  }
  void stop() override { workers_.stop(); }
  LoadReport report() const override {
    LoadReport r = workers_.report("cpu", "cpu:" + std::to_string(threads_), threads_, "loops");
    r.note = "loop = " + std::to_string(kIterationsPerLoop) + " integer and floating-point steps";
    return r;
  }

 private:
  // Integer and floating-point work with a dependency chain, so the compiler can neither fold
  // it away nor vectorise it into something unrepresentative.
  void spin(int index, Workers::Counter& ops) {
    workload::FastRand rng(static_cast<std::uint64_t>(index));
    std::uint64_t x = 0;
    double f = 1.0;
    while (!workers_.stopping()) {
      for (int i = 0; i < kIterationsPerLoop; ++i) {
        x = rng.next();
        f = f * 0.999999 + static_cast<double>(x & 0xFF) * 1e-9;
      }
      ops.add(1);
    }
    // Publishing the result is what keeps the compiler from discarding the arithmetic.
    sink_.fetch_add(x + static_cast<std::uint64_t>(f), std::memory_order_relaxed);
  }

  int threads_;
  std::atomic<std::uint64_t> sink_{0};
  Workers workers_;  // last: destroyed (joined) before the members its threads use
};

std::unique_ptr<Load> make(const std::vector<std::string>& args, std::string* error) {
  const std::optional<int> n = thread_count_arg(args, kMaxThreads, error);
  return n ? std::make_unique<CpuLoad>(*n) : nullptr;
}

}  // namespace
}  // namespace rtgate::load

RTGATE_LOAD_KIND(cpu, {.name = "cpu",
                       .usage = "cpu[:N]",
                       .help = "N SCHED_OTHER busy threads, unpinned (ops: arithmetic loops)",
                       .make = &rtgate::load::make});
