// The HTML report (`rtgate report`, `run --report`): one self-contained page for a reviewer.
//
// It holds, for the current result and (when given) its baseline: the gate's verdict table with
// each decided metric's evidence, the environment side by side with its differences, each suite's
// status, hygiene, contamination and loads, a table of every non-latency metric in the mmtests
// manner (Hmean or Amean, stddev, min, max, % change per case), throughput against thread count
// where cases sweep it, and per case the latency histograms on a log-count axis (baseline
// overlaid, p99/p99.9/max marked), the per-run quantiles, and the trace analysis of its worst
// samples; with the host's history, a trend chart per metric over its sessions. Charts are
// inline SVG (svg_chart.h); the page loads nothing (its Content-Security-Policy forbids any
// fetch) and runs one small inline script (expand/collapse all). Suites and cases are <details>
// sections with a table of contents, so hundreds of cases stay navigable: cases with a regressed
// or missing metric, and those of small suites, start open.
//
// Knows no suite: every section is derived from kinds, units and labels (a numeric "threads"
// label makes a sweep).
#pragma once

#include <string>

#include "gate/model/verdict.h"
#include "results/report.h"

namespace rtgate::html {

// `baseline` and `gate` may be null (a report of one result); `gate` is compare(*baseline, cur).
// `trend_html`, when given, is the host's history (trend_section.h), placed after the verdict.
std::string render_report(const RunReport& current, const RunReport* baseline,
                          const gate::GateVerdict* gate, const std::string& trend_html = "");

}  // namespace rtgate::html
