// `rtgate calibrate` for people: this host's noise per gated statistic, the changes a gate
// detects at several run counts, the floors it supports and the A/A gate's predicted outcome;
// and for `calibrate --sessions`, the between-session spread per statistic.
#pragma once

#include <string>
#include <vector>

#include "gate/calibration/calibration.h"
#include "gate/noise/session_noise.h"

namespace rtgate {

// The table and what its columns mean.
std::string render_calibration(const std::vector<gate::MetricNoise>& noise,
                               const gate::Policy& defaults, const gate::CalibrationOptions& o);

// The session noise learned from `sessions` results kept in `dir`, and how to use them.
std::string render_session_noise(const gate::NoiseModel& model, int sessions,
                                 const std::string& dir);

}  // namespace rtgate
