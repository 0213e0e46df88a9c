// What `compare`, `gate` and `run --baseline` share: loading the two results and the policy
// (each failure a one-line error and exit 2), comparing, and writing the outputs.
#pragma once

#include <optional>
#include <string>

#include "framework/gate/compare.h"

namespace rtgate::cli {

struct GateInputs {
  std::string policy_path;
  bool allow_env_mismatch = false;
  bool fail_on_inconclusive = false;
  std::string junit_path;
};

// Reads a result file; on failure prints the one-line error and returns nullopt.
std::optional<RunReport> load_result(const std::string& path, const char* role);

// Loads and validates the policy against both reports, compares, prints the table to stdout,
// writes JUnit if asked. Returns the exit code (0, 1, 3; 2 for a bad policy or JUnit path).
// `out`, when given, receives the comparison (for exporters that carry verdicts).
int gate_and_report(const RunReport& base, const RunReport& cur, const GateInputs& in,
                    gate::GateReport* out = nullptr);

}  // namespace rtgate::cli
