// Exporters register themselves with their command-line options, so that `run`, `serve` and
// `export` share one list and a new exporter is one file (exporters/**/*_export.cpp) plus its test.
//
// An exporter file describes its options (flag, value name, help), a check of their values made
// before anything runs (exit 2 on refusal), and a factory that turns the values into an Exporter,
// or into nothing when its options were not given. The CLI adds every registered option to the
// commands that export, and writes every exporter the user asked for (cli/export_options.h).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "exporters/exporter.h"

namespace rtgate {

struct ExportOption {
  std::string flag;        // "--junit"
  std::string value_name;  // "FILE"; "" for a flag that takes no value
  std::string help;
  std::string default_value;  // shown in --help and given to check()/make() when absent
};

// The value of every registered option by flag: "" when not given (and without a default),
// "true" for a flag that was set.
using ExportValues = std::map<std::string, std::string>;

struct ExporterSpec {
  std::string name;
  std::vector<ExportOption> options;
  // "" when the values are acceptable, else a one-line reason starting with the flag
  // ("--junit: '/x' is a directory"). Called before any suite runs.
  std::string (*check)(const ExportValues& values) = nullptr;
  // The exporter the values ask for, or nullptr when they ask for none (an options-only spec
  // such as the Prometheus options always returns nullptr).
  std::unique_ptr<Exporter> (*make)(const ExportValues& values) = nullptr;
  // Exporters write in ascending order (local files before the network push).
  int order = 0;
  // The documents it writes (Document bits): its options are offered by the commands that
  // export one of them.
  unsigned documents = kResultDocument;
  // A format for standard output ("table", "json"), chosen by the commands' `--format NAME`
  // rather than by options of its own; "" for an exporter with options. make() is given the
  // values and must return an exporter: --format chose it.
  std::string format;
};

class ExporterRegistry {
 public:
  static ExporterRegistry& instance();
  // Aborts the process on a duplicate name or flag: a build mistake.
  void add(ExporterSpec spec);
  // Every spec, in write order.
  const std::vector<ExporterSpec>& all() const { return specs_; }

 private:
  std::vector<ExporterSpec> specs_;
};

struct ExporterRegistrar {
  explicit ExporterRegistrar(ExporterSpec spec) {
    ExporterRegistry::instance().add(std::move(spec));
  }
};

// The flag that chooses among the formats (ExporterSpec::format).
inline constexpr const char* kFormatFlag = "--format";

// The values with each option's default filled in where it was not given.
ExportValues with_defaults(ExportValues values);

// For an option naming an output file: "" when it was not given or can be written there, else
// "FLAG: why" (output_file.h's check_output).
std::string check_output_option(const ExportValues& values, const std::string& flag);

}  // namespace rtgate

#define RTGATE_EXPORTER_CONCAT_INNER(a, b) a##b
#define RTGATE_EXPORTER_CONCAT(a, b) RTGATE_EXPORTER_CONCAT_INNER(a, b)
#define RTGATE_EXPORTER(...)                                                                      \
  namespace {                                                                                     \
  const ::rtgate::ExporterRegistrar RTGATE_EXPORTER_CONCAT(rtgate_exporter_registrar_, __LINE__){ \
      ::rtgate::ExporterSpec __VA_ARGS__};                                                        \
  }
