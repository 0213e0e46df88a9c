// An exporter consumes a RunReport, and the gate's verdicts when a gate ran, and knows no suite.
// Exporters that users choose by a flag register themselves with it (export_registry.h).
#pragma once

#include <string>

#include "gate/model/verdict.h"
#include "results/report.h"

namespace rtgate {

// What an exporter is given: the result, and when a gate ran, its verdicts and baseline.
struct ExportInput {
  const RunReport& report;
  const gate::GateVerdict* gate = nullptr;
  const RunReport* baseline = nullptr;
  // The gate's --fail-on-inconclusive: an inconclusive verdict is a failure, not a skip.
  bool fail_on_inconclusive = false;
};

// How an export went: ok, or a one-line message and what it means for the exit code.
struct ExportStatus {
  enum class Level {
    kOk,
    kWarning,      // printed; the exit code is unchanged (a push that may fail)
    kFailed,       // exit 1 (a file that could not be written)
    kEnvironment,  // exit 4 (--push-required and the push failed)
  };
  Level level = Level::kOk;
  std::string message;

  static ExportStatus ok() { return {}; }
  static ExportStatus failed(std::string m) { return {Level::kFailed, std::move(m)}; }
  // "" is ok, anything else a failure (what write_output and friends return).
  static ExportStatus from(std::string error) {
    return error.empty() ? ok() : failed(std::move(error));
  }
};

class Exporter {
 public:
  virtual ~Exporter() = default;
  virtual ExportStatus write(const ExportInput& in) = 0;
};

}  // namespace rtgate
