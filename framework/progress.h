// The live progress line shown on a TTY while a run longer than 2 s goes on, cyclictest-style:
// elapsed time, samples so far, and the current max per tracked thread. Silent otherwise.
#pragma once

#include <cstdint>
#include <string>

#include "framework/measure/run_context.h"

namespace rtgate {

class ProgressLine {
 public:
  ProgressLine(RunContext& ctx, std::string suite, double duration_s, int run_index, int runs,
               bool enabled);
  ~ProgressLine();  // erases the line
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Redraws at most every 250 ms; cheap to call more often.
  void tick();

  // The text of the line, without terminal control characters (exposed for tests).
  std::string render(double elapsed_s);

 private:
  RunContext& ctx_;
  std::string suite_;
  double duration_s_;
  int run_index_;
  int runs_;
  bool enabled_;
  std::int64_t start_ns_;
  std::int64_t last_draw_ns_ = 0;
  bool drawn_ = false;
};

}  // namespace rtgate
