// What changed in the causes of a case's latency between two traced results: the cause profiles
// (framework/trace/cause_profile.h) of the baseline and current case, compared class by class.
//
// The promise: a cause is named as grown (or new, when the baseline never had it) only when
//  - both profiles count samples over the same threshold, and each has at least kMinSamples
//    (below it: "too few samples", never a new cause);
//  - its rate, the samples over the threshold it took part in per sample measured (the analysed
//    ones: crossings the analysis budget skipped lower the exposure in proportion), rose by the
//    exact rate test the gate uses for events (count_estimate.h), made quasi-Poisson by the
//    dispersion of its counts over the runs' one-second slices (pooled over the sides that have
//    it, at its upper 75% bound) plus, when the sides are two sessions, the session term of a
//    session's offset of its rate (kCauseSessionTau, a stated prior), significant after Holm
//    over the classes of the case at `alpha`;
//  - its fraction of the samples over the threshold rose beyond both sides' sampling error
//    (Fisher's exact test on the counts scaled down by the same dispersion, Holm over the
//    classes at `alpha`): a run that crossed more often raises every cause's rate;
//  - it is material: both the fraction of samples over the threshold it took part in and its
//    share of their latency rose by at least kMinRise. Rates alone would name every cause of a
//    run that crossed more often; the floors name those whose part of the picture grew.
// Shrunk and gone causes mirror it. The gate never judges any of this; it is evidence beside the
// metric verdicts, and the seeded simulations in tests/unit/cause_compare_calibration_test.cpp
// check the promise on bursty counts, offsets between sessions and uneven runs.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gate/model/cause_diff.h"
#include "results/report.h"

namespace rtgate::gate {

inline constexpr std::uint64_t kMinSamples = 10;
// The default prior of a session's offset of a cause's rate (log scale, one SD): 30% of itself.
inline constexpr double kCauseSessionTau = 0.3;

// `measured_*`: the samples each side measured, the exposure of the rates.
// `two_sessions`: the sides are different sessions, whose offsets the slices cannot show.
CauseComparison compare_causes(const trace::CauseProfile& base, double measured_base,
                               const trace::CauseProfile& cur, double measured_cur, double alpha,
                               bool two_sessions);

// The samples a case measured: its first latency metric's count over all runs.
double measured_samples(const Case& c);

}  // namespace rtgate::gate
