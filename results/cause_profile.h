// A case's latency over a threshold, counted by cause class over its analysed samples, as a
// result records it (framework/trace/cause_profile.h builds it; gate/cause compares two).
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace rtgate::trace {

inline constexpr double kPresentShare = 0.10;
inline constexpr std::int64_t kSliceNs = 1'000'000'000;

struct CauseStats {
  std::uint64_t samples = 0;  // samples the class took at least kPresentShare of
  std::int64_t ns = 0;        // latency credited to the class over all samples
  double slice_sq = 0;        // sum over slices of its samples squared
};

struct CauseProfile {
  // Samples counted are those at or over it; 0: the run had no threshold and only each new worst
  // sample was analysed. -1: merged from runs with different thresholds (not comparable).
  std::int64_t threshold_ns = 0;
  std::uint64_t samples = 0;       // samples counted
  std::uint64_t not_analysed = 0;  // crossings over the threshold the analysis budget skipped
  std::int64_t ns = 0;             // their latency, summed
  std::uint64_t slices = 0;        // slices from the first sample's to the last's, per run
  std::map<std::string, CauseStats> causes;

  bool empty() const { return samples == 0 && not_analysed == 0 && causes.empty(); }
  void merge(const CauseProfile& o);
};

}  // namespace rtgate::trace
