// A latency metric's per-run columns ("runs": {"count": [...], "p99": [...], ...}) read where
// they stand in an On-Demand walk (result_reader.cpp's history path): the same checks as the DOM
// reader's runs_from (every column, one value per run, integers where the field is one, finite
// numbers), without re-serialising the columns and parsing them again as a DOM.
#pragma once

#include <simdjson.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "results/report.h"

namespace rtgate {

// The runs of the columns in `v`, or nullopt when `v` is not an object (the older array of
// summaries, which the caller reads as before). Throws JsonError naming `where()` on bad input.
// A column that is absent throws too, unless `missing` is given: then its name is added there
// for the caller to judge (a summary-only metric has count, min, mean and max only, report.h).
std::optional<std::vector<LatencySummary>> runs_on_demand(
    simdjson::ondemand::value v, const std::function<std::string()>& where,
    std::vector<std::string>* missing = nullptr);

}  // namespace rtgate
