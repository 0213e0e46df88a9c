// Rendering a gate comparison (gate/) for people and machines: the mmtests-style table
// (plain or markdown) of `rtgate compare` / `rtgate gate`, and its JSON form.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gate/model/verdict.h"

namespace rtgate {

enum class TableFormat { kTable, kMarkdown };

// One row per metric: suite, case, metric, statistic, baseline, current, % change, the change
// with its interval, the change this data could detect, the evidence that decided, and the
// verdict; then the reason and evidence of every gated row that is not unchanged, what is
// incomparable, the environment differences, the gate's alpha and family, and the verdict.
std::string render_gate_table(const gate::GateVerdict& report, TableFormat format);
// The same, written to `out` as it is made (the CLI: a large table is never held whole).
void write_gate_table(const gate::GateVerdict& report, TableFormat format, std::FILE* out);

// The cells of one table row, in the order of gate_table_header(): suite, case, metric, stat,
// baseline, current, change, effect [CI], detectable, decided by, verdict.
std::vector<std::string> gate_row(const gate::MetricVerdict& m);
const std::vector<std::string>& gate_table_header();

// One line per metric for logs and JUnit: "case/metric: verdict, stat effect, detectable ...,
// decided by ...".
std::string gate_metric_line(const gate::MetricVerdict& m);
// The cause comparisons of a gate or a history, as the JSON "causes" array of both.
nlohmann::ordered_json cause_comparisons_json(const std::vector<gate::CauseComparison>& causes);
nlohmann::ordered_json gate_json(const gate::GateVerdict& report);
// gate_json(report).dump(2) and a newline, written to `out` a metric at a time.
void write_gate_json(const gate::GateVerdict& report, std::FILE* out);

}  // namespace rtgate
