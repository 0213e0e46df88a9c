// The alternative hypothesis of a two-sample test. Every test in rtgate::stats takes its two
// samples as (x, y), x first, and the alternative says how x relates to y, as R's
// t.test(x, y, alternative = ...) does. The gate passes (current, baseline).
#pragma once

namespace rtgate::stats {

enum class Alternative {
  kTwoSided,  // x and y differ
  kLess,      // x is smaller than y (location or rate)
  kGreater,   // x is larger than y
};

const char* to_string(Alternative alternative);

}  // namespace rtgate::stats
