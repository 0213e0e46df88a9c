// One suite of the HTML report: its status and the gate's verdict, parameters, hygiene and
// contamination, loads, the metric table and sweep charts (workload_tables.h), the trace
// analysis, and a collapsible section per case with its latency charts (latency_charts.h).
#pragma once

#include <string>

#include "exporters/html/verdict_lookup.h"
#include "results/report.h"

namespace rtgate::html {

// Anchors the table of contents and the verdict table link to.
std::string suite_anchor(const std::string& suite);
std::string case_anchor(const std::string& suite, const std::string& case_name);
// Whether a case gets a section of its own (it has a latency metric or is contaminated); the
// other cases are rows of the suite's metric table.
bool has_case_section(const Case& c);

// `base` and the index's suite verdict may be null.
std::string suite_section(const SuiteResult& cur, const SuiteResult* base,
                          const VerdictIndex& verdicts, int cpus, bool open);

}  // namespace rtgate::html
