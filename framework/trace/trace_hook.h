// TraceHook: the SampleHook of a traced run (periodic_loop.h). Every periodic loop of the run
// offers it each sample; over the threshold, and at each new worst sample of its CPU (about ln N
// times in N samples, so the collector can analyse every CPU's worst; above the floor the
// collector lowers to the CPU's worst once host time is set aside), it writes a trace marker
// naming the thread, the deadline and the latency (cyclictest's tracemark), and over the break
// threshold it freezes the
// trace, records why and asks the run to stop (cyclictest's breaktrace). Both are one write(2)
// through TraceSession's pre-opened descriptors; the marker text is formatted into a stack
// buffer with std::to_chars, so nothing on the measuring thread allocates or locks.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "framework/measure/periodic_loop.h"
#include "framework/trace/trace_session.h"

namespace rtgate::trace {

class TraceHook : public SampleHook {
 public:
  // threshold_ns / break_ns <= 0: off. `stop` is set when the break fires (the run's stop flag).
  TraceHook(const TraceSession& session, std::int64_t threshold_ns, std::int64_t break_ns,
            std::atomic<bool>* stop);

  bool on_sample(const LiveStats& who, std::int64_t deadline_ns,
                 std::int64_t latency_ns) noexcept override;

  // From the collector: samples of `cpu` above `ns` are to be marked from now on (the worst the
  // guest caused there), if that is below the CPU's worst so far. Lock-free; any thread.
  void lower_mark_floor(int cpu, std::int64_t ns) noexcept;

  std::uint64_t marks() const { return marks_.load(std::memory_order_relaxed); }
  bool broke() const { return broke_.load(std::memory_order_acquire); }
  // "break: cpu1 latency 612.3 us over --break-us 500" once broke() (read after the threads end).
  std::string break_reason() const;

  // The marker text for a sample: "rtgate: cpu1 latency_ns=612345 deadline_ns=123456789", with
  // " break" appended for the breaking sample. Writes at most `size` bytes; returns the length.
  static std::size_t format_marker(char* out, std::size_t size, const std::string& label,
                                   std::int64_t latency_ns, std::int64_t deadline_ns,
                                   bool is_break = false) noexcept;

 private:
  const TraceSession& session_;
  std::int64_t threshold_ns_, break_ns_;
  std::atomic<bool>* stop_;
  // The latency a sample must beat to be marked, per CPU (indexed by sched_getcpu()): the worst
  // seen so far, or lower where the collector lowered it. Relaxed: a floor raised by a sample and
  // lowered by the collector at once only marks a few more samples.
  bool over_floor(std::int64_t latency_ns) noexcept;
  long cpus_;
  std::unique_ptr<std::atomic<std::int64_t>[]> floor_ns_;
  std::atomic<std::uint64_t> marks_{0};
  std::atomic<bool> broke_{false};
  // The breaking sample, written once by the thread that wins `broke_`.
  const LiveStats* break_who_ = nullptr;
  std::int64_t break_latency_ns_ = 0;
};

}  // namespace rtgate::trace
