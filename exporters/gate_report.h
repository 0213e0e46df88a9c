// Rendering a gate comparison (framework/gate) for people and machines: the mmtests-style table
// (plain or markdown) of `rtgate compare` / `rtgate gate`, and its JSON form.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "framework/gate/verdict.h"

namespace rtgate {

enum class TableFormat { kTable, kMarkdown };

// One row per metric: suite, case, metric, statistic, baseline, current, % change, a
// significance mark ("*" when a test fired), and the verdict; then the reasons of every row that
// is not unchanged, the environment differences and the overall verdict.
std::string render_gate_table(const gate::GateReport& report, TableFormat format);
nlohmann::ordered_json gate_json(const gate::GateReport& report);

}  // namespace rtgate
