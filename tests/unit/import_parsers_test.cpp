// The importers on small fragments of each format (the integration test feeds them the real
// tools' output): what each figure becomes, and the inputs they refuse with one line.
#include <gtest/gtest.h>

#include <string>

#include "importers/import_files.h"
#include "importers/rt_tests_json.h"
#include "importers/tool_options.h"

namespace rtgate::importers {
namespace {

// rt_write_json's header, as rt-tests 2.4 writes it (the colon in two keys is the tool's).
std::string rt_tests(const std::string& cmdline, const std::string& body,
                     const std::string& node = "box", int realtime = 1) {
  return R"({"file_version": 1, "cmdline:": ")" + cmdline +
         R"(", "rt_test_version:": "2.40", "start_time": "Fri, 04 Dec 2026 13:52:12 +0100",
  "end_time": "Fri, 04 Dec 2026 13:52:14 +0100", "return_code": 0,
  "sysinfo": {"sysname": "Linux", "nodename": ")" +
         node + R"(", "release": "6.1.0-rt", "version": "#1 SMP PREEMPT_RT", "machine":
  "x86_64", "realtime": )" +
         std::to_string(realtime) + "}, " + body + "}";
}

RunReport import(const std::string& text, const std::string& cmdline = "") {
  return import_text(text, "f", cmdline).second;
}

std::string error_of(const std::string& text) {
  try {
    import_text(text, "f");
  } catch (const ImportError& e) {
    return e.what();
  }
  return "(accepted)";
}

const Metric& metric(const RunReport& r, const std::string& c, const std::string& m) {
  const Metric* out = r.suites.at(0).find(c)->find(m);
  if (out == nullptr) throw std::runtime_error("no metric " + m);
  return *out;
}

TEST(ImportParsers, CyclictestWithoutHistogramIsSummaryOnlyWithItsParameters) {
  const RunReport r = import(rt_tests("cyclictest -D 2 -m -p95 -t 2 -a 0,1 -q --json=x.json",
                                      R"("num_threads": 2, "resolution_in_ns": 0, "thread": {
        "0": {"histogram": {}, "cycles": 1983, "min": 13, "max": 3760, "avg": 49.24, "cpu": 0},
        "1": {"histogram": {}, "cycles": 1330, "min": 21, "max": 2741, "avg": 54.83, "cpu": 1}})"));
  const SuiteResult& s = r.suites.at(0);
  EXPECT_EQ(s.name, "cyclic");
  EXPECT_EQ(std::get<std::int64_t>(s.params.at("interval_us")), 1000);
  EXPECT_EQ(std::get<std::int64_t>(s.params.at("priority")), 95);
  EXPECT_EQ(std::get<std::string>(s.params.at("policy")), "fifo");
  EXPECT_EQ(std::get<std::int64_t>(s.params.at("distance_us")), 500);  // cyclictest's default
  EXPECT_EQ(std::get<std::string>(s.params.at("cpus")), "0-1");
  ASSERT_TRUE(s.imported);
  EXPECT_EQ(s.imported->tool, "cyclictest");
  EXPECT_EQ(s.imported->version, "2.40");
  const Metric& m = metric(r, "cpu0", "wakeup_latency");
  EXPECT_TRUE(m.summary_only);
  ASSERT_EQ(m.runs.size(), 1u);
  EXPECT_EQ(m.runs[0].count, 1983u);
  EXPECT_EQ(m.runs[0].min, 13'000u);
  EXPECT_EQ(m.runs[0].max, 3'760'000u);
  EXPECT_DOUBLE_EQ(m.runs[0].mean, 49'240);
  EXPECT_EQ(m.runs[0].p99, 0u);                               // unknown
  EXPECT_EQ(s.find("cpu1")->labels.at("period_us"), "1500");  // -d 500 for thread 1
  // The file's machine, and its times in UTC.
  EXPECT_EQ(r.environment.hostname, "box");
  EXPECT_TRUE(r.environment.realtime);
  EXPECT_EQ(r.environment.preempt_model, "rt");
  EXPECT_EQ(r.started_at, "2026-12-04T12:52:12Z");
  EXPECT_DOUBLE_EQ(r.options.duration_s, 2);
  EXPECT_EQ(r.environment.extra.count("mlockall"), 0u);  // -m was given
  EXPECT_EQ(r.environment.extra.at("cpu_dma_latency_hold"), "0 us");
}

// Files from elsewhere: a bucket of 2^64-1 (which wrapped the sum past the count check), a key
// given twice, nesting deep enough to take the stack, and a string past its bound.
TEST(ImportParsers, HostileJsonIsRefusedWithTheLimitItBroke) {
  const std::string big = "18446744073709551615";
  const std::string wrapped =
      rt_tests("cyclictest -D 2 -m -p 95 -t 1 -a 1 -h 100 --json=x.json",
               R"("thread": {"0": {"histogram": {"20": )" + big + R"(, "30": 2}, "cycles": 1,
        "min": 20, "max": 30, "avg": 25, "cpu": 1}})");
  EXPECT_NE(error_of(wrapped).find("more samples than its 1 cycles"), std::string::npos)
      << error_of(wrapped);
  const std::string twice = rt_tests("cyclictest -D 2 -m -p 95 -t 1 -a 1 --json=x.json",
                                     R"("thread": {"0": {"cycles": 5, "cycles": 6, "min": 20,
        "max": 30, "avg": 25, "cpu": 1}})");
  EXPECT_EQ(error_of(twice), "f: the key \"cycles\" twice in one object");
  EXPECT_EQ(error_of(std::string(16 << 20, '[')), "f: JSON nested deeper than 64 levels");
  const std::string deep = rt_tests("cyclictest --json=x.json",
                                    R"("extra": )" + std::string(400, '[') + std::string(400, ']'));
  EXPECT_EQ(error_of(deep), "f: JSON nested deeper than 64 levels");
  const std::string longname = rt_tests(std::string(2 << 20, 'c'), R"("thread": {})");
  EXPECT_NE(error_of(longname).find("string longer than"), std::string::npos);
}

