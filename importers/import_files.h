// `rtgate import`'s work: files to one result.
//
// Each file is one run. Its format is told from its content (importer.h); files of one tool and
// the same parameters become runs of one suite, files of different tools different suites. One
// result is one session of one machine: files that name different machines or kernels are
// refused, and files of one suite measured with different parameters too (import them apart).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "importers/importer.h"
#include "results/report.h"

namespace rtgate::importers {

struct ImportOptions {
  // The command that wrote a file whose format does not record it (rtla's text).
  std::string cmdline;
  // --host-env: this machine's environment (capture_environment()), for what the files do not
  // record (CPU model, isolation, throttling, ...), after checking that they name it: for an
  // import run where the tool ran. nullptr: the files' own environment alone.
  const Environment* host = nullptr;
};

struct ImportedFile {
  std::string path, format, suite;
};

struct Imported {
  RunReport report;
  std::vector<ImportedFile> files;
};

// One file's content: the importer that claims it and its run. Throws ImportError (one line,
// naming `name`) when no importer claims it or it is malformed.
std::pair<const ImporterSpec*, RunReport> import_text(std::string_view text,
                                                      const std::string& name,
                                                      const std::string& cmdline = "");

// Several runs (each import_text's report) as one result. Throws ImportError when they cannot be
// one session's (machines or kernels differ) or one suite's runs differ in parameters, tool or
// what they measured (a histogram against none).
RunReport combine_runs(std::vector<RunReport> runs, const std::vector<std::string>& names);

// --host-env: `host` (capture_environment()) for what the result does not record. Throws
// ImportError when the result names another machine, kernel or PREEMPT_RT state.
void apply_host_environment(RunReport& report, const Environment& host);

// Reads, imports and combines the files.
Imported import_files(const std::vector<std::string>& paths, const ImportOptions& options);

}  // namespace rtgate::importers
