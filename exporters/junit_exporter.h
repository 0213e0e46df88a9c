// JUnit XML in the Ant schema that Jenkins and GitLab read: one <testsuite> per rtgate suite,
// one <testcase> per case and metric (for `run`) or per metric verdict (for `gate`), failures
// that say what regressed by how much with the evidence, and the environment as properties.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gate/model/verdict.h"
#include "results/report.h"

namespace rtgate {

struct JunitCase {
  enum class Outcome { kPassed, kFailure, kError, kSkipped };
  std::string classname, name;
  double time_s = 0;
  Outcome outcome = Outcome::kPassed;
  std::string type;     // failure/error type, e.g. "regressed"
  std::string message;  // one line
  std::string body;     // details (evidence)
};

struct JunitSuite {
  std::string name, package;
  std::string timestamp;  // "YYYY-MM-DDTHH:MM:SS", no zone (the schema's pattern)
  std::string hostname;
  double time_s = 0;
  std::vector<std::pair<std::string, std::string>> properties;
  std::vector<JunitCase> cases;
  std::string system_out;
};

std::string render_junit(const std::vector<JunitSuite>& suites);

// `run`: per suite, a testcase per case/metric (passed), or one "status" testcase carrying the
// suite's failure, error or skip with its reason.
std::vector<JunitSuite> junit_from_run(const RunReport& report);
// `gate`: per suite verdict, a testcase per metric verdict: regressed -> failure with the
// evidence, inconclusive and missing -> skipped with the reason (failure with
// fail_on_inconclusive), improved/unchanged -> passed.
std::vector<JunitSuite> junit_from_gate(const gate::GateVerdict& report, const RunReport& current,
                                        bool fail_on_inconclusive);

}  // namespace rtgate
