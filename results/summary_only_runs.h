// The pieces of a result that imported metrics add (report.h), read for both readers (the full
// DOM read and the history path): a summary-only latency metric ("summary_only": true, its
// "runs" the columns count, min, mean and max alone) and a metric's "unknown_quantiles".
#pragma once

#include <simdjson.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "results/report.h"

namespace rtgate::json_dom {

using simdjson::dom::element;

// Per-run summaries from columns ({"count": [...], "p99": [...], ...}): every field of
// LatencySummary (`all_fields`), or only count, min, mean and max (a summary-only metric's runs).
// Each column present, as long as "count", every value valid; JsonError naming `where` otherwise.
std::vector<LatencySummary> summary_columns(simdjson::dom::object cols, const std::string& where,
                                            bool all_fields);

// true or false; JsonError naming `where` otherwise.
bool flag(element v, const std::string& where);

// ["p99", "p999"]: quantile names (LatencySummary's); JsonError for anything else.
std::vector<std::string> quantile_names(element v, const std::string& where);

// Makes `m` summary-only with its runs: those read in place by the history path (`runs_read`,
// with the columns it found absent in `missing`), or `runs`' columns. Only count, min, mean and
// max are taken (the rest are unknown, 0), each present and one value per run, and each run's
// min <= mean <= max. JsonError naming `where` otherwise.
void finish_summary_only(Metric& m, const std::vector<std::string>& missing, bool runs_read,
                         std::optional<element> runs, const std::string& where);

// What the history path found of those pieces (raw text, "" when absent; the runs' columns it
// read in place leave `runs` empty and name the absent ones in `missing_columns`).
struct ImportedParts {
  std::string_view summary_only, unknown, runs;
  std::vector<std::string> missing_columns;
};

// The history path's end of a latency metric's imported parts: its unknown quantiles, and, when
// summary-only, finish_summary_only (returns true: the metric is read). Otherwise checks that
// the columns read in place were all there and returns false. `parser` reads the raw pieces;
// `where` names the metric.
bool read_imported_parts(Metric& m, const ImportedParts& p, simdjson::dom::parser& parser,
                         const std::string& where);

}  // namespace rtgate::json_dom
