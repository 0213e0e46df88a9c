// Results written before the compact encoding (issue 16) still load: "rtgate.result/1" with its
// [lower, upper, count] buckets and per-run summary objects reads into the same report as its
// "rtgate.result/2" rewrite, and the /2 file is the smaller one.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "exporters/json_exporter.h"
#include "tests/unit/gate_sim.h"

namespace rtgate {
namespace {

using json = nlohmann::json;

// The /1 encoding of a /2 document, as rtgate 0.1 wrote it: buckets as [lower, upper, count],
// runs as an array of summary objects, indented.
json as_v1(json doc) {
  doc["schema"] = "rtgate.result/1";
  for (auto& s : doc["suites"]) {
    for (auto& c : s["cases"]) {
      for (auto& m : c["metrics"]) {
        if (!m.contains("histogram")) continue;
        json buckets = json::array();
        for (const auto& span : m["histogram"]["spans"]) {
          for (std::size_t k = 1; k < span.size(); ++k) {
            const std::size_t i = span[0].get<std::size_t>() + k - 1;
            buckets.push_back(
                {LatencyHistogram::bucket_lower(i), LatencyHistogram::bucket_upper(i), span[k]});
          }
        }
        m["histogram"].erase("spans");
        m["histogram"]["buckets"] = buckets;
        json runs = json::array();
        const json cols = m["runs"];
        for (std::size_t r = 0; r < cols["count"].size(); ++r) {
          json one;
          for (const auto& [k, v] : cols.items()) one[k] = v[r];
          runs.push_back(one);
        }
        m["runs"] = runs;
      }
    }
  }
  return doc;
}

RunReport lab_result() {
  std::mt19937_64 rng(3);
  gate::sim::Layout l;
  l.cpus = 4;
  l.locks = 3;
  return gate::sim::side(rng, l, 5, {});
}

TEST(ResultSchemaV1, AnOldResultLoadsAsTheSameReport) {
  const RunReport r = lab_result();
  const std::string v2 = to_json_text(r);
  const json v1 = as_v1(json::parse(v2));
  const RunReport from_v1 = report_from_json(v1);
  const RunReport from_v2 = report_from_json(json::parse(v2));
  // Written again, both are the same /2 text: every bucket, run and sample came through.
  EXPECT_EQ(to_json_text(from_v1), to_json_text(from_v2));
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
  const std::string v2 = to_json_text(lab_result());
  const std::string v1 = as_v1(json::parse(v2)).dump(2);
  // Measured on this layout: about a ninth; a quarter is the bound that must hold.
  EXPECT_LT(v2.size() * 4, v1.size()) << v2.size() << " vs " << v1.size();
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
