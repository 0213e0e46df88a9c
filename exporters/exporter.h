// Every output leaves through an exporter: a run's result (with the gate's verdicts when a gate
// ran), the verdicts of `rtgate gate`, and a board's history. An exporter knows no suite.
// Exporters that users choose by a flag register themselves with it (export_registry.h), saying
// which documents they write; a command offers the options of those that write its document.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "gate/model/verdict.h"
#include "results/report.h"

namespace rtgate::gate {
struct History;             // gate/history/history.h
struct HistoryReport;       // gate/history/history_judge.h
struct MetricNoise;         // gate/calibration/calibration.h
struct CalibrationOptions;  // gate/calibration/calibration.h
struct Policy;              // gate/model/policy.h
class NoiseModel;           // gate/noise/session_noise.h
}  // namespace rtgate::gate

namespace rtgate {

// What a command exports (ExporterSpec::documents is a set of them).
enum Document : unsigned {
  kResultDocument = 1,    // a run's result (run, serve, export, calibrate)
  kVerdictsDocument = 2,  // the gate's verdicts on a result (gate)
  kHistoryDocument = 4,   // a board's history and its judgement (history)
  kCalibrationDocument = 8,  // a host's measured noise (calibrate)
};

// A board's history as `rtgate history` judged it.
struct HistoryDocument {
  const gate::History& history;
  const gate::HistoryReport& report;
  // Files under the directories read that were not results (skipped, and said so).
  int not_results = 0;
};

// What `rtgate calibrate` measured: the noise of runs in one session, or (--sessions) the noise
// between sessions learned from the results kept in `sessions_dir`.
struct CalibrationDocument {
  const std::vector<gate::MetricNoise>* noise = nullptr;
  const gate::Policy* defaults = nullptr;
  const gate::CalibrationOptions* options = nullptr;
  const gate::NoiseModel* sessions = nullptr;
  int session_count = 0;
  std::string sessions_dir;
};

// What an exporter is given: the document, and what goes with it. A result (and with it, when a
// gate ran, its verdicts and baseline), or the verdicts with the result they judge, or a history.
struct ExportInput {
  const RunReport* report = nullptr;
  const gate::GateVerdict* gate = nullptr;
  const RunReport* baseline = nullptr;
  const HistoryDocument* history = nullptr;
  const CalibrationDocument* calibration = nullptr;
  // The document being written (set by the writer of exports), and where a format chosen by
  // --format writes.
  Document document = kResultDocument;
  std::FILE* out = stdout;
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
