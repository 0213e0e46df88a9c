// A board's history in the HTML report: one trend chart per metric (its gated statistics as
// series over the sessions in time order, x = session, y = the session's value on a log axis),
// kernel boundaries as labelled vertical marks, change points as marks of their own (worse ones
// in the regression colour), contaminated sessions marked, and a line per change point and for
// the newest kernel under the chart. Rendered from the JSON of exporters/history_report.h, so
// the report and `rtgate history --html` draw the same thing; SVG as the report's other charts.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace rtgate::html {

// The section (<section id="history">), "" when the history has no series.
std::string trend_section(const nlohmann::ordered_json& history);

// A self-contained page holding the section alone (`rtgate history --html FILE`).
std::string render_history_page(const nlohmann::ordered_json& history);

}  // namespace rtgate::html
