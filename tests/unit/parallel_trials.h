// The calibration tests' seeded trials, split over two threads (the machine kind has two cores).
// Trial i runs on thread i % 2 with that thread's generator, seeded from `seed` and the thread,
// so the figures are the same on every run and every machine.
#pragma once

#include <cstdint>
#include <random>
#include <thread>
#include <vector>

namespace rtgate::test {

// `one(rng, tally, i)` for i in [0, n); the threads' tallies merged (Tally::merge) in order.
template <class Tally, class One>
Tally parallel_trials(int n, std::uint64_t seed, const One& one) {
  constexpr int kThreads = 2;
  std::vector<Tally> parts(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(seed * kThreads + static_cast<std::uint64_t>(t));
      for (int i = t; i < n; i += kThreads) one(rng, parts[static_cast<std::size_t>(t)], i);
    });
  }
  for (std::thread& th : threads) th.join();
  Tally all;
  for (const Tally& p : parts) all.merge(p);
  return all;
}

}  // namespace rtgate::test
