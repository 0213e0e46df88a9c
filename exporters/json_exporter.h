// JSON results, schema "rtgate.result/2" (DESIGN.md), written atomically; and the reader that
// the gate and the tests use to load them back (it reads /1 too).
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

#include "exporters/exporter.h"

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
RunReport read_report_file(const std::string& path);
// The same for a document already in nlohmann form (tests): it is written out and read back.
RunReport report_from_json(const nlohmann::json& doc);

class JsonExporter : public Exporter {
 public:
  explicit JsonExporter(std::string path) : path_(std::move(path)) {}
  ExportStatus write(const ExportInput& in) override {
    return ExportStatus::from(write(in.report));
  }
  // "" or a one-line reason.
  std::string write(const RunReport& report);

 private:
  std::string path_;
};

}  // namespace rtgate
