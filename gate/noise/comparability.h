// What makes two results not comparable apart from the machine (environment_diff.h): who
// measured each suite (rtgate or an imported tool), the suite parameters, the run options that
// change what a metric means, the loads beside each suite, and the result format. Each difference
// is one line "what: baseline -> current", for the gate to list when it calls the comparison
// incomparable.
#pragma once

#include <string>
#include <vector>

#include "results/report.h"

namespace rtgate::gate {

// The parameters of one suite, by name (sorted), each "name: 1000 -> 200"; a parameter on one
// side only is "name: (absent) -> 5". Values are compared exactly, except that an integer and a
// double of the same value are equal (a JSON writer may print 1000 as 1000.0).
std::vector<std::string> suite_param_differences(const SuiteResult& base, const SuiteResult& cur);

struct RunOptionsDiff {
  std::vector<std::string> differences;
  // A side did not record what is compared (options.recorded false: an older rtgate; or no tool
  // version): those comparisons were skipped, and the caller can say so.
  bool unknown = false;
};

// In this order: schema, the tool's major version, then the options that change what a metric
// means: duration_s (the per-run sample count, and so the per-run max), cpus and load. Runs is
// not one (the statistics handle differing run counts), nor are watchdog_s and require_rt (they
// decide whether a run happens, not what it measures). The options are compared only when both
// sides recorded them.
RunOptionsDiff run_option_differences(const RunReport& base, const RunReport& cur);

// The loads that ran beside one suite, as the sorted unique list of their spec strings
// (SuiteResult::loads[].spec): no entry when equal, else one "loads: 'cpu:2' -> (none)".
std::vector<std::string> suite_load_differences(const SuiteResult& base, const SuiteResult& cur);

// Who measured a suite: rtgate, or the tool it was imported from (SuiteResult::imported) and
// that tool's major version. One "measured by: 'rtgate' -> 'cyclictest 2.40 (imported)'" when
// they differ: two instruments' figures are not one system's change.
std::vector<std::string> suite_source_differences(const SuiteResult& base, const SuiteResult& cur);

// Why a stored result cannot be a session of `cur`'s history ("" when it can): another host, a
// suite of cur's it lacks, different suite parameters, loads or run options, or cur's own session.
std::string history_mismatch(const RunReport& stored, const RunReport& cur);

}  // namespace rtgate::gate
