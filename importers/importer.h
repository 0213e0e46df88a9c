// Importers: another tool's output as an rtgate result (`rtgate import`), so that the gate, the
// report, the exporters and the history read it as they read rtgate's own.
//
// One file per format registers itself (RTGATE_IMPORTER); nothing lists them. The format is told
// from the content, never from the file name: every importer's detect() sees the text (and its
// JSON form when it is JSON), and exactly one must claim it. parse() turns it into a RunReport
// of one run of one suite, with the environment, times and run options the file records, and
// the suite's ImportRecord (tool, version, command line, notes).
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "results/report.h"

namespace rtgate::importers {

// Bad input: a one-line reason (the CLI prints it and exits 2).
class ImportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ImportInput {
  std::string_view text;                 // the file's content
  const nlohmann::json* json = nullptr;  // the content parsed as JSON; nullptr when it is not JSON
  std::string name;                      // the file, for messages and ImportRecord::files
  // The command that wrote the file, given by the user (--cmdline) for a format that does not
  // record it (rtla's text); "" when not given. A format that records its own ignores it.
  std::string cmdline;
};

struct ImporterSpec {
  std::string name;         // "cyclictest-json"
  std::string description;  // one line for `rtgate import --help`
  // Whether the content is this format. Cheap, never throws.
  bool (*detect)(const ImportInput& in) = nullptr;
  // The run the file holds; throws ImportError naming what is wrong.
  RunReport (*parse)(const ImportInput& in) = nullptr;
};

class ImporterRegistry {
 public:
  static ImporterRegistry& instance();
  // Aborts the process on a duplicate name: a build mistake.
  void add(ImporterSpec spec);
  // Every importer, by name.
  const std::vector<ImporterSpec>& all() const { return specs_; }

 private:
  std::vector<ImporterSpec> specs_;
};

struct ImporterRegistrar {
  explicit ImporterRegistrar(ImporterSpec spec) {
    ImporterRegistry::instance().add(std::move(spec));
  }
};

}  // namespace rtgate::importers

#define RTGATE_IMPORTER_CONCAT_INNER(a, b) a##b
#define RTGATE_IMPORTER_CONCAT(a, b) RTGATE_IMPORTER_CONCAT_INNER(a, b)
#define RTGATE_IMPORTER(...)                                                                      \
  namespace {                                                                                     \
  const ::rtgate::importers::ImporterRegistrar RTGATE_IMPORTER_CONCAT(rtgate_importer_registrar_, \
                                                                      __LINE__){                  \
      ::rtgate::importers::ImporterSpec __VA_ARGS__};                                             \
  }
