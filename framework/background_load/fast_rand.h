// FastRand: a per-thread pseudo-random generator for workloads (xorshift64*). glibc's random()
// takes a process-wide lock on every call, which would add a userspace contention point the
// kernel workloads are not meant to measure; this one is a few instructions on thread-local
// state. Not for anything that needs statistical quality beyond "spread over the buffer".
#pragma once

#include <cstdint>

namespace rtgate::workload {

class FastRand {
 public:
  // Any seed works (0 is mapped to a fixed non-zero state); seeds that differ give unrelated
  // sequences because the seed is mixed first (splitmix64).
  explicit FastRand(std::uint64_t seed) {
    std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    state_ = (z ^ (z >> 31)) | 1;
  }
  std::uint64_t next() {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 0x2545f4914f6cdd1dULL;
  }
  // Uniform enough in [0, n) for n > 0 (multiply-shift, no modulo bias worth mentioning).
  std::uint64_t below(std::uint64_t n) {
    __extension__ using U128 = unsigned __int128;  // __extension__: no -Wpedantic warning
    return static_cast<std::uint64_t>((static_cast<U128>(next()) * n) >> 64);
  }

 private:
  std::uint64_t state_;
};

}  // namespace rtgate::workload
