// The --load spec grammar: what parses, what each bad form says, and the kind registry.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "framework/background_load/load.h"
#include "framework/background_load/load_registry.h"
#include "tests/unit/load_test_helpers.h"

namespace rtgate::load {
namespace {

using test::parse_error;
using test::parse_ok;

TEST(LoadKinds, EveryKindIsRegisteredWithUsageAndHelp) {
  std::vector<std::string> names;
  for (const LoadKind& k : load_kinds()) {
    names.push_back(k.name);
    EXPECT_EQ(k.usage.rfind(k.name, 0), 0u) << k.usage;
    EXPECT_FALSE(k.help.empty()) << k.name;
    EXPECT_TRUE(k.make) << k.name;
  }
  // Also proves the linker kept every kind's object file (framework/ is a static library).
  EXPECT_EQ(names, (std::vector<std::string>{"cpu", "fault", "io", "msg", "rt", "stress"}));
  EXPECT_EQ(load_kind_names(), "cpu, fault, io, msg, rt, stress");
}

TEST(LoadSpec, ParsesCountsAndDefaultsKeepingEachItemAsWritten) {
  const LoadSet set = parse_ok("cpu:2,fault:1, msg ,io:3");
  ASSERT_EQ(set.size(), 4u);
  const std::vector<LoadReport> r = set.reports();
  const std::vector<std::tuple<std::string, std::string, int, std::string>> want = {
      {"cpu", "cpu:2", 2, "loops"},
      {"fault", "fault:1", 1, "faults"},
      {"msg", "msg", 1, "messages"},
      {"io", "io:3", 3, "fsyncs"}};
  for (std::size_t i = 0; i < want.size(); ++i) {
    const auto& [kind, spec, instances, unit] = want[i];
    EXPECT_EQ(r[i].kind, kind);
    EXPECT_EQ(r[i].spec, spec);
    EXPECT_EQ(r[i].instances, instances) << spec;
    EXPECT_EQ(r[i].unit, unit);
    EXPECT_EQ(r[i].ops, 0u) << "not started yet";
  }
  EXPECT_EQ(parse_ok("cpu").reports()[0].instances, 1);
  EXPECT_TRUE(parse_ok("").empty());
  EXPECT_TRUE(parse_ok("  ").empty());
}

TEST(LoadSpec, RtTakesCountPriorityAndDutyWithDefaults) {
  const auto note = [](const std::string& spec) { return parse_ok(spec).reports()[0].note; };
  EXPECT_NE(note("rt").find("SCHED_FIFO 50, 20%"), std::string::npos) << note("rt");
  EXPECT_NE(note("rt:2").find("SCHED_FIFO 50, 20%"), std::string::npos);
  EXPECT_NE(note("rt:2:70").find("SCHED_FIFO 70, 20%"), std::string::npos);
  EXPECT_NE(note("rt:1:98:90").find("SCHED_FIFO 98, 90%"), std::string::npos);
  EXPECT_NE(note("rt:1:1:1").find("SCHED_FIFO 1, 1%"), std::string::npos);
  EXPECT_EQ(parse_ok("rt:3:60:10").reports()[0].instances, 3);
}

TEST(LoadSpec, StressTakesTheRestVerbatimCommasIncluded) {
  const LoadSet set = parse_ok("cpu:1,stress:--cpu 2 --taskset 0,1 --vm 1");
  ASSERT_EQ(set.size(), 2u);
  EXPECT_EQ(set.reports()[0].spec, "cpu:1");
  EXPECT_EQ(set.reports()[1].kind, "stress");
  EXPECT_EQ(set.reports()[1].spec, "stress:--cpu 2 --taskset 0,1 --vm 1");
  EXPECT_EQ(parse_ok("stress:--cpu 1").reports()[0].unit, "bogo-ops");
}

TEST(LoadSpec, ParsedOnceIntoStructureWhoseTextIsCanonical) {
  std::string error;
  const std::optional<LoadSpec> a = parse_load_spec("cpu:2,fault:1", &error);
  const std::optional<LoadSpec> b = parse_load_spec(" cpu : 2 ,  fault:1 ", &error);
  ASSERT_TRUE(a && b) << error;
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(b->text(), "cpu:2,fault:1");
  ASSERT_EQ(a->items.size(), 2u);
  EXPECT_EQ(a->items[1], (LoadItemSpec{.kind = "fault", .args = {"1"}}));
  EXPECT_NE(*a, *parse_load_spec("cpu:3,fault:1", &error));
  EXPECT_NE(*a, *parse_load_spec("fault:1,cpu:2", &error)) << "order is part of the spec";
  // stress-ng's options are split on whitespace: runs of it mean nothing there either.
  EXPECT_EQ(parse_load_spec("stress:--cpu 2   --vm 1", &error)->text(), "stress:--cpu 2 --vm 1");
  EXPECT_EQ(parse_load_spec("", &error)->text(), "");
}

TEST(LoadSpec, ARecordedSpecParsesWithoutTheKindsAlike) {
  // The gate reads specs from results, with no registry: the grammar alone, both sides alike.
  std::string error;
  const auto read = [&](const std::string& s) { return parse_load_text(s, &error); };
  EXPECT_EQ(*read("cpu:2,fault:1"), *read("cpu:2, fault:1"));
  EXPECT_EQ(read("stress:--sock 2, --cpu 1")->text(), read("stress:--sock 2,--cpu 1")->text());
  EXPECT_NE(*read("cpu:2"), *read("cpu:2:1"));
  EXPECT_FALSE(read("cpu:2,,fault:1"));
  EXPECT_FALSE(read(":2"));
}

TEST(LoadSpec, BadFormsAreOneLineErrorsNamingTheItem) {
  // spec, what the message must contain besides being one line
  const std::vector<std::pair<std::string, std::vector<std::string>>> bad = {
      {"gpu:1", {"'gpu:1'", "unknown kind 'gpu'", "known: cpu, fault, io, msg, rt, stress"}},
      {"cpu:2,disk", {"'disk'", "known: cpu, fault"}},
      {"cpu:0", {"'cpu:0'", "from 1 to 256, got '0'", "usage: cpu[:N]"}},
      {"cpu:-1", {"'cpu:-1'", "got '-1'"}},
      {"cpu:x", {"'cpu:x'", "got 'x'"}},
      {"cpu:2x", {"'cpu:2x'"}},
      {"cpu:", {"'cpu:'", "got ''"}},
      {"cpu:1:2", {"'cpu:1:2'", "at most 1 argument"}},
      {"fault:65", {"'fault:65'", "from 1 to 64"}},
      {"msg:0", {"'msg:0'"}},
      {"io:+1", {"'io:+1'"}},
      {"rt:1:99", {"'rt:1:99'", "priority must be an integer from 1 to 98"}},
      {"rt:1:0", {"'rt:1:0'", "priority"}},
      {"rt:1:50:0", {"'rt:1:50:0'", "duty percent must be an integer from 1 to 90"}},
      {"rt:1:50:95", {"'rt:1:50:95'", "duty percent"}},
      {"rt:1:50:20:1", {"'rt:1:50:20:1'", "at most 3 arguments"}},
      {"cpu:1,,io:1", {"empty item", "'cpu:1,,io:1'"}},
      {",cpu:1", {"empty item"}},
      {"cpu:1,", {"empty item"}},
      {"stress:", {"'stress:'", "needs stress-ng arguments"}},
      {"stress:   ", {"needs stress-ng arguments"}},
      {"stress", {"'stress'", "needs stress-ng arguments"}},
  };
  for (const auto& [spec, parts] : bad) {
    const std::string error = parse_error(spec);
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    for (const std::string& part : parts) {
      EXPECT_NE(error.find(part), std::string::npos) << "'" << spec << "' -> " << error;
    }
  }
}

}  // namespace
}  // namespace rtgate::load
