// Malformed input end to end: every one is exit 2 (usage or input error) with one line
// on stderr, refused before anything runs; never exit 1 (which `gate` uses for "regressed"), a
// crash or an uncaught exception.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "results/result_json.h"
#include "tests/integration/process.h"

namespace rtgate::test {
namespace {

void expect_usage_error(const std::vector<std::string>& args, const std::string& expect) {
  std::string cmd;
  for (const auto& a : args) cmd += a + " ";
  const ProcessResult r = run_rtgate(args, {.timeout_s = 30});
  EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << r.err;
  EXPECT_NE(r.err.find(expect), std::string::npos) << cmd << "\n" << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << cmd << ": not one line:\n" << r.err;
  EXPECT_LT(r.seconds, 10) << cmd << ": refused only after running";
}

TEST(BadInput, NonFiniteNumericOptionsExit2) {
  for (const char* v : {"nan", "NaN", "-nan", "inf"}) {
    expect_usage_error({"run", "cyclic", "--duration", v}, "--duration");
    expect_usage_error({"run", "cyclic", "--watchdog", v}, "--watchdog");
    expect_usage_error({"run", "cyclic", "--break-us", v}, "--break-us");
    expect_usage_error({"run", "cyclic", "--trace-threshold-us", v}, "--trace-threshold-us");
  }
  // (--budget is checked before the baseline is read.)
  expect_usage_error(
      {"run", "cyclic", "--until-decided", "--baseline", "/nonexistent.json", "--budget", "inf"},
      "--budget");
  expect_usage_error(
      {"run", "cyclic", "--until-decided", "--baseline", "/nonexistent.json", "--budget", "1e300"},
      "--budget");
}

// A result with one latency metric, written by the real exporter, then damaged field by field.
struct ResultFiles {
  TempDir dir;
  nlohmann::json doc;
  ResultFiles() {
    LatencyHistogram h;
    for (int i = 0; i < 100; ++i) h.record(1000 + i);
    RunReport r;
    SuiteResult s;
    s.name = "cyclic";
    s.runs = 1;
    Case c;
    c.name = "cpu0";
    c.metrics.push_back(Metric::latency("wakeup_latency", h, {1099}));
    s.cases.push_back(c);
    r.suites.push_back(s);
    doc = nlohmann::json::parse(to_json_text(r));
  }
  std::string write(const std::string& name, const nlohmann::json& j) {
    std::ofstream(dir.file(name)) << j.dump();
    return dir.file(name);
  }
  nlohmann::json& metric(nlohmann::json& j) { return j["suites"][0]["cases"][0]["metrics"][0]; }
};

TEST(BadInput, MalformedResultsExit2InGateCompareAndBaseline) {
  ResultFiles f;
  const std::string good = f.write("good.json", f.doc);
  std::vector<std::pair<std::string, std::string>> bad;  // file, expected text
  auto damage = [&](const std::string& name, auto edit) {
    nlohmann::json j = f.doc;
    edit(j);
    bad.emplace_back(f.write(name, j), name == "steal.json" ? "" : "CUR: ");
  };
  damage("negative_count.json", [&](auto& j) { f.metric(j)["summary"]["count"] = -1; });
  damage("string_bucket.json", [&](auto& j) { f.metric(j)["histogram"]["counts"][0] = "x"; });
  damage("min_above_max.json", [&](auto& j) { f.metric(j)["summary"]["min"] = 999999; });
  damage("huge_runs.json", [&](auto& j) {
    j["run_options"] = {{"duration_s", 1}, {"runs", 1e300},    {"cpus", ""},
                        {"load", ""},      {"watchdog_s", 10}, {"require_rt", false}};
  });
  damage("sample_string.json", [&](auto& j) { f.metric(j)["samples"] = {"x"}; });
  for (const auto& [path, expect] : bad) {
    expect_usage_error({"gate", good, path}, expect);
    expect_usage_error({"compare", good, path}, expect);
  }
  expect_usage_error({"run", "cyclic", "--duration", "0.1", "--baseline", bad.front().first},
                     "--baseline: ");
  for (const auto& [path, expect] : bad) {
    expect_usage_error({"report", path, "-o", f.dir.file("r.html")},
                       expect.empty() ? "" : "RESULT: ");
    expect_usage_error({"report", good, "--baseline", path, "-o", f.dir.file("r.html")},
                       expect.empty() ? "" : "--baseline: ");
  }
}

// Cases are paired by name, so a suite listing one twice is malformed for every command that
// reads results, as a baseline, a current result or a history's.
TEST(BadInput, ASuiteListingACaseTwiceExits2InEveryReader) {
  ResultFiles f;
  const std::string good = f.write("good.json", f.doc);
  nlohmann::json j = f.doc;
  j["suites"][0]["cases"].push_back(j["suites"][0]["cases"][0]);
  const std::string twice = f.write("twice.json", j);
  const std::string why = "suite 'cyclic' lists case 'cpu0' twice";
  for (const char* cmd : {"gate", "compare"}) {
    expect_usage_error({cmd, twice, good}, "BASE: suites[0].cases[1]: " + why);
    expect_usage_error({cmd, good, twice}, "CUR: suites[0].cases[1]: " + why);
  }
  expect_usage_error({"report", twice, "-o", f.dir.file("r.html")},
                     "RESULT: suites[0].cases[1]: " + why);
  expect_usage_error({"report", good, "--baseline", twice, "-o", f.dir.file("r.html")},
                     "--baseline: suites[0].cases[1]: " + why);
  expect_usage_error({"export", twice, "--junit", f.dir.file("j.xml")}, why);
  expect_usage_error({"history", twice}, twice + ": suites[0].cases[1]: " + why);
  expect_usage_error({"run", "cyclic", "--duration", "2", "--baseline", twice}, why);
  EXPECT_FALSE(std::ifstream(f.dir.file("r.html")).good());
  EXPECT_FALSE(std::ifstream(f.dir.file("j.xml")).good());
}

// The trace excerpts' directory is checked before anything runs, as -o is: an existing file, a
// path through a file, or (as nobody) a directory that takes no new entry is exit 2 at once, not
// exit 1 once the suites have run. Missing parents are not refused: they are created.
TEST(BadInput, ATraceDirThatCannotBeCreatedExits2BeforeRunning) {
  TempDir dir;
  std::ofstream(dir.file("file")) << "x";
  const std::vector<std::string> run = {"run", "cyclic", "--duration", "2", "--trace"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> args = run;
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  expect_usage_error(with({"--trace-dir", dir.file("file")}),
                     "--trace-dir: '" + dir.file("file") + "' is not a directory");
  expect_usage_error(with({"--trace-dir", dir.file("file") + "/sub"}), "Not a directory");
  // The default, beside -o.
  std::ofstream(dir.file("r.trace")) << "x";
  expect_usage_error(with({"-o", dir.file("r.json")}),
                     "--trace: '" + dir.file("r.trace") + "' is not a directory");
  EXPECT_FALSE(std::ifstream(dir.file("r.json")).good());
  const ProcessResult ok = run_rtgate(with({"--trace-dir", dir.file("a/b/c"), "--dry-run"}));
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_FALSE(std::ifstream(dir.file("a")).good()) << "a check must leave nothing behind";
  if (geteuid() != 0) GTEST_SKIP() << "needs root to switch to nobody";
  ASSERT_EQ(mkdir(dir.file("ro").c_str(), 0555), 0);
  for (const std::string& d : {dir.file("ro"), dir.file("ro/a/b")}) {
    const ProcessResult r = run_rtgate(with({"--trace-dir", d}), {.as_nobody = true});
    ASSERT_NE(r.exit_code, 126) << "could not drop privileges";
    EXPECT_EQ(r.exit_code, 2) << d << ": " << r.err;
    EXPECT_NE(r.err.find("--trace-dir: cannot write '" + d + "': Permission denied"),
              std::string::npos)
        << r.err;
    EXPECT_LT(r.seconds, 1.5) << d << ": refused only after running";
  }
}

// `rtgate report` refuses what it cannot do before reading anything: an unwritable output, a
// policy without a baseline (there is no verdict), a policy that does not parse.
TEST(BadInput, ReportRefusesBadOutputsAndPoliciesWithExit2) {
  ResultFiles f;
  const std::string good = f.write("good.json", f.doc);
  expect_usage_error({"report", good, "-o", "/nonexistent/dir/r.html"}, "-o: ");
  expect_usage_error({"report", good, "-o", f.dir.path()}, "-o: ");
  expect_usage_error({"report", good, "--policy", f.dir.file("p.yaml"), "-o", f.dir.file("r.html")},
                     "--policy needs --baseline");
  std::ofstream(f.dir.file("p.yaml")) << "alpha: [1, 2]\n";
  expect_usage_error({"report", good, "--baseline", good, "--policy", f.dir.file("p.yaml"), "-o",
                      f.dir.file("r.html")},
                     "--policy: ");
  expect_usage_error({"report", f.dir.file("missing.json"), "-o", f.dir.file("r.html")},
                     "RESULT: ");
  // Nothing was written by the refusals; a good one writes the page and exits 0.
  EXPECT_FALSE(std::ifstream(f.dir.file("r.html")).good());
  const ProcessResult ok =
      run_rtgate({"report", good, "--baseline", good, "-o", f.dir.file("r.html")});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_TRUE(std::ifstream(f.dir.file("r.html")).good());
}

TEST(BadInput, APolicyKeyThatIsAListExits2) {
  ResultFiles f;
  const std::string good = f.write("good.json", f.doc);
  std::ofstream(f.dir.file("p.yaml")) << "metrics:\n  ? [cyclic]\n  : {gate: true}\n";
  expect_usage_error({"gate", good, good, "--policy", f.dir.file("p.yaml")}, "--policy: ");
  expect_usage_error({"compare", good, good, "--policy", f.dir.file("p.yaml")}, "--policy: ");
}

// A policy past 4 MiB is refused before YAML sees it, and a FIFO nobody writes to reads as an
// empty policy instead of hanging the gate.
TEST(BadInput, AHugePolicyOrAnIdleFifoIsRefusedQuickly) {
  ResultFiles f;
  const std::string good = f.write("good.json", f.doc);
  {
    std::ofstream big(f.dir.file("big.yaml"));
    big << "# " << std::string(5 << 20, 'x') << "\n";
  }
  expect_usage_error({"gate", good, good, "--policy", f.dir.file("big.yaml")}, "larger than 4 MiB");
  ASSERT_EQ(mkfifo(f.dir.file("fifo.yaml").c_str(), 0600), 0);
  const ProcessResult r =
      run_rtgate({"gate", good, good, "--policy", f.dir.file("fifo.yaml")}, {.timeout_s = 30});
  EXPECT_NE(r.exit_code, 124) << "the gate hung on a FIFO";
  EXPECT_LT(r.seconds, 10);
}

// --max-input, before or after the command, bounds what is read of a result or an imported file
// (and raises it for a farm); the refusal names the file, the limit and the knob.
TEST(BadInput, MaxInputBoundsResultsAndImportsWhereverItIsGiven) {
  ResultFiles f;
  nlohmann::json doc = f.doc;
  doc["padding"] = std::string(3 << 20, 'p');
  const std::string big = f.write("big.json", doc);
  const std::string good = f.write("good.json", f.doc);
  expect_usage_error({"--max-input", "2", "gate", big, good}, "2 MiB");
  expect_usage_error({"gate", good, big, "--max-input", "2"}, "--max-input");
  const ProcessResult ok = run_rtgate({"gate", good, big, "--max-input", "8"}, {.timeout_s = 30});
  EXPECT_NE(ok.exit_code, 2) << ok.err;
  std::ofstream(f.dir.file("cyclictest.txt")) << std::string(3 << 20, '#') << "\n";
  expect_usage_error(
      {"import", f.dir.file("cyclictest.txt"), "-o", f.dir.file("i.json"), "--max-input", "2"},
      "--max-input");
  expect_usage_error({"gate", good, good, "--max-input", "0"}, "--max-input");
}

TEST(BadInput, BadLoadCpusSelectorsAndParamsExit2) {
  expect_usage_error({"run", "cyclic", "--load", "cpu:99999999999999999999"}, "--load");
  expect_usage_error({"run", "cyclic", "--load", "rt:1:-5"}, "--load");
  expect_usage_error({"run", "cyclic", "--load", ",,"}, "--load");
  expect_usage_error({"run", "cyclic", "--cpus", "99999999999999999999"}, "--cpus");
  expect_usage_error({"run", "cyclic", "--cpus", "3-1"}, "--cpus");
  expect_usage_error({"run", "cyclic", "--cpus", "-"}, "--cpus");
  expect_usage_error({"run", "tag:"}, "tag");
  expect_usage_error({"run", "[", "--duration", "0.1"}, "[");
  expect_usage_error({"run", "cyclic", "-p", "interval_us=99999999999999999999999"}, "interval_us");
  expect_usage_error({"run", "cyclic", "-p", "interval_us=nan"}, "interval_us");
  expect_usage_error({"run", "cyclic", "-p", "=1"}, "bad parameter");
  expect_usage_error({"run", "cyclic", "-p", "cyclic.=1"}, "bad parameter");
  expect_usage_error({"run", "cyclic", "-p", "cpus=0-99999"}, "cpus");
}

}  // namespace
}  // namespace rtgate::test
