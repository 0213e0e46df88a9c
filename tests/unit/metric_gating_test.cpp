// A count says itself whether the gate judges it (as a rate of events per run) or only reports
// it: whatever its unit, and through the result file. Results written before counts said so get
// the rule by unit that the gate applied then.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "gate/pair/compare.h"
#include "gate_sim.h"
#include "results/result_json.h"

namespace rtgate::gate {
namespace {

RunReport report_with(Metric m) {
  RunReport r;
  r.environment = sim::environment();
  SuiteResult s;
  s.name = "s";
  Case c;
  c.name = "c";
  c.metrics = {std::move(m)};
  s.cases.push_back(std::move(c));
  r.suites.push_back(std::move(s));
  return r;
}

Metric count(const std::string& unit, Metric::Gating gating, std::vector<double> per_run) {
  Metric m = Metric::count("m", 0, unit, gating);
  m.samples = std::move(per_run);
  return m;
}

// A file name of this process's own under /tmp, removed at the end of the test.
struct TempFile {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("rtgate-gating-" + std::to_string(getpid()) + ".json"))
                         .string();
  ~TempFile() { std::filesystem::remove(path); }
};

const MetricVerdict& only(const GateVerdict& g) { return g.suites.at(0).metrics.at(0); }

TEST(MetricGating, AnEventRateIsJudgedWhateverItsUnit) {
  // timerlat's unit: no list of units names it, the metric does.
  const auto judged =
      only(compare(report_with(count("activations", Metric::Gating::kEventRate, {0, 0, 0, 0, 0})),
                   report_with(count("activations", Metric::Gating::kEventRate, {5, 4, 6, 5, 7}))));
  EXPECT_TRUE(judged.gated);
  EXPECT_EQ(judged.verdict, Verdict::kRegressed) << judged.reason;
}

TEST(MetricGating, AReportedCountIsNotJudgedEvenInAnEventUnit) {
  const auto reported =
      only(compare(report_with(count("periods", Metric::Gating::kReported, {100, 100, 100})),
                   report_with(count("periods", Metric::Gating::kReported, {5, 4, 6}))));
  EXPECT_FALSE(reported.gated);
}

TEST(MetricGating, TheDeclarationSurvivesTheResultFileAndOldFilesGetTheUnitRule) {
  const TempFile file;
  const std::string& path = file.path;
  for (const auto gating : {Metric::Gating::kEventRate, Metric::Gating::kReported}) {
    ASSERT_EQ(write_result_file(path, report_with(count("widgets", gating, {1, 2}))), "");
    for (const bool history_only : {false, true}) {
      const RunReport back = read_report_file(path, {.history_only = history_only});
      EXPECT_EQ(back.suites.at(0).cases.at(0).metrics.at(0).gating, gating) << history_only;
    }
  }
  for (const auto& [unit, gating] : {std::pair{"periods", Metric::Gating::kEventRate},
                                     {"wakeups", Metric::Gating::kEventRate},
                                     {"events", Metric::Gating::kEventRate},
                                     {"%", Metric::Gating::kReported},
                                     {"ops", Metric::Gating::kReported}}) {
    ASSERT_EQ(write_result_file(path, report_with(count(unit, Metric::Gating::kReported, {1}))),
              "");
    std::ifstream in(path);
    nlohmann::json doc = nlohmann::json::parse(in);
    doc["suites"][0]["cases"][0]["metrics"][0].erase("gating");
    EXPECT_EQ(report_from_json(doc).suites.at(0).cases.at(0).metrics.at(0).gating, gating) << unit;
    std::ofstream(path) << doc.dump();
    EXPECT_EQ(read_report_file(path, {.history_only = true})
                  .suites.at(0)
                  .cases.at(0)
                  .metrics.at(0)
                  .gating,
              gating)
        << unit;
  }
}

TEST(MetricGating, AnUnknownDeclarationIsAOneLineError) {
  const TempFile file;
  const std::string& path = file.path;
  ASSERT_EQ(write_result_file(path, report_with(count("x", Metric::Gating::kReported, {1}))), "");
  std::ifstream in(path);
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["suites"][0]["cases"][0]["metrics"][0]["gating"] = "sometimes";
  try {
    report_from_json(doc);
    FAIL() << "accepted";
  } catch (const JsonError& e) {
    EXPECT_NE(std::string(e.what()).find(".gating: expected event_rate or reported"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace rtgate::gate
