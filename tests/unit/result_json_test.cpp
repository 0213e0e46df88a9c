#include "results/result_json.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>

#include "framework/env/environment.h"

namespace rtgate {
namespace {

RunReport sample_report() {
  RunReport r;
  r.tool_version = "0.1.0";
  r.started_at = "2026-11-29T10:00:00.000Z";
  r.finished_at = "2026-11-29T10:00:10.000Z";
  r.complete = false;
  r.environment = capture_environment();
  r.environment.extra["note"] = "x";
  SuiteResult s;
  s.name = "cyclic";
  s.params = {{"interval_us", std::int64_t{1000}},
              {"policy", std::string("fifo")},
              {"ratio", 0.25},
              {"flag", true}};
  s.status = SuiteStatus::kPassed;
  s.duration_s = 10.02;
  s.runs = 2;
  s.hygiene.steal_ms = 1.5;
  s.hygiene.steal_ms_per_cpu = {{0, 0.5}, {1, 1.0}};
  s.hygiene.rt_throttled = 0;
  s.hygiene.rt_throttled_source = "kmsg";
  s.hygiene.missed_periods = 3;
  s.hygiene.foreign_rt_threads.push_back({123, 124, "spinner", "fifo", 90, "1", false, 5'000'000});
  s.contaminated = true;
  s.contaminated_reasons = {"3 missed periods"};
  std::mt19937_64 rng(5);
  for (int cpu = 0; cpu < 2; ++cpu) {
    LatencyHistogram h;
    for (int i = 0; i < 5000; ++i) h.record(static_cast<std::int64_t>(rng() % 200'000));
    Case c;
    c.name = "cpu" + std::to_string(cpu);
    c.labels = {{"cpu", std::to_string(cpu)}, {"thread_class", "rt"}};
    c.metrics.push_back(Metric::latency("wakeup_latency", h, {150000, 180000}));
    c.metrics.push_back(Metric::count("missed_periods", 3, "periods", Metric::Gating::kEventRate));
    c.metrics.push_back(Metric::throughput("ops", "ops/s", 1234.5));
    s.cases.push_back(c);
  }
  r.suites.push_back(s);
  return r;
}

TEST(ResultJson, SummaryFieldsFollowTheDesignContract) {
  const auto j = to_json(sample_report());
  EXPECT_EQ(j["schema"], "rtgate.result/3");
  EXPECT_EQ(j["tool"]["name"], "rtgate");
  for (const char* k : {"hostname", "kernel_release", "kernel_version", "preempt_model", "realtime",
                        "cmdline", "cpu_model", "online_cpus", "isolated_cpus", "rt_runtime_us",
                        "rt_capable", "cpu_dma_latency_us"}) {
    EXPECT_TRUE(j["environment"].contains(k)) << k;
  }
  const auto& suite = j["suites"][0];
  for (const char* k : {"name", "params", "status", "reason", "duration_s", "hygiene",
                        "contaminated", "contaminated_reasons", "cases"}) {
    EXPECT_TRUE(suite.contains(k)) << k;
  }
  for (const char* k : {"foreign_rt_threads", "steal_ms", "rt_throttled", "missed_periods"}) {
    EXPECT_TRUE(suite["hygiene"].contains(k)) << k;
  }
  const auto& lat = suite["cases"][0]["metrics"][0];
  EXPECT_EQ(lat["kind"], "latency");
  EXPECT_EQ(lat["unit"], "ns");
  EXPECT_EQ(lat["better"], "lower");
  for (const char* k : {"count", "min", "mean", "stddev", "p50", "p90", "p99", "p999", "p9999",
                        "max", "overflow"}) {
    EXPECT_TRUE(lat["summary"].contains(k)) << k;
  }
  // /3: counts from bucket 0, a positive count for each non-empty bucket, -n for n empty ones
  // (never two skips in a row, never a zero).
  std::uint64_t total = 0;
  bool skipped = false;
  for (const auto& x : lat["histogram"]["counts"]) {
    const auto v = x.get<std::int64_t>();
    ASSERT_NE(v, 0);
    if (v < 0) {
      EXPECT_FALSE(skipped) << "two skips in a row";
    }
    skipped = v < 0;
    if (v > 0) total += static_cast<std::uint64_t>(v);
  }
  EXPECT_EQ(j["histogram_layout"]["layout"], "log-linear");
  EXPECT_EQ(total, 5000u);
  const auto& tp = suite["cases"][0]["metrics"][2];
  for (const char* k : {"hmean", "amean", "stddev", "cv", "min", "max"}) {
    EXPECT_TRUE(tp["summary"].contains(k)) << k;
  }
  EXPECT_EQ(tp["better"], "higher");
}

// The file is written a case at a time (to_json_text); it must be the tree's text exactly.
TEST(ResultJson, TheStreamedTextIsTheDocumentsText) {
  RunReport r = sample_report();
  r.suites.push_back(r.suites.at(0));
  r.suites[1].name = "second";
  r.suites[1].reason = "a \"quoted\" cases\":[] reason";
  r.suites[1].params["cases"] = std::string("\"cases\":[]");
  r.suites[1].loads.push_back({.kind = "cpu", .spec = "cpu:1", .instances = 1});
  r.suites.push_back(SuiteResult{.name = "empty"});
  EXPECT_EQ(to_json_text(r), to_json(r).dump() + "\n");
  EXPECT_EQ(to_json_text(RunReport{}), to_json(RunReport{}).dump() + "\n");
}

TEST(ResultJson, RoundTripPreservesEverything) {
  const RunReport original = sample_report();
  const std::string first = to_json_text(original);
  const RunReport back = report_from_json(nlohmann::json::parse(first));
  const std::string second = to_json_text(back);
  // mean/stddev are rebuilt from their printed values; everything else must be identical text.
  auto a = nlohmann::json::parse(first), b = nlohmann::json::parse(second);
  for (auto* doc : {&a, &b}) {
    for (auto& c : (*doc)["suites"][0]["cases"]) {
      auto& s = c["metrics"][0]["summary"];
      s["mean"] = std::round(s["mean"].get<double>() * 1e6) / 1e6;
      s["stddev"] = std::round(s["stddev"].get<double>() * 1e3) / 1e3;
    }
  }
  EXPECT_EQ(a, b);
  EXPECT_FALSE(back.complete);
  EXPECT_EQ(back.suites[0].hygiene.foreign_rt_threads.at(0).comm, "spinner");
  EXPECT_EQ(std::get<std::int64_t>(back.suites[0].params.at("interval_us")), 1000);
  EXPECT_EQ(std::get<bool>(back.suites[0].params.at("flag")), true);
}

// A result with a key twice (the gate read the first, the history the last) is refused.
TEST(ResultJson, AKeyTwiceInOneObjectIsRefused) {
  std::string text = to_json_text(sample_report());
  const std::size_t at = text.find("\"hostname\":");
  ASSERT_NE(at, std::string::npos);
  text.insert(at, "\"hostname\":\"other\",");
  try {
    report_from_text(text);
    FAIL() << "accepted";
  } catch (const JsonError& e) {
    EXPECT_NE(std::string(e.what()).find("the key \"hostname\" twice"), std::string::npos)
        << e.what();
  }
}

TEST(ResultJson, RunOptionsRoundTrip) {
  RunReport r = sample_report();
  r.options = {.duration_s = 2.5,
               .runs = 7,
               .cpus = "1-3",
               .load = "cpu:2,fault:1",
               .watchdog_s = 12,
               .require_rt = true,
               .recorded = true};
  const auto j = to_json(r);
  ASSERT_TRUE(j.contains("run_options"));
  // Right after "complete", before "environment".
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  const auto at = std::find(keys.begin(), keys.end(), "complete");
  ASSERT_NE(at, keys.end());
  ASSERT_NE(at + 1, keys.end());
  EXPECT_EQ(*(at + 1), "run_options");
  EXPECT_EQ(j["run_options"]["load"], "cpu:2,fault:1");
  const RunReport back = report_from_json(nlohmann::json::parse(to_json_text(r)));
  EXPECT_TRUE(back.options.recorded);
  EXPECT_EQ(back.options.duration_s, 2.5);
  EXPECT_EQ(back.options.runs, 7);
  EXPECT_EQ(back.options.cpus, "1-3");
  EXPECT_EQ(back.options.load, "cpu:2,fault:1");
  EXPECT_EQ(back.options.watchdog_s, 12);
  EXPECT_TRUE(back.options.require_rt);
}

TEST(ResultJson, ADocumentWithoutRunOptionsLoadsAsNotRecorded) {
  RunReport r = sample_report();
  r.options.recorded = true;
  auto doc = nlohmann::json::parse(to_json_text(r));
  doc.erase("run_options");
  const RunReport back = report_from_json(doc);
  EXPECT_FALSE(back.options.recorded);
  // Written again, it still claims no options.
  EXPECT_FALSE(to_json(back).contains("run_options"));
}

TEST(ResultJson, RunOptionsOfTheWrongTypeAreAnError) {
  RunReport r = sample_report();
  r.options.recorded = true;
  const auto doc = nlohmann::json::parse(to_json_text(r));
  auto wrong = doc;
  wrong["run_options"]["cpus"] = 3;
  try {
    report_from_json(wrong);
    FAIL();
  } catch (const JsonError& e) {
    EXPECT_NE(std::string(e.what()).find("run_options.cpus: wrong type"), std::string::npos)
        << e.what();
  }
  wrong = doc;
  wrong["run_options"] = "10s";
  EXPECT_THROW(report_from_json(wrong), JsonError);
  wrong = doc;
  wrong["run_options"].erase("duration_s");
  EXPECT_THROW(report_from_json(wrong), JsonError);
}

TEST(ResultJson, ReaderRejectsWrongSchemaAndNamesMissingFields) {
  auto doc = nlohmann::json::parse(to_json_text(sample_report()));
  auto wrong = doc;
  wrong["schema"] = "rtgate.result/4";
  try {
    report_from_json(wrong);
    FAIL();
  } catch (const JsonError& e) {
    EXPECT_NE(std::string(e.what()).find("unsupported schema 'rtgate.result/4'"),
              std::string::npos);
  }
  auto missing = doc;
  missing["suites"][0]["cases"][1]["metrics"][0].erase("kind");
  try {
    report_from_json(missing);
    FAIL();
  } catch (const JsonError& e) {
    EXPECT_NE(std::string(e.what()).find("suites[0].cases[1].metrics[0]: missing field 'kind'"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(report_from_json(nlohmann::json::array()), JsonError);
}

TEST(ResultJson, WritesAtomicallyAndLeavesNoTempFile) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("rtgate-json-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "r.json").string();
  std::ofstream(path) << "old";
  ASSERT_EQ(write_result_file(path, sample_report()), "");
  const RunReport back = read_report_file(path);
  EXPECT_EQ(back.suites.size(), 1u);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1u);
  // A directory that does not exist is a clear error, not a crash.
  EXPECT_NE(write_result_file((dir / "no" / "r.json").string(), sample_report()), "");
  std::filesystem::remove_all(dir);
}

TEST(ResultJson, ReadingGarbageIsAOneLineError) {
  const auto path =
      std::filesystem::temp_directory_path() / ("rtgate-bad-" + std::to_string(getpid()) + ".json");
  std::ofstream(path) << "{ not json";
  try {
    read_report_file(path.string());
    FAIL();
  } catch (const JsonError& e) {
    EXPECT_NE(std::string(e.what()).find("is not valid JSON"), std::string::npos);
  }
  std::filesystem::remove(path);
  EXPECT_THROW(read_report_file("/nonexistent/r.json"), JsonError);
}

}  // namespace
}  // namespace rtgate

namespace rtgate {
namespace {

// A result keeps the readiness verdicts of its run; an older result has none, and a malformed
// entry is left out rather than refusing the result.
TEST(ResultJson, ReadinessRoundTripsAndIsLenient) {
  RunReport r = sample_report();
  r.environment.readiness = {
      {.item = "preempt model", .level = "ok", .why = "PREEMPT_RT", .fix = "", .evidence = "1"},
      {.item = "smt", .level = "warn", .why = "a sibling", .fix = "nosmt", .evidence = "0-1"}};
  const RunReport back = report_from_json(nlohmann::json::parse(to_json_text(r)));
  EXPECT_EQ(back.environment.readiness, r.environment.readiness);
  auto doc = nlohmann::json::parse(to_json_text(r));
  doc["environment"]["readiness"].push_back(42);
  doc["environment"]["readiness"][0]["level"] = 7;
  const RunReport lenient = report_from_json(doc);
  ASSERT_EQ(lenient.environment.readiness.size(), 2u);
  EXPECT_EQ(lenient.environment.readiness[0].level, "");
  doc["environment"].erase("readiness");
  EXPECT_TRUE(report_from_json(doc).environment.readiness.empty());
}

}  // namespace
}  // namespace rtgate
