// The sessions a gate judges with besides the one baseline: further baseline results (each its
// own session) and the host's history (`--history DIR`), from which the session noise is learned
// (gate/noise/session_noise.h). Loaded once; any current result can then be compared, which
// `run --until-decided` does after every run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/gate_common.h"
#include "gate/pair/compare.h"

namespace rtgate::cli {

class SessionInputs {
 public:
  // Reads the further baselines and every *.json / *.json.gz under the history directory
  // (recursively; a file that is not a result is skipped and counted). On bad input (a named
  // file that cannot be read, a directory that does not exist) prints the one-line error and
  // returns nullopt (exit 2). `base` must outlive the object.
  static std::optional<SessionInputs> load(const RunReport& base, const GateInputs& in);

  // The gate of `cur`: the baseline's sessions, and the noise of the history's sessions that
  // measured what `cur` measured on its host (gate::history_mismatch), with the baselines.
  gate::GateVerdict compare(const RunReport& cur, const gate::Policy& policy) const;

 private:
  const RunReport* base_ = nullptr;
  std::vector<RunReport> more_, history_;
  int unreadable_ = 0;
};

}  // namespace rtgate::cli
