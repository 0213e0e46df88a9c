// Change points in one statistic's history: the series of its session values (a session's mean
// of per-run log values, in time order), each session labelled with the kernel it ran.
//
// The method (gate/README.md, "A board's history", says why this one):
//   1. Clean: a session further than `hampel_k` robust SDs from the median of itself and its two
//      neighbours (the first or last three at the ends) is pulled back to that bound (a Hampel
//      filter). One outlier session cannot make
//      a change point; two in a row can, because two sessions of a kernel are what a change is.
//      The robust SD comes from the successive differences, which a step moves only once.
//   2. Binary segmentation: the split of a segment with the largest two-sample t (pooled
//      within-segment variance, segments of at least `min_segment` sessions) is a change point
//      when its p-value, times the number of splits tried (Bonferroni over the splits), is at
//      most `alpha`; both halves are then searched the same way. A series with no change reports
//      one with probability at most alpha, whatever the split positions' dependence.
//   3. The newest kernel: its sessions against the segment before them (since the last change
//      point before them, at least `min_before` sessions), one pre-specified split,
//      one-sided in the worse direction at `newest_alpha` (no search, so no split correction);
//      with one session it is a prediction test. Raw values: the newest are what is tested.
//   4. Drift: the least-squares slope of the newest segment's session values on the kernel's
//      ordinal, per kernel, with its 90% interval.
#pragma once

#include <cmath>
#include <vector>

namespace rtgate::gate {

struct ChangePointTest {
  double alpha = 0.05;         // two-sided, per series, for the binary segmentation
  double newest_alpha = 0.05;  // one-sided, for the newest kernel's test
  bool higher_is_worse = true;
  int min_segment = 2;
  int min_before = 3;  // sessions the newest kernel's test needs before it
  double hampel_k = 4;
  double resolution = 1e-3;  // the smallest SD a segment is taken to have (log scale)
  // The newest kernel's test refers to Student t with at most this many degrees of freedom: the
  // tails the history's sessions show (history_judge.cpp matches it to their kurtosis), so that
  // an outlier session of the newest kernel is judged by the tails sessions really have.
  double tail_df = INFINITY;
  // The same for the binary segmentation's splits, from the cleaned sessions' kurtosis: a split
  // that cuts off two or three sessions is a test of their mean, as heavy-tailed as they are.
  double split_tail_df = INFINITY;
};

// A change between two segments: `at` is the first session of the later one (series index).
struct Shift {
  int at = -1;
  int before = 0, after = 0;  // sessions in the two segments compared
  double size = NAN;          // later mean - earlier mean (log scale)
  double lo = NAN, hi = NAN;  // its 90% interval
  double se = NAN, df = 0;    // its standard error and degrees of freedom
  double p = 1;               // adjusted p-value (BS: times the splits tried)
  double detectable = NAN;    // the size this test finds with 90% power (newest test only)
  bool found = false;         // significant at the test's level
};

struct Drift {
  int kernels = 0;  // distinct kernels in the newest segment (a slope needs 3)
  int from = 0;     // the segment's first session
  double per_kernel = NAN, lo = NAN, hi = NAN;
};

struct SeriesFindings {
  std::vector<double> cleaned;
  std::vector<Shift> changes;  // in order of `at`
  Shift newest;                // at -1 when the series is too short to test it
  Drift drift;
};

// `values` and `kernel` (an ordinal per session, equal for sessions of one kernel) in time
// order, of equal size and without NaN.
SeriesFindings find_changes(const std::vector<double>& values, const std::vector<int>& kernel,
                            const ChangePointTest& test);

// Step 3 alone, for findings of the same series (their cleaned values and change points).
Shift test_newest(const std::vector<double>& values, const std::vector<int>& kernel,
                  const SeriesFindings& findings, const ChangePointTest& test);

// The mean of the cleaned segment before a shift: the level it moved from.
double level_before(const SeriesFindings& findings, const Shift& shift);

// The Hampel-cleaned series (step 1 above).
std::vector<double> hampel_clean(const std::vector<double>& values, double k, double floor_sd);

}  // namespace rtgate::gate
