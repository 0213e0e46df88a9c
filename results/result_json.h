// JSON results, schema "rtgate.result/3" (DESIGN.md; README "Results"), written atomically, as
// gzip when the path ends in ".gz" (gzip_codec.h); and the reader that the gate and the tests use
// to load them back (it reads /1 and /2 too, plain or gzip).
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

#include "results/report.h"

namespace rtgate {

nlohmann::ordered_json to_json(const RunReport& report);
std::string to_json_text(const RunReport& report);

class JsonError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses a result document. Throws JsonError with a one-line reason naming the offending field
// when the text is not JSON, the document not a supported schema or malformed.
RunReport report_from_text(std::string_view text);
// A result file's bytes, plain JSON or gzip; `name` names the file in errors.
RunReport report_from_bytes(std::string_view bytes, const std::string& name);
// A file, pipe or process substitution, plain JSON or gzip (told by its first bytes, whatever its
// name); a gzip result may inflate to at most max_input_bytes().
RunReport read_report_file(const std::string& path);
// The most a result may take, read or inflated: io::max_input_bytes() (256 MiB by default, 5
// times a result of 10,000 cases; reading one takes about 5 times its size). A farm with bigger
// results raises it (--max-input, RTGATE_MAX_INPUT_MB). Past it a read fails, naming the file
// and the limit.
std::size_t max_input_bytes();
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

// read_report_file with options.
RunReport read_report_file(const std::string& path, const ReadOptions& options);
// The same for a document already in nlohmann form (tests): it is written out and read back.
RunReport report_from_json(const nlohmann::json& doc);

// Writes `report` to `path` atomically (temp file and rename), gzip when it ends in ".gz".
// Returns "" or a one-line reason.
std::string write_result_file(const std::string& path, const RunReport& report);

}  // namespace rtgate