TEST(ImportParsers, CyclictestHistogramKeepsItsBucketsCountAndExactMax) {
  // 200 cycles: 190 in buckets, 10 beyond -h 100 (cycles minus the histogram's sum).
  const RunReport r =
      import(rt_tests("cyclictest -D 2 -m -p 95 -t 1 -a 1 -h 100 --json=x.json",
                      R"("thread": {"0": {"histogram": {"20": 90, "30": 95, "99": 5}, "cycles": 200,
        "min": 20, "max": 3508, "avg": 200.5, "cpu": 1}})"));
  const Metric& m = metric(r, "cpu1", "wakeup_latency");
  ASSERT_TRUE(m.histogram);
  EXPECT_EQ(m.histogram->count(), 200u);
  EXPECT_EQ(m.histogram->min(), 20'000u);
  EXPECT_EQ(m.histogram->max(), 3'508'000u);  // the file's, not a bucket edge
  EXPECT_NEAR(m.histogram->mean(), 200'500, 1);
  // A bucket of i us goes to i * 1000 ns; a quantile reads its log-linear bucket's upper edge,
  // at most 1/64 above.
  const std::uint64_t p50 = m.histogram->quantile(0.5);
  EXPECT_GE(p50, 30'000u);
  EXPECT_LE(p50, 30'000u + 30'000u / 64);
  // p99's rank (198) lies among the 10 overflowed samples: unknown in the run, and said so.
  // p90's (180) is in the buckets; p99.9's and p99.99's (200) is the top one, the exact max.
  EXPECT_EQ(m.runs[0].p99, 0u);
  EXPECT_NE(m.runs[0].p90, 0u);
  EXPECT_EQ(m.runs[0].p999, 3'508'000u);
  EXPECT_EQ(m.unknown_quantiles, std::vector<std::string>{"p99"});
  EXPECT_EQ(std::get<std::int64_t>(r.suites[0].params.at("distance_us")), 0);  // -h sets 0
}

TEST(ImportParsers, CyclictestNanosecondsAndOptionsWithoutCounterpart) {
  const RunReport r =
      import(rt_tests("cyclictest -N -r -x --priospread -p 80 --policy=rr -i 200 -l 1000 --json=x",
                      R"("resolution_in_ns": 1, "thread": {"0": {"histogram": {}, "cycles": 1000,
        "min": 10494, "max": 191748, "avg": 38577.48, "cpu": -1}})"));
  const SuiteResult& s = r.suites[0];
  EXPECT_EQ(metric(r, "thread0", "wakeup_latency").runs[0].max, 191'748u);  // ns as they are
  EXPECT_EQ(std::get<std::string>(s.params.at("policy")), "rr");
  EXPECT_EQ(std::get<std::int64_t>(s.params.at("interval_us")), 200);
  for (const char* p : {"relative", "posix_timers", "priospread"}) {
    EXPECT_TRUE(std::get<bool>(s.params.at(p))) << p;
  }
  EXPECT_EQ(s.params.count("cpus"), 0u);  // an unpinned thread has no CPU of its own
  EXPECT_FALSE(r.options.recorded);       // -l, not -D: no duration
  EXPECT_EQ(r.environment.extra.at("mlockall"), "cyclictest ran without -m");
}

TEST(ImportParsers, CyclictestInconsistentFiguresAreRefused) {
  const auto with = [](const std::string& thread) {
    return error_of(rt_tests("cyclictest -h 50", R"("thread": {"0": )" + thread + "}"));
  };
  // More samples in the histogram than cycles.
  EXPECT_NE(with(R"({"histogram": {"5": 10}, "cycles": 4, "min": 5, "max": 5, "avg": 5})")
                .find("more samples than its 4 cycles"),
            std::string::npos);
  // A bucket beyond the max.
  EXPECT_NE(with(R"({"histogram": {"9": 1}, "cycles": 1, "min": 5, "max": 6, "avg": 5})")
                .find("outside [min 5, max 6]"),
            std::string::npos);
  EXPECT_NE(with(R"({"histogram": {}, "cycles": 1, "min": 7, "max": 6, "avg": 6})")
                .find("min 7 above max 6"),
            std::string::npos);
  EXPECT_NE(with(R"({"histogram": {}, "cycles": "1", "min": 7, "max": 6, "avg": 6})")
                .find("thread.0.cycles: expected a non-negative integer"),
            std::string::npos);
  EXPECT_NE(
      with(R"({"histogram": {}, "min": 1, "max": 6, "avg": 6})").find("missing field 'cycles'"),
      std::string::npos);
}

TEST(ImportParsers, OslatLastBucketBeyondWhichTheMaxLiesIsOverflow) {
  const RunReport r =
      import(rt_tests("oslat -D 2 -c 1 -f 1 --json=x",
                      R"("num_threads": 1, "thread": {"0": {"cpu": 1, "freq": 2096, "min": 1,
        "avg": 1.5, "max": 6791, "duration": 1.999,
        "histogram": {"1": 1000, "3": 10, "32": 4}}})"));
  const SuiteResult& s = r.suites[0];
  EXPECT_EQ(s.name, "oslat");
  EXPECT_EQ(std::get<std::string>(s.params.at("policy")), "fifo");
  EXPECT_EQ(std::get<std::int64_t>(s.params.at("priority")), 1);
  const Metric& m = metric(r, "cpu1", "loop_latency");
  ASSERT_TRUE(m.histogram);
  EXPECT_EQ(m.histogram->count(), 1014u);
  EXPECT_EQ(m.histogram->max(), 6'791'000u);
  // The 4 samples of bucket 32 are only known to lie in [32 us, 6791 us]: placed at the max.
  const auto b = m.histogram->buckets();
  EXPECT_EQ(b.back().count, 4u);
  EXPECT_LE(b.back().lower_ns, 6'791'000u);
  EXPECT_GT(b.back().upper_ns, 6'791'000u);
}

TEST(ImportParsers, IpcPairToolsAndSignaltestAreSummaryOnly) {
  const RunReport pmq =
      import(rt_tests("pmqtest -D 2 -p 90 -q -S -i 1000 --json=x",
                      R"("thread": {"0": {"sender": {"cpu": 0, "priority": 90, "samples": 1847,
        "interval": 1000}, "receiver": {"cpu": 0, "priority": 90, "timeoutcount": 0,
        "min": 3, "avg": 4.55, "max": 68}}})"));
  EXPECT_EQ(pmq.suites[0].name, "pmqtest");
  const Metric& w = metric(pmq, "pair0", "wakeup_latency");
  EXPECT_TRUE(w.summary_only);
  EXPECT_EQ(w.runs[0].count, 1847u);
  EXPECT_EQ(w.runs[0].max, 68'000u);
  EXPECT_EQ(metric(pmq, "pair0", "timeouts").samples, std::vector<double>{0});
  EXPECT_TRUE(std::get<bool>(pmq.suites[0].params.at("smp")));

  const RunReport sig = import(rt_tests(
      "signaltest -D 2 -p 90 -m -q --json=x",
      R"("thread": {"0": {"cycles": 2737, "min": 31, "max": 4954, "avg": 90.34, "cpu": 0}})"));
  EXPECT_EQ(sig.suites[0].name, "signaltest");
  EXPECT_EQ(metric(sig, "thread0", "wakeup_latency").runs[0].max, 4'954'000u);
}

