// The result reader on malformed input: every defect a hand-edited or corrupted result
// file could reach is a JsonError naming the field, never a nlohmann or std exception, a wrapped
// count, or a histogram whose min > max (undefined behaviour in quantile's std::clamp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "results/result_json.h"
#include "tests/unit/result_encodings.h"

namespace rtgate {
namespace {

using json = nlohmann::json;

// A valid document with one latency metric (buckets [1000, 1008) x2, min 1000, max 1001).
json valid() {
  LatencyHistogram h;
  h.record(1000);
  h.record(1001);
  RunReport r = test::one_case({Metric::latency("wakeup_latency", h, {1001})});
  r.suites[0].hygiene.steal_ms_per_cpu = {{0, 0.5}};
  return json::parse(to_json_text(r));
}

json& metric(json& doc) { return doc["suites"][0]["cases"][0]["metrics"][0]; }

// Only a JsonError is acceptable; the message is returned ("" if the document loaded).
std::string error_of(const json& doc) {
  try {
    report_from_json(doc);
  } catch (const JsonError& e) {
    return e.what();
  }
  return "";
}

TEST(ResultReaderHardening, TheBaseDocumentLoads) { EXPECT_EQ(error_of(valid()), ""); }

TEST(ResultReaderHardening, NegativeCountsAreRefusedNotWrapped) {
  json doc = valid();
  metric(doc)["summary"]["count"] = -1;
  EXPECT_NE(error_of(doc).find("summary.count: -1 is out of range"), std::string::npos)
      << error_of(doc);
  doc = test::as_v2(valid());
  metric(doc)["histogram"]["spans"][0][1] = -2;
  EXPECT_NE(error_of(doc).find("is not a count"), std::string::npos) << error_of(doc);
}

TEST(ResultReaderHardening, BucketsOfTheWrongTypeAreAJsonError) {
  json doc = test::as_v2(valid());
  metric(doc)["histogram"]["spans"][0][0] = "1000";  // was a nlohmann type_error
  EXPECT_NE(error_of(doc).find("histogram"), std::string::npos) << error_of(doc);
  doc = test::as_v2(valid());
  metric(doc)["histogram"]["spans"][0][1] = 1.5e300;
  EXPECT_NE(error_of(doc).find("histogram"), std::string::npos) << error_of(doc);
  // /3's counts alike.
  for (const json& bad : {json("1000"), json(1.5e300), json(0), json(nullptr), json::array()}) {
    doc = valid();
    metric(doc)["histogram"]["counts"][0] = bad;
    EXPECT_NE(error_of(doc).find("histogram"), std::string::npos) << bad << ": " << error_of(doc);
  }
}

TEST(ResultReaderHardening, OutOfRangeIntegersAreAJsonError) {
  json doc = valid();
  doc["run_options"] = {{"duration_s", 1.0}, {"runs", 1e300},    {"cpus", ""},
                        {"load", ""},        {"watchdog_s", 10}, {"require_rt", false}};
  EXPECT_NE(error_of(doc).find("run_options.runs"), std::string::npos) << error_of(doc);
  doc["run_options"]["runs"] = 4'294'967'296LL;  // does not fit an int
  EXPECT_NE(error_of(doc).find("run_options.runs"), std::string::npos) << error_of(doc);
  doc["run_options"]["runs"] = 3;
  EXPECT_EQ(error_of(doc), "");
}

TEST(ResultReaderHardening, SamplesMustBeFiniteNumbers) {
  json doc = valid();
  metric(doc)["samples"] = json::array({1.0, "x"});
  EXPECT_NE(error_of(doc).find("samples"), std::string::npos) << error_of(doc);
  // An infinite sample was accepted. Built in memory it is written out as null; in a file,
  // 1e400 is not a number a JSON parser may read as infinity.
  metric(doc)["samples"] = json::array({1.0, std::numeric_limits<double>::infinity()});
  EXPECT_NE(error_of(doc).find("samples: a null is not a finite number"), std::string::npos)
      << error_of(doc);
  metric(doc)["samples"] = json::array({1.0});
  std::string text = doc.dump();
  const auto at = text.find("\"samples\":[1.0]");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 15, "\"samples\":[1e400]");
  EXPECT_THROW(report_from_text(text), JsonError);
}

TEST(ResultReaderHardening, ABadStealCpuKeyIsLeftOutNotAStoiException) {
  for (const char* key : {"x", "99999999999", "-1", "1x"}) {
    json doc = valid();
    doc["suites"][0]["hygiene"]["steal_ms_per_cpu"] = {{key, 1.0}, {"1", "a string"}, {"0", 2.0}};
    try {
      const RunReport r = report_from_json(doc);
      ASSERT_EQ(r.suites[0].hygiene.steal_ms_per_cpu.size(), 1u) << key;
      EXPECT_EQ(r.suites[0].hygiene.steal_ms_per_cpu.at(0), 2.0);
    } catch (const std::exception& e) {
      ADD_FAILURE() << key << ": " << e.what();
    }
  }
}

TEST(ResultReaderHardening, MinAboveMaxOrBucketsOutsideMinMaxAreRefused) {
  json doc = valid();
  metric(doc)["summary"]["min"] = 5000;  // min > max: std::clamp(lo > hi) is UB
  EXPECT_NE(error_of(doc).find("[min, max]"), std::string::npos) << error_of(doc);
  doc = valid();
  metric(doc)["summary"]["max"] = 900;  // the buckets lie above max
  metric(doc)["summary"]["min"] = 800;
  metric(doc)["summary"]["mean"] = 850;
  EXPECT_NE(error_of(doc).find("[min, max]"), std::string::npos) << error_of(doc);
}

TEST(ResultReaderHardening, TraceFieldsOutOfRangeFallBack) {
  json doc = valid();
  metric(doc);
  doc["suites"][0]["cases"][0]["analysis"] = json::array({{{"cpu", 1e300}, {"run", -5e20}}});
  const RunReport r = report_from_json(doc);
  ASSERT_EQ(r.suites[0].cases[0].analysis.size(), 1u);
  EXPECT_EQ(r.suites[0].cases[0].analysis[0].cpu, -1);  // the fallback, not a cast of 1e300
  EXPECT_EQ(r.suites[0].cases[0].analysis[0].run, 0);
}

}  // namespace
}  // namespace rtgate

