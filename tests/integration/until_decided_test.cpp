// rtgate run --baseline --until-decided end to end, on real cyclic runs: the loop adds runs only
// while something is open, keeps every run in the JSON, says why it stopped, and refuses bad
// options before anything runs.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/integration/process.h"

namespace rtgate::test {
namespace {

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

int cyclic_runs(const nlohmann::json& doc) {
  for (const auto& s : doc["suites"]) {
    if (s["name"] == "cyclic") return s["runs"].get<int>();
  }
  return -1;
}

TEST(UntilDecided, AddsRunsUntilMaxRunsAndKeepsThemAll) {
  TempDir dir;
  const std::string base = dir.file("base.json"), cur = dir.file("cur.json");
  ASSERT_EQ(run_rtgate({"run", "cyclic", "--runs", "3", "--duration", "0.3", "-o", base}).exit_code,
            0);
  const auto r = run_rtgate({"run", "cyclic", "--runs", "3", "--duration", "0.3", "--baseline",
                             base, "--until-decided", "--max-runs", "5", "-o", cur});
  // 0.3 s runs decide little: the loop runs to --max-runs unless everything was decided (or a
  // regression found) earlier. Which one happened is the host's; each has its own line.
  ASSERT_NE(r.out.find("until-decided: stopped: "), std::string::npos) << r.out << r.err;
  const int runs = cyclic_runs(read_json(cur));
  EXPECT_GE(runs, 3);
  EXPECT_LE(runs, 5);
  if (r.out.find("--max-runs 5 reached") != std::string::npos) {
    EXPECT_EQ(runs, 5);
    EXPECT_NE(r.out.find("until-decided: 4 runs"), std::string::npos) << r.out;
    EXPECT_EQ(r.exit_code, 3) << r.out;
    EXPECT_NE(r.out.find("still open: cyclic/"), std::string::npos) << r.out;
  }
  // Every run is in the JSON, per metric.
  const auto doc = read_json(cur);
  for (const auto& c : doc["suites"][0]["cases"]) {
    for (const auto& m : c["metrics"]) {
      if (m["kind"] == "latency") {
        EXPECT_EQ(m["runs"]["count"].size(), static_cast<std::size_t>(runs));  // per-run columns
      } else if (m["kind"] == "count") {
        EXPECT_EQ(m["samples"].size(), static_cast<std::size_t>(runs));
      }
    }
  }
  // The table says it was a sequential look.
  EXPECT_NE(r.out.find("sequential: this look at"), std::string::npos) << r.out;
}

TEST(UntilDecided, ABudgetTooShortForAnotherRoundStopsAtOnce) {
  TempDir dir;
  const std::string base = dir.file("base.json");
  ASSERT_EQ(run_rtgate({"run", "cyclic", "--runs", "3", "--duration", "0.3", "-o", base}).exit_code,
            0);
  const auto r = run_rtgate({"run", "cyclic", "--runs", "3", "--duration", "0.3", "--baseline",
                             base, "--until-decided", "--budget", "1s", "-o", dir.file("c.json")});
  // Three 0.3 s runs take about 1 s already: no round fits, unless nothing was open.
  if (r.out.find("every gated metric decided") == std::string::npos &&
      r.out.find("regressed at") == std::string::npos) {
    EXPECT_NE(r.out.find("--budget 1s: another run"), std::string::npos) << r.out;
    EXPECT_EQ(cyclic_runs(read_json(dir.file("c.json"))), 3);
  }
}

TEST(UntilDecided, BadOptionsAreOneLineErrors) {
  TempDir dir;
  struct Case {
    std::vector<std::string> args;
    const char* expect;
  };
  for (const Case& c : std::vector<Case>{
           {{"run", "cyclic", "--until-decided"}, "--until-decided needs --baseline"},
           {{"run", "cyclic", "--budget", "5m"}, "--budget needs --until-decided"},
           {{"run", "cyclic", "--baseline", "x.json", "--until-decided", "--budget", "5x"},
            "is not a duration"}}) {
    const auto r = run_rtgate(c.args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
  }
}

}  // namespace
}  // namespace rtgate::test