TEST(ImportParsers, PiStressInversionsPerSecondAndItsReturnCode) {
  std::string text = rt_tests("pi_stress --duration=5 --groups=1 --json=x", R"("inversion": 100)");
  const RunReport ok = import(text);
  EXPECT_EQ(ok.suites[0].status, SuiteStatus::kPassed);
  // 100 inversions over the file's 2 s between start and end.
  EXPECT_DOUBLE_EQ(metric(ok, "all", "inversions").samples.at(0), 50);
  text.replace(text.find("\"return_code\": 0"), 16, "\"return_code\": 1");
  const RunReport failed = import(text);
  EXPECT_EQ(failed.suites[0].status, SuiteStatus::kFailed);
  EXPECT_EQ(failed.suites[0].reason, "pi_stress exited with return code 1");
}

// rtla 6.1's `timerlat hist -c 0,1 -d 10`, cut to a few buckets.
constexpr const char* kRtla = R"(# RTLA timerlat histogram
# Time unit is microseconds (us)
# Duration:   0 00:00:10
Index   IRQ-000   Thr-000   IRQ-001   Thr-001
2          9000         0      9990         0
3           990      5000         9      9000
7            10      4999         0       999
over:         0         1         1         1
count:    10000     10000     10000     10000
min:          2         3         2         3
avg:          2         5         2         3
max:          7       312       410       501
ALL:        IRQ       Thr
count:    20000     20000
)";