namespace rtgate {
namespace {

// /2's compact encoding on malformed input: a span past the layout, runs columns of
// unequal length or the wrong type are JsonErrors naming the field.
TEST(ResultReaderHardening, SpansPastTheLayoutAndRaggedRunColumnsAreRefused) {
  const json v2 = test::as_v2(valid());
  json doc = v2;
  // Two counts from the last bucket on: the second lies past the layout.
  metric(doc)["histogram"]["spans"][0] = json::array({LatencyHistogram::kBuckets - 1, 1, 1});
  EXPECT_NE(error_of(doc).find("past the layout"), std::string::npos) << error_of(doc);
  doc = v2;
  metric(doc)["histogram"]["spans"][0][0] = std::numeric_limits<std::uint64_t>::max();
  EXPECT_NE(error_of(doc).find("histogram"), std::string::npos) << error_of(doc);
  doc = v2;
  metric(doc)["histogram"]["spans"] = json::array({json::array({1})});  // no count
  EXPECT_NE(error_of(doc).find("span"), std::string::npos) << error_of(doc);
  doc = v2;
  metric(doc)["runs"]["p99"] = json::array();
  EXPECT_NE(error_of(doc).find("runs.p99: not one value per run"), std::string::npos)
      << error_of(doc);
  doc = v2;
  metric(doc)["runs"]["max"][0] = -1;
  EXPECT_NE(error_of(doc).find("runs.max"), std::string::npos) << error_of(doc);
  doc = v2;
  metric(doc)["runs"] = "x";
  EXPECT_NE(error_of(doc).find("runs"), std::string::npos) << error_of(doc);
}

// /3's counts past the layout (a count or a skip) or a skip no integer can hold are refused.
TEST(ResultReaderHardening, CountsPastTheLayoutAreRefused) {
  const auto k = static_cast<std::int64_t>(LatencyHistogram::kBuckets);
  for (const json& counts :
       {json::array({-k, 1}), json::array({-(k - 1), 1, 1}), json::array({-k - 1}),
        json::array({std::numeric_limits<std::int64_t>::min(), 1}),
        json::array({std::numeric_limits<std::uint64_t>::max()})}) {
    json doc = valid();
    metric(doc)["histogram"]["counts"] = counts;
    EXPECT_NE(error_of(doc).find("histogram"), std::string::npos) << counts << error_of(doc);
  }
  // The last bucket itself is fine: -(k - 1) then one count (and min/max to match).
  json doc = valid();
  metric(doc)["histogram"]["counts"] = json::array({-(k - 1), 1});
  EXPECT_EQ(error_of(doc).find("past the layout"), std::string::npos) << error_of(doc);
}

// The reader walks the document's and each suite's top level and parses every piece on its own
// (result_reader.cpp): what lies between or after the pieces is checked as well as the pieces.
std::string text_error_of(const std::string& text) {
  try {
    report_from_text(text);
  } catch (const JsonError& e) {
    return e.what();
  }
  return "";
}

TEST(ResultReaderHardening, TheDocumentIsCheckedAroundItsPiecesToo) {
  const std::string text = valid().dump();
  ASSERT_EQ(text_error_of(text), "");
  EXPECT_NE(text_error_of(text + " x").find("not valid JSON"), std::string::npos);
  EXPECT_NE(text_error_of(text + " {}").find("not valid JSON"), std::string::npos);
  EXPECT_EQ(text_error_of(text + " \n\t"), "");
  // Broken inside a case, inside a suite's own fields, inside the document's own fields.
  json doc = valid();
  metric(doc)["samples"] = json::array({1.0, 2.0});
  std::string broken = doc.dump();
  broken.replace(broken.find("[1.0,2.0]"), 9, "[1.0,2.0 ");
  EXPECT_NE(text_error_of(broken).find("not valid JSON"), std::string::npos) << broken;
  doc = valid();
  doc["suites"][0]["reason"] = "r";
  broken = doc.dump();
  broken.replace(broken.find("\"r\""), 3, "\"r");
  EXPECT_NE(text_error_of(broken).find("not valid JSON"), std::string::npos);
  doc = valid();
  doc["started_at"] = 12;
  broken = doc.dump();
  broken.replace(broken.find(":12"), 3, ":1-2");
  EXPECT_NE(text_error_of(broken).find("not valid JSON"), std::string::npos);
  // Shapes: named by where they are.
  doc = valid();
  doc["suites"] = json::object();
  EXPECT_NE(error_of(doc).find("suites: expected an array"), std::string::npos) << error_of(doc);
  doc = valid();
  doc["suites"][0] = 3;
  EXPECT_NE(error_of(doc).find("suites[0]: expected an object"), std::string::npos);
  doc = valid();
  doc["suites"][0]["cases"] = "none";
  EXPECT_NE(error_of(doc).find("suites[0].cases: expected an array"), std::string::npos);
  doc = valid();
  doc["suites"][0].erase("cases");
  EXPECT_NE(error_of(doc).find("missing field 'cases'"), std::string::npos) << error_of(doc);
  doc = valid();
  doc["suites"][0]["cases"][0]["metrics"] = 1;
  EXPECT_NE(error_of(doc).find("suites[0].cases[0].metrics"), std::string::npos);
  // Another kind of document is named as such, not by a field of a suite it does not have.
  EXPECT_NE(text_error_of(R"({"schema":"other/1","suites":[{"x":1}]})").find("unsupported schema"),
            std::string::npos);
  EXPECT_NE(text_error_of("[1,2]").find("not a result document"), std::string::npos);
  EXPECT_NE(text_error_of("").find("not valid JSON"), std::string::npos);
}

// Cases are paired by name: a suite listing one twice is refused by the full read and by the
// history's read alike; the same name in two suites is fine.
TEST(ResultReaderHardening, ASuiteListingACaseTwiceIsRefused) {
  json doc = valid();
  doc["suites"][0]["cases"].push_back(doc["suites"][0]["cases"][0]);
  const std::string expect =
      "suites[0].cases[1]: suite 'cyclic' lists case 'cpu0' twice (first at cases[0])";
  EXPECT_NE(error_of(doc).find(expect), std::string::npos) << error_of(doc);
  const std::string path = ::testing::TempDir() + "/twice." + std::to_string(getpid()) + ".json";
  ASSERT_TRUE((std::ofstream(path) << doc.dump()).good());
  for (const bool history_only : {false, true}) {
    try {
      read_report_file(path, {.history_only = history_only});
      ADD_FAILURE() << "history_only " << history_only << ": loaded";
    } catch (const JsonError& e) {
      EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
    }
  }
  unlink(path.c_str());
  doc = valid();
  doc["suites"].push_back(doc["suites"][0]);
  doc["suites"][1]["name"] = "cyclic.other";
  EXPECT_EQ(error_of(doc), "");
}

TEST(ResultReaderHardening, AResultIsReadFromAPipe) {
  const std::string text = valid().dump();
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::thread writer([&] {
    // More than a pipe buffer (64 KiB), so the reader must loop.
    const std::string padded = text + std::string(200000, ' ');
    for (std::size_t at = 0; at < padded.size();) {
      const ssize_t n = write(fds[1], padded.data() + at, padded.size() - at);
      if (n <= 0) break;
      at += static_cast<std::size_t>(n);
    }
    close(fds[1]);
  });
  const RunReport r = read_report_file("/proc/self/fd/" + std::to_string(fds[0]));
  writer.join();
  close(fds[0]);
  ASSERT_EQ(r.suites.size(), 1u);
  EXPECT_EQ(r.suites[0].cases.at(0).metrics.at(0).histogram->count(), 2u);
}

}  // namespace
}  // namespace rtgate
