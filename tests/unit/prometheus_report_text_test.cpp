// The text --textfile writes and --push sends, built a series at a time (report_text.h), against
// the text of the same families built as data (which PrometheusTextFormat holds to
// prometheus-cpp's serializer): the same bytes, for every series choice and for one suite.
#include <gtest/gtest.h>

#include <random>

#include "exporters/prometheus/report_text.h"
#include "exporters/prometheus/text_format.h"
#include "gate/pair/compare.h"
#include "tests/unit/gate_sim.h"

namespace rtgate::prom {
namespace {

RunReport board(int cpus, int locks) {
  std::mt19937_64 rng(11);
  gate::sim::Layout l;
  l.cpus = cpus;
  l.locks = locks;
  l.cyclic_samples = 2'000;
  l.lock_samples = 500;
  RunReport r = gate::sim::side(rng, l, 3, {});
  r.environment.hostname = "a \"quoted\" host\\ with\nnewline";
  r.finished_at = "2026-12-02T01:02:03.5Z";
  return r;
}

TEST(PrometheusReportText, IsTheTextOfTheFamiliesBuiltAsData) {
  const RunReport r = board(3, 2);
  ASSERT_GE(r.suites.size(), 2u);
  const gate::GateVerdict g = gate::compare(r, r);
  for (const auto& options : {SeriesOptions{}, SeriesOptions{.bounds_s = bucket_set("standard")},
                              SeriesOptions{.bounds_s = {}}, SeriesOptions{.per_case = false}}) {
    for (const gate::GateVerdict* verdicts : {static_cast<const gate::GateVerdict*>(nullptr), &g}) {
      for (const std::string& only : {std::string(), r.suites[1].name}) {
        const std::string data =
            exposition_text(build_metrics(r, verdicts, only, options)->Collect());
        const ReportText text = build_text(r, verdicts, only, options);
        ASSERT_GT(data.size(), 500u);
        EXPECT_EQ(text.str(), data) << "suite '" << only << "'";
        EXPECT_EQ(text.size(), data.size());
      }
    }
  }
}

TEST(PrometheusReportText, ALargeResultIsHeldInWholeLineChunksOfAboutAMegabyte) {
  const RunReport r = board(1024, 16);
  const std::string data = exposition_text(build_metrics(r)->Collect());
  ASSERT_GT(data.size(), 3u << 20) << "too small to need several chunks";
  const ReportText text = build_text(r);
  const auto pieces = text.pieces();
  std::size_t largest = 0;
  for (const std::string_view p : pieces) {
    ASSERT_FALSE(p.empty());
    EXPECT_EQ(p.back(), '\n') << "a piece ends a line";
    largest = std::max(largest, p.size());
  }
  // More pieces than families: a family's series span chunks, none larger than its 1 MiB.
  EXPECT_GT(pieces.size(), 20u);
  EXPECT_LE(largest, std::size_t{1} << 20);
  EXPECT_EQ(text.str(), data);
}

}  // namespace
}  // namespace rtgate::prom
