// A result document's pieces, each parsed as a simdjson DOM, into the report model: a case, a
// suite's own fields, the document's own fields. json_reader.cpp walks the document and hands
// them over; /1, /2 and /3 read into the same model.
#pragma once

#include <simdjson.h>

#include <string>

#include "framework/report/report.h"

namespace rtgate {

// What a reader may leave out. history_only: what `rtgate history` reduces a result to
// (HistoryBuilder::add) and nothing more: the document's and suites' own fields (host, boot,
// kernel, options, parameters, loads) as always, but of a case only its name and of each metric
// its name, kind, unit, better, per-run summaries (latency) or samples (other kinds). Labels,
// analyses and trace evidence are left out, and so are a latency metric's histogram (a third of
// a result's bytes), samples and pooled summary, unless the one run /3 leaves out is that summary.
// What is left out is checked for its structure only (balanced, valid UTF-8), not value by value.
// Default off: a full, fully checked read.
struct ReadOptions {
  bool history_only = false;
};

// read_report_file (json_exporter.h) with options; declared beside the reader's pieces until
// json_exporter.h, where callers outside exporters/ would look for it, takes it over.
RunReport read_report_file(const std::string& path, const ReadOptions& options);

}  // namespace rtgate

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
