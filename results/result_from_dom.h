// A result document's pieces, each parsed as a simdjson DOM, into the report model: a case, a
// suite's own fields, the document's own fields. result_reader.cpp walks the document and hands
// them over; /1, /2 and /3 read into the same model.
#pragma once

#include <simdjson.h>

#include <string>

#include "results/report.h"
#include "results/result_json.h"
#include "results/summary_only_runs.h"

namespace rtgate {}  // namespace rtgate

namespace rtgate::json_dom {

// What a document's schema changes in how its metrics read.
struct Encoding {
  // /3 leaves out the per-run summaries of a metric with one run, which is its summary; before
  // /3, absent per-run summaries are a file written before they existed.
  bool one_run_when_absent = false;
};

// The encoding of a schema; JsonError for one this build does not read.
Encoding encoding_of(const std::string& schema);

Case case_from(simdjson::dom::element v, const std::string& where, Encoding enc);
// The pieces of a latency metric ReadOptions::history_only reads: a summary object, and the
// per-run summaries (/2's and /3's columns or /1's array of summary objects).
LatencySummary latency_summary_from(simdjson::dom::element v, const std::string& where);
std::vector<LatencySummary> runs_from(simdjson::dom::element runs, const std::string& where);
// A suite's own fields ("cases" must be an array; its cases are the caller's).
SuiteResult suite_from(simdjson::dom::element v, const std::string& where,
                       const ReadOptions& options = {});
// The document's own fields ("suites" must be an array; its suites are the caller's).
RunReport report_from_element(simdjson::dom::element root);

}  // namespace rtgate::json_dom
