// A cause profile: what delayed one case's measuring thread over a traced run, counted over every
// analysed sample rather than explained for the worst one alone. Each sample's analysis parts are
// folded into cause classes, named so that the same cause has the same name on another boot or
// kernel: an IRQ by handler name, a softirq by vector, an interrupt vector, a task by its comm with
// the digits made a pattern ("kworker/*:*H", "load-rt*") and its policy and priority, idle exit,
// the host (vCPU not running), the thread itself, and time the trace could not account for.
//
// Per class it keeps the samples the class took at least kPresentShare of (its "samples": the
// count the comparison tests) and the latency credited to it (its share of the latency over the
// threshold). Counts of one class come in bursts (a NIC's interrupts, a kworker's batch), and
// samples over a threshold come in clumps, so the samples are also binned in kSliceNs slices of
// the run: per class the sum of its per-slice counts squared, sum(x_s^2), and the slices the run's
// samples spanned give the dispersion of the class's count over the run
// (gate/cause/cause_compare.h), and merge across runs by addition.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "framework/trace/sample_analysis.h"
#include "results/cause_profile.h"

namespace rtgate::trace {

// The class a part belongs to: "softirq NET_RX", "irq virtio0-input.0", "vector local_timer",
// "task kworker/*:*H (SCHED_OTHER)", "task load-rt* (SCHED_FIFO 98)", "idle exit", "host",
// "self", "untraced".
std::string cause_class(const AnalysisPart& part);

// "kworker/1:2H" -> "kworker/*:*H": the digits of CPU numbers, pool ids and thread indices.
std::string comm_pattern(const std::string& comm);

// Builds one thread's profile sample by sample, in any order.
class CauseProfileBuilder {
 public:
  explicit CauseProfileBuilder(std::int64_t threshold_ns = 0) : threshold_ns_(threshold_ns) {}
  // Whether the sample counts: at or over the threshold (every sample when there is none).
  bool counts(const SampleAnalysis& a) const;
  void add(const SampleAnalysis& a);  // a sample that does not count is ignored
  void skipped() { ++not_analysed_; }
  CauseProfile result() const;

 private:
  std::int64_t threshold_ns_;
  std::uint64_t not_analysed_ = 0;
  std::map<std::int64_t, std::map<std::string, std::uint64_t>> slices_;  // classes' samples
  std::map<std::string, CauseStats> causes_;
  std::uint64_t samples_ = 0;
  std::int64_t ns_ = 0;
};

}  // namespace rtgate::trace
