// Rendering a board's history (gate/history/history_judge.h): the table `rtgate history`
// prints and its JSON form ("rtgate.history/1"), which the HTML trend section and
// ci/gate-kernel.sh read.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "gate/history/history.h"
#include "gate/history/history_judge.h"

namespace rtgate {

inline constexpr const char* kHistorySchema = "rtgate.history/1";

// "worse", "not_worse" or "too_short", as the JSON and Prometheus name the outcome.
const char* history_outcome_name(gate::HistoryOutcome o);

// The header (host, sessions per kernel, the family), one row per statistic with something to
// say (a change point, the newest kernel worse or better, a drift whose interval excludes 0),
// the count of the others, and the outcome line.
std::string render_history_table(const gate::History& history, const gate::HistoryReport& report);

// Everything: the sessions, and per statistic its session values (geometric means in the
// metric's unit; events per run for a rate), change points, newest test and drift.
nlohmann::ordered_json history_json(const gate::History& history,
                                    const gate::HistoryReport& report);

}  // namespace rtgate
