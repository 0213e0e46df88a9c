#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gate/noise/comparability.h"

namespace rtgate::gate {
namespace {

using Lines = std::vector<std::string>;

SuiteResult suite_with(std::map<std::string, ParamValue> params) {
  SuiteResult s;
  s.name = "cyclic";
  s.params = std::move(params);
  return s;
}

RunReport recorded(double duration_s, int runs, std::string load = "", std::string cpus = "") {
  RunReport r;
  r.tool_version = "0.1.0";
  r.options = {.duration_s = duration_s,
               .runs = runs,
               .cpus = std::move(cpus),
               .load = std::move(load),
               .watchdog_s = 10,
               .require_rt = false,
               .recorded = true};
  return r;
}

TEST(GateComparability, DifferingParamsAreListed) {
  const SuiteResult base = suite_with({{"interval_us", std::int64_t{1000}}});
  const SuiteResult cur = suite_with({{"interval_us", std::int64_t{200}}});
  EXPECT_EQ(suite_param_differences(base, cur), (Lines{"interval_us: 1000 -> 200"}));
}

TEST(GateComparability, IdenticalParamsGiveNothing) {
  const SuiteResult s = suite_with({{"interval_us", std::int64_t{1000}},
                                    {"policy", std::string("fifo")},
                                    {"ratio", 0.5},
                                    {"pi", true}});
  EXPECT_TRUE(suite_param_differences(s, s).empty());
}

TEST(GateComparability, AnIntegerEqualsADoubleOfTheSameValue) {
  const SuiteResult a = suite_with({{"interval_us", std::int64_t{1000}}});
  const SuiteResult b = suite_with({{"interval_us", 1000.0}});
  EXPECT_TRUE(suite_param_differences(a, b).empty());
  EXPECT_TRUE(suite_param_differences(b, a).empty());
  const SuiteResult c = suite_with({{"interval_us", 1000.5}});
  EXPECT_EQ(suite_param_differences(a, c), (Lines{"interval_us: 1000 -> 1000.5"}));
  // A bool is not the number 1.
  EXPECT_EQ(
      suite_param_differences(suite_with({{"pi", true}}), suite_with({{"pi", std::int64_t{1}}})),
      (Lines{"pi: true -> 1"}));
}

TEST(GateComparability, ValuesArePrintedReadablyAndAbsentOnesNamed) {
  const SuiteResult base = suite_with({{"policy", std::string("fifo")}, {"ratio", 0.5}});
  const SuiteResult cur = suite_with({{"policy", std::string("rr")}, {"threads", std::int64_t{5}}});
  EXPECT_EQ(suite_param_differences(base, cur),
            (Lines{"policy: 'fifo' -> 'rr'", "ratio: 0.5 -> (absent)", "threads: (absent) -> 5"}));
}

TEST(GateComparability, DurationDifferenceIsListed) {
  const RunOptionsDiff d = run_option_differences(recorded(5, 5), recorded(10, 5));
  EXPECT_FALSE(d.unknown);
  EXPECT_EQ(d.differences, (Lines{"duration_s: 5 -> 10"}));
}

TEST(GateComparability, RunsWatchdogAndRequireRtAreNotListed) {
  RunReport cur = recorded(5, 20);
  cur.options.watchdog_s = 30;
  cur.options.require_rt = true;
  const RunOptionsDiff d = run_option_differences(recorded(5, 5), cur);
  EXPECT_FALSE(d.unknown);
  EXPECT_TRUE(d.differences.empty());
}

TEST(GateComparability, LoadAndCpusDifferencesAreListed) {
  EXPECT_EQ(run_option_differences(recorded(5, 5, "cpu:2"), recorded(5, 5, "")).differences,
            (Lines{"load: 'cpu:2' -> (none)"}));
  EXPECT_EQ(run_option_differences(recorded(5, 5, "", ""), recorded(5, 5, "", "1-3")).differences,
            (Lines{"cpus: (all allowed) -> '1-3'"}));
}

TEST(GateComparability, LoadsAreComparedByStructureNotSpelling) {
  EXPECT_TRUE(run_option_differences(recorded(5, 5, "cpu:2,fault:1"),
                                     recorded(5, 5, "cpu:2, fault:1"))
                  .differences.empty());
  EXPECT_EQ(run_option_differences(recorded(5, 5, "cpu:2,fault:1"), recorded(5, 5, "cpu:2,fault:2"))
                .differences,
            (Lines{"load: 'cpu:2,fault:1' -> 'cpu:2,fault:2'"}));
  SuiteResult base, cur;
  base.loads = {{.kind = "cpu", .spec = "cpu:2"}};
  cur.loads = {{.kind = "cpu", .spec = " cpu : 2"}};
  EXPECT_TRUE(suite_load_differences(base, cur).empty());
}

TEST(GateComparability, UnrecordedOptionsAreUnknownNotDifferent) {
  RunReport old = recorded(1, 1, "cpu:8");
  old.options.recorded = false;
  for (const RunOptionsDiff& d :
       {run_option_differences(old, recorded(5, 5)), run_option_differences(recorded(5, 5), old),
        run_option_differences(old, old)}) {
    EXPECT_TRUE(d.unknown);
    EXPECT_TRUE(d.differences.empty());
  }
}

TEST(GateComparability, SchemaAndToolMajorVersionAreListed) {
  RunReport cur = recorded(5, 5);
  cur.tool_version = "0.2.3";  // same major
  EXPECT_TRUE(run_option_differences(recorded(5, 5), cur).differences.empty());
  cur.tool_version = "1.0.0";
  cur.schema = "rtgate.result/9";
  EXPECT_EQ(run_option_differences(recorded(5, 5), cur).differences,
            (Lines{"schema: 'rtgate.result/3' -> 'rtgate.result/9'",
                   "rtgate major version: '0.1.0' -> '1.0.0'"}));
  cur = recorded(5, 5);
  cur.tool_version = "";
  const RunOptionsDiff d = run_option_differences(recorded(5, 5), cur);
  EXPECT_TRUE(d.unknown);
  EXPECT_TRUE(d.differences.empty());
}

TEST(GateComparability, SuiteLoadsAreComparedAsSortedUniqueSpecs) {
  SuiteResult base = suite_with({}), cur = suite_with({});
  // One entry per item and run: repeats and order do not matter.
  base.loads = {{.kind = "cpu", .spec = "cpu:2"},
                {.kind = "fault", .spec = "fault:1"},
                {.kind = "cpu", .spec = "cpu:2"}};
  cur.loads = {{.kind = "fault", .spec = "fault:1"}, {.kind = "cpu", .spec = "cpu:2"}};
  EXPECT_TRUE(suite_load_differences(base, cur).empty());
  cur.loads.clear();
  EXPECT_EQ(suite_load_differences(base, cur), (Lines{"loads: 'cpu:2', 'fault:1' -> (none)"}));
}

}  // namespace
}  // namespace rtgate::gate
