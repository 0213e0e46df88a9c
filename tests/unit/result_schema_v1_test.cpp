// Results written before the compact encodings still load: "rtgate.result/1" with its
// [lower, upper, count] buckets and per-run summary objects, and "rtgate.result/2" with its spans
// and the layout in every histogram, read into the same report as the /3 they are rewrites of;
// each encoding is smaller than the one before.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "results/result_json.h"
#include "tests/unit/result_encodings.h"

namespace rtgate {
namespace {

using json = nlohmann::json;

using test::as_v1;
using test::as_v2;
using test::lab_result;

TEST(ResultSchemaV1, AnOldResultLoadsAsTheSameReport) {
  const RunReport r = lab_result();
  const std::string v3 = to_json_text(r);
  const json v1 = as_v1(json::parse(v3));
  const RunReport from_v1 = report_from_json(v1);
  const RunReport from_v2 = report_from_json(as_v2(json::parse(v3)));
  const RunReport from_v3 = report_from_text(v3);
  // Written again, all are the same /3 text: every bucket, run and sample came through (mean
  // and stddev as a restored histogram has them, so /3 read back is the reference).
  const std::string again = to_json_text(from_v3);
  EXPECT_EQ(to_json_text(from_v1), again);
  EXPECT_EQ(to_json_text(from_v2), again);
  EXPECT_EQ(from_v1.schema, kResultSchema);
  const Metric& m = *from_v1.suites.at(1).cases.at(2).find("acquire_latency");
  const Metric& o = *r.suites.at(1).cases.at(2).find("acquire_latency");
  EXPECT_EQ(m.histogram->buckets().size(), o.histogram->buckets().size());
  EXPECT_EQ(m.histogram->quantile(0.999), o.histogram->quantile(0.999));
  ASSERT_EQ(m.runs.size(), 5u);
  EXPECT_EQ(m.runs[3].p999, o.runs[3].p999);
  EXPECT_TRUE(m.histogram->is_compact());
}

TEST(ResultSchemaV1, TheCompactEncodingIsAFractionOfTheOld) {
  const std::string v3 = to_json_text(lab_result());
  const std::string v2 = as_v2(json::parse(v3)).dump();
  const std::string v1 = as_v1(json::parse(v3)).dump(2);
  // Measured on this layout: /2 about a ninth of /1; a quarter is the bound that must hold.
  EXPECT_LT(v2.size() * 4, v1.size()) << v2.size() << " vs " << v1.size();
  // /3 saves the layout per histogram and a bracket pair per span (several runs a metric here,
  // so the per-run columns stay): measured 0.93 of /2.
  EXPECT_LT(v3.size(), v2.size()) << v3.size() << " vs " << v2.size();
}

// A one-run metric's per-run summary is its summary: /3 leaves it out and the reader puts it back.
TEST(ResultSchemaV1, OneRunSummariesAreLeftOutAndRestored) {
  LatencyHistogram h;
  for (int i = 1; i <= 1000; ++i) h.record(1000 + 37 * i);
  Metric two = Metric::latency("other_latency", h, {38000});
  two.merge(Metric::latency("other_latency", h, {38000}));
  Metric none = Metric::latency("old_latency", h, {38000});
  none.runs.clear();  // read from a file written before per-run summaries
  const RunReport r = test::one_case({Metric::latency("wakeup_latency", h, {38000}), two, none});
  const Case& c = r.suites[0].cases[0];
  const json doc = json::parse(to_json_text(r));
  const json& ms = doc["suites"][0]["cases"][0]["metrics"];
  EXPECT_FALSE(ms[0].contains("runs"));
  EXPECT_EQ(ms[1]["runs"]["count"].size(), 2u);
  EXPECT_EQ(ms[2]["runs"]["count"].size(), 0u);
  const RunReport back = report_from_json(doc);
  const Case& bc = back.suites.at(0).cases.at(0);
  ASSERT_EQ(bc.metrics.at(0).runs.size(), 1u);
  EXPECT_EQ(bc.metrics[0].runs[0].p99, c.metrics[0].runs[0].p99);
  EXPECT_EQ(bc.metrics[0].runs[0].count, 1000u);
  EXPECT_EQ(bc.metrics.at(1).runs.size(), 2u);
  EXPECT_TRUE(bc.metrics.at(2).runs.empty());
  // Before /3 an absent "runs" is a file from before per-run summaries: none, not one.
  json v2 = as_v2(doc);
  v2["suites"][0]["cases"][0]["metrics"][0].erase("runs");
  EXPECT_TRUE(report_from_json(v2).suites[0].cases[0].metrics[0].runs.empty());
}

// /3's counts: from bucket 0, -n skips n empty buckets; the layout is named once.
TEST(ResultSchemaV1, CountsSkipEmptyBucketsAndTheLayoutIsChecked) {
  LatencyHistogram h;
  h.record(5);
  h.record(5);
  h.record(7);
  json doc = json::parse(to_json_text(test::one_case({Metric::latency("wakeup_latency", h, {7})})));
  EXPECT_EQ(doc["suites"][0]["cases"][0]["metrics"][0]["histogram"]["counts"],
            json::array({-5, 2, -1, 1}));
  EXPECT_EQ(doc["histogram_layout"]["sub_bucket_bits"], LatencyHistogram::kSubBits);
  doc["histogram_layout"]["sub_bucket_bits"] = LatencyHistogram::kSubBits + 1;
  try {
    report_from_json(doc);
    ADD_FAILURE() << "another layout was read";
  } catch (const JsonError& e) {
    EXPECT_NE(std::string(e.what()).find("histogram_layout"), std::string::npos) << e.what();
  }
}

TEST(ResultSchemaV1, ARealOldResultFromTheFuzzCorpusLoads) {
  // Written by rtgate 0.1 (2026-12-01) on this project's VM: schema /1, two CPUs of cyclic.
  const std::string path =
      std::string(RTGATE_SOURCE_DIR) + "/tests/fuzz/corpus/result_loader/cyclic_1s.json";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  const RunReport r = read_report_file(path);
  ASSERT_EQ(r.suites.at(0).cases.size(), 2u);
  const Metric& w = *r.suites[0].cases[1].find("wakeup_latency");
  EXPECT_EQ(w.histogram->count(), 994u);
  EXPECT_EQ(w.histogram->max(), 1773928u);
  EXPECT_EQ(w.runs.at(0).p99, 671743u);
}

}  // namespace
}  // namespace rtgate
