// --format NAME chooses among registered exporters (ExporterSpec::format): each writes what the
// renderer of its document makes, byte for byte, to the stream it is given.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <set>
#include <string>

#include "exporters/calibration_table.h"
#include "exporters/export_registry.h"
#include "exporters/gate_table.h"
#include "exporters/history_report.h"
#include "gate/calibration/calibration.h"
#include "gate/history/history.h"
#include "gate/history/history_judge.h"
#include "gate/pair/compare.h"
#include "tests/unit/gate_sim_world.h"

namespace rtgate {
namespace {

std::set<std::string> formats_of(Document d) {
  std::set<std::string> out;
  for (const ExporterSpec& s : ExporterRegistry::instance().all()) {
    if (!s.format.empty() && (s.documents & d) != 0) out.insert(s.format);
  }
  return out;
}

// What the format named `format` writes of `in` as `document`.
std::string written(const std::string& format, ExportInput in, Document document) {
  for (const ExporterSpec& s : ExporterRegistry::instance().all()) {
    if (s.format != format || (s.documents & document) == 0) continue;
    std::FILE* f = std::tmpfile();
    in.document = document;
    in.out = f;
    EXPECT_EQ(s.make({})->write(in).level, ExportStatus::Level::kOk);
    std::string out(static_cast<std::size_t>(std::ftell(f)), '\0');
    std::rewind(f);
    out.resize(std::fread(out.data(), 1, out.size(), f));
    std::fclose(f);
    return out;
  }
  ADD_FAILURE() << "no format " << format;
  return "";
}

gate::GateVerdict regressed_gate() {
  std::mt19937_64 rng(7);
  gate::sim::Layout l;
  const RunReport base = gate::sim::side(rng, l, 5, {});
  const RunReport cur = gate::sim::side(
      rng, l, 5, {},
      {.suite = "cyclic", .case_name = "cpu0", .metric = "wakeup_latency", .latency_factor = 3});
  return gate::compare(base, cur);
}

gate::History six_sessions() {
  std::mt19937_64 rng(5);
  gate::sim::Layout l;
  l.cpus = 1;
  l.locks = 0;
  gate::HistoryBuilder builder{gate::Policy{}};
  for (int i = 0; i < 6; ++i) {
    RunReport r = gate::sim::session(rng, l, gate::sim::World{}, 3, gate::sim::Change{});
    r.started_at = gate::sim::sim_time(3600 * i);
    EXPECT_EQ(builder.add(r, "s" + std::to_string(i)), "");
  }
  return builder.finish();
}

TEST(FormatExporters, EachDocumentOffersItsFormats) {
  EXPECT_EQ(formats_of(kVerdictsDocument), (std::set<std::string>{"table", "markdown", "json"}));
  EXPECT_EQ(formats_of(kHistoryDocument), (std::set<std::string>{"table", "json"}));
  EXPECT_EQ(formats_of(kCalibrationDocument), (std::set<std::string>{"table"}));
  // A result prints its summary as it runs; its files come from exporters with options.
  EXPECT_TRUE(formats_of(kResultDocument).empty());
}

TEST(FormatExporters, VerdictsAreTheGateTableAndJson) {
  const gate::GateVerdict g = regressed_gate();
  ASSERT_EQ(gate::exit_code(g, false), 1);
  const ExportInput in{.gate = &g};
  EXPECT_EQ(written("table", in, kVerdictsDocument), render_gate_table(g, TableFormat::kTable));
  EXPECT_EQ(written("markdown", in, kVerdictsDocument),
            render_gate_table(g, TableFormat::kMarkdown));
  EXPECT_EQ(written("json", in, kVerdictsDocument), gate_json(g).dump(2) + "\n");
}

TEST(FormatExporters, AHistoryIsItsTableWithTheSkippedFilesAndItsJson) {
  const gate::History h = six_sessions();
  const gate::HistoryReport report = gate::judge_history(h, gate::Policy{});
  const HistoryDocument doc{.history = h, .report = report, .not_results = 2};
  const ExportInput in{.history = &doc};
  EXPECT_EQ(written("table", in, kHistoryDocument),
            render_history_table(h, report) +
                "(2 files under the directories were not results and were skipped)\n");
  EXPECT_EQ(nlohmann::ordered_json::parse(written("json", in, kHistoryDocument)),
            history_json(h, report));
}

TEST(FormatExporters, ACalibrationIsItsTable) {
  std::mt19937_64 rng(3);
  const RunReport r = gate::sim::side(rng, gate::sim::Layout{}, 6, {});
  const gate::Policy defaults;
  const gate::CalibrationOptions o;
  const std::vector<gate::MetricNoise> noise = gate::measure_noise(r, defaults, o);
  ASSERT_FALSE(noise.empty());
  const CalibrationDocument doc{.noise = &noise, .defaults = &defaults, .options = &o};
  EXPECT_EQ(written("table", {.calibration = &doc}, kCalibrationDocument),
            render_calibration(noise, defaults, o));
}

TEST(FormatExportersDeathTest, ASecondFormatOfTheSameNameForADocumentIsABuildMistake) {
  EXPECT_DEATH(ExporterRegistry::instance().add({.name = "table-again",
                                                 .documents = kHistoryDocument,
                                                 .format = "table"}),
               "clashes with 'table'");
}

}  // namespace
}  // namespace rtgate