TEST(ImportParsers, RtlaTimerlatHistColumnsBecomeCasesAndMetrics) {
  const RunReport r = import(kRtla, "rtla timerlat hist -p 500 -c 0,1 -d 10");
  const SuiteResult& s = r.suites[0];
  EXPECT_EQ(s.name, "timerlat");
  EXPECT_EQ(std::get<std::int64_t>(s.params.at("period_us")), 500);
  EXPECT_EQ(std::get<std::string>(s.params.at("cpus")), "0-1");
  EXPECT_DOUBLE_EQ(r.options.duration_s, 10);
  const Metric& thr0 = metric(r, "cpu0", "thread_latency");
  EXPECT_EQ(thr0.histogram->count(), 10000u);
  EXPECT_EQ(thr0.histogram->max(), 312'000u);
  EXPECT_EQ(metric(r, "cpu1", "irq_latency").histogram->max(), 410'000u);
  // 1 of 10,000 beyond rtla's entries: p99.99's rank is in the buckets or the exact max.
  EXPECT_TRUE(thr0.unknown_quantiles.empty());
  // Without --cmdline the period is unknown, and said so.
  const RunReport bare = import(kRtla);
  EXPECT_EQ(bare.suites[0].params.count("period_us"), 0u);
}

TEST(ImportParsers, UnreadableInputsSayWhyInOneLine) {
  const auto one_line = [](const std::string& e) { return e.find('\n') == std::string::npos; };
  for (const std::string& text :
       {std::string(""), std::string("hello\n"), std::string("{\"a\": 1}"),
        std::string("Index IRQ-000\n0 1\n"), std::string(kRtla).substr(0, 60),
        rt_tests("rt-migrate-test -D 2 2", R"("thread": {})"),
        std::string(R"({"schema": "rtgate.result/3", "suites": []})")}) {
    const std::string e = error_of(text);
    EXPECT_NE(e, "(accepted)") << text;
    EXPECT_TRUE(one_line(e)) << e;
    EXPECT_EQ(e.rfind("f: ", 0), 0u) << e;  // names the file
  }
  EXPECT_NE(error_of(rt_tests("rt-migrate-test -D 2 2", R"("thread": {})")).find("rt-migrate-test"),
            std::string::npos);
  std::string cols(kRtla);
  const std::string row = "7            10      4999         0       999";
  cols.replace(cols.find(row), row.size(), "7 10 4999 0");
  EXPECT_NE(error_of(cols).find("values for 4 columns"), std::string::npos);
}

TEST(ImportParsers, FilesOfOneSessionCombineAndOthersAreRefused) {
  const auto cyc = [](const std::string& prio, const std::string& node, const std::string& h) {
    return import(rt_tests("cyclictest -D 2 -m -d 0 -p " + prio + " -t 1 -a 0" + h,
                           R"("thread": {"0": {"histogram": {)" +
                               std::string(h.empty() ? "" : R"("3": 5)") +
                               R"(}, "cycles": 5, "min": 3, "max": 3, "avg": 3, "cpu": 0}})",
                           node));
  };
  const RunReport two = combine_runs({cyc("95", "a", ""), cyc("95", "a", "")}, {"x", "y"});
  ASSERT_EQ(two.suites.size(), 1u);
  EXPECT_EQ(two.suites[0].runs, 2);
  EXPECT_EQ(two.suites[0].find("cpu0")->find("wakeup_latency")->runs.size(), 2u);
  EXPECT_EQ(two.suites[0].imported->files, (std::vector<std::string>{"f", "f"}));
  const auto refused = [&](RunReport a, RunReport b) {
    try {
      combine_runs({std::move(a), std::move(b)}, {"x", "y"});
    } catch (const ImportError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_NE(refused(cyc("95", "a", ""), cyc("90", "a", "")).find("priority: 95 -> 90"),
            std::string::npos);
  EXPECT_NE(refused(cyc("95", "a", ""), cyc("95", "b", "")).find("host 'b'"), std::string::npos);
  EXPECT_NE(refused(cyc("95", "a", ""), cyc("95", "a", " -h 10")).find("histogram"),
            std::string::npos);
}

TEST(ImportParsers, HostEnvironmentOnlyForTheMachineTheFilesName) {
  RunReport r = import(rt_tests("cyclictest -D 1 -m", R"("thread": {"0": {"cycles": 1,
    "min": 3, "max": 3, "avg": 3, "cpu": 0}})"));
  Environment host;
  host.hostname = "other";
  EXPECT_THROW(apply_host_environment(r, host), ImportError);
  host = r.environment;
  host.cpu_model = "Some CPU";
  host.boot_id = "b00t";
  apply_host_environment(r, host);
  EXPECT_EQ(r.environment.cpu_model, "Some CPU");
  EXPECT_EQ(r.environment.boot_id, "");  // the files' session, not this boot
  EXPECT_EQ(r.environment.extra.at("cpu_dma_latency_hold"), "0 us");  // the file's, kept
}

TEST(ImportParsers, ToolOptionsReadAsGetoptLongDoes) {
  const ToolOptions o(split_command("-mqp95 --interval=200 -D 1m --pol fifo -t 2 pos"),
                      {{'m', "mlockall", OptionSpec::Arg::kNone},
                       {'q', "quiet", OptionSpec::Arg::kNone},
                       {'p', "priority", OptionSpec::Arg::kRequired},
                       {'i', "interval", OptionSpec::Arg::kRequired},
                       {'D', "duration", OptionSpec::Arg::kRequired},
                       {0, "policy", OptionSpec::Arg::kRequired},
                       {'t', "threads", OptionSpec::Arg::kOptional}});
  EXPECT_TRUE(o.has("mlockall"));
  EXPECT_EQ(o.value("priority"), "95");
  EXPECT_EQ(o.value("interval"), "200");
  EXPECT_EQ(o.value("policy"), "fifo");  // an unambiguous prefix
  EXPECT_EQ(*parse_tool_duration(*o.value("duration")), 60);
  EXPECT_FALSE(o.value("threads"));  // an optional argument must be attached
  EXPECT_EQ(o.positional(), (std::vector<std::string>{"2", "pos"}));
  EXPECT_FALSE(parse_tool_duration("5x"));
  EXPECT_EQ(rfc2822_to_rfc3339("Fri, 04 Dec 2026 13:52:12 +0000")->first, "2026-12-04T13:52:12Z");
  EXPECT_FALSE(rfc2822_to_rfc3339("yesterday"));
}

}  // namespace
}  // namespace rtgate::importers
