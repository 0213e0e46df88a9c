// rtgate calibrate --sessions N: the selection run as N separate processes (sessions), each
// result kept in a directory, and this host's between-session spread printed per statistic: the
// history `gate --history DIR` learns the session noise from (gate/noise/session_noise.h).
#pragma once

#include <string>

#include "cli/run_common.h"

namespace rtgate::cli {

// Runs `rtgate run` with the run options `run` (its -o aside) `sessions` times, one process
// each, writing DIR/session-K.json, then prints the session noise. Returns the exit code.
int calibrate_sessions(const RunArgs& run, int sessions, const std::string& dir);

}  // namespace rtgate::cli
