// `--textfile DIR`: the result as DIR/rtgate.prom for node_exporter's textfile collector,
// written atomically (temp file + rename, so the collector never reads half a file), a series at
// a time (report_text.h).
#pragma once

#include <string>

#include "exporters/exporter.h"
#include "exporters/prometheus/series_options.h"
#include "gate/model/verdict.h"
#include "results/report.h"

namespace rtgate::prom {

inline constexpr const char* kTextfileName = "rtgate.prom";
inline constexpr const char* kHistoryTextfileName = "rtgate_history.prom";

// "" when DIR is a writable directory, else why not (checked before any suite runs).
std::string check_textfile_dir(const std::string& dir);

// Writes DIR/rtgate.prom. Returns "" or a one-line error.
std::string write_textfile(const std::string& dir, const RunReport& report,
                           const gate::GateVerdict* gate = nullptr,
                           const SeriesOptions& options = {});

// Writes DIR/rtgate_history.prom: a board's history's verdicts (history_series.h).
std::string write_history_textfile(const std::string& dir, const HistoryDocument& doc);

}  // namespace rtgate::prom
