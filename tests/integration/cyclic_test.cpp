// `rtgate run cyclic` for real: SCHED_FIFO threads, JSON on disk, SIGINT, and a foreign RT
// spinner that must be caught by the hygiene checks.
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <thread>

#include "base/text/utf8.h"
#include "framework/rt/rt_checks.h"
#include "tests/integration/fs_fixtures.h"
#include "tests/integration/process.h"
#include "tests/integration/result_json.h"

namespace rtgate::test {
namespace {

const nlohmann::json* metric(const nlohmann::json& c, const std::string& name) {
  for (const auto& m : c["metrics"]) {
    if (m["name"] == name) return &m;
  }
  return nullptr;
}

TEST(Cyclic, OneCasePerCpuWithTheExpectedNumberOfWakeups) {
  SKIP_WITHOUT_FIFO();
  TempDir dir;
  const auto r = run_rtgate({"run", "cyclic", "--duration", "5", "-o", dir.file("r.json")});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto doc = load_json(dir.file("r.json"));
  EXPECT_EQ(doc["schema"], "rtgate.result/3");
  EXPECT_TRUE(doc["complete"].get<bool>());
  const auto& suite = doc["suites"][0];
  EXPECT_EQ(suite["status"], "passed");
  EXPECT_EQ(suite["params"]["interval_us"], 1000);
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  ASSERT_EQ(static_cast<long>(suite["cases"].size()), cpus);
  for (const auto& c : suite["cases"]) {
    const auto* lat = metric(c, "wakeup_latency");
    const auto* missed = metric(c, "missed_periods");
    ASSERT_NE(lat, nullptr);
    ASSERT_NE(missed, nullptr);
    const auto count = (*lat)["summary"]["count"].get<std::uint64_t>();
    const auto skipped = static_cast<std::uint64_t>((*missed)["samples"][0].get<double>());
    // The schedule is deterministic: every one of the 5000 periods is either measured or
    // counted as missed, exactly.
    EXPECT_EQ(count + skipped, 5000u) << c["name"];
    // Acceptance: count within 2% of duration/interval, plus one period per millisecond the
    // hypervisor stole from that CPU (time stolen from a vCPU cannot be measured in; this VM's
    // host takes 10-27 ms at a time). Beyond that, 100 periods (100 ms of missed wakeups in
    // 5 s) would mean a broken machine, not noise.
    // A guest whose hypervisor publishes no steal (its steal source says "none visible") loses
    // periods to the host unseen: there the bound is 10%, half a second of stalls in 5 s.
    const std::string cpu = c["labels"]["cpu"];
    const double steal_ms = suite["hygiene"]["steal_ms_per_cpu"].value(cpu, 0.0);
    const bool steal_unseen =
        suite["hygiene"].value("steal_source", std::string()).find("none visible") !=
        std::string::npos;
    EXPECT_NEAR(static_cast<double>(count), 5000.0, (steal_unseen ? 500.0 : 100.0) + steal_ms)
        << c["name"] << ", " << steal_ms << " ms stolen";
    const auto& s = (*lat)["summary"];
    EXPECT_LE(s["min"].get<std::uint64_t>(), s["p50"].get<std::uint64_t>());
    EXPECT_LE(s["p50"].get<std::uint64_t>(), s["p99"].get<std::uint64_t>());
    EXPECT_LE(s["p99"].get<std::uint64_t>(), s["max"].get<std::uint64_t>());
    // A wakeup is never early, and on any machine that can boot it is late by less than a
    // period at the median.
    EXPECT_GT(s["min"].get<std::uint64_t>(), 0u);
    EXPECT_LT(s["p50"].get<std::uint64_t>(), 1'000'000u);
    // Per-block (1 s) maxima for the gate: about one per second.
    EXPECT_GE((*lat)["samples"].size(), 4u);
    EXPECT_LE((*lat)["samples"].size(), 6u);
    EXPECT_EQ(c["labels"]["thread_class"], "rt");
  }
  EXPECT_NE(r.out.find("wakeup_latency"), std::string::npos) << "console table";
  EXPECT_EQ(r.out.find('\r'), std::string::npos) << "no progress line when stdout is no TTY";
}

// On a terminal, a run longer than 2 s shows a live line: `script` gives rtgate a real pty.
TEST(Cyclic, ProgressLineOnATty) {
  SKIP_WITHOUT_FIFO();
  if (system("command -v script >/dev/null") != 0) GTEST_SKIP() << "script(1) not installed";
  TempDir dir;
  const std::string log = dir.file("tty.log");
  const std::string cmd = std::string("script -qfec '") + RTGATE_BINARY +
                          " run cyclic --duration 3' " + log + " >/dev/null 2>&1";
  ASSERT_EQ(system(cmd.c_str()), 0);
  std::ifstream in(log);
  const std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Redrawn every 250 ms for ~3 s: many carriage returns, each with the live figures.
  EXPECT_GE(std::count(out.begin(), out.end(), '\r'), 5) << out;
  EXPECT_NE(out.find("cyclic run 1/1"), std::string::npos) << out;
  EXPECT_NE(out.find("samples"), std::string::npos) << out;
  EXPECT_NE(out.find("cpu0 max"), std::string::npos) << out;
  EXPECT_NE(out.find("wakeup_latency"), std::string::npos) << "the table follows";
}

TEST(Cyclic, SigintEndsWithin1sWithPartialResults) {
  SKIP_WITHOUT_FIFO();
  TempDir dir;
  timespec sent{};
  const auto r = run_rtgate({"run", "cyclic", "--duration", "60", "-o", dir.file("r.json")},
                            {.timeout_s = 30, .on_start = [&](pid_t pid) {
                               std::this_thread::sleep_for(std::chrono::seconds(2));
                               clock_gettime(CLOCK_MONOTONIC, &sent);
                               kill(pid, SIGINT);
                             }});
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  const double after_signal = static_cast<double>(now.tv_sec - sent.tv_sec) +
                              static_cast<double>(now.tv_nsec - sent.tv_nsec) / 1e9;
  EXPECT_EQ(r.exit_code, 130) << r.err;
  // The runner polls every 50 ms and threads wake every 1 ms; the JSON write is milliseconds.
  // The waiter polls every 5 ms, so 1 s is a wide, physically meaningful bound.
  EXPECT_LT(after_signal, 1.0);
  const auto doc = load_json(dir.file("r.json"));
  EXPECT_FALSE(doc["complete"].get<bool>());
  for (const auto& c : doc["suites"][0]["cases"]) {
    const auto count = (*metric(c, "wakeup_latency"))["summary"]["count"].get<std::uint64_t>();
    // About 2 s of 1 ms wakeups (minus start-up): far more than nothing, far less than 60 s.
    EXPECT_GT(count, 1000u);
    EXPECT_LT(count, 10000u);
  }
}

// A SCHED_FIFO spinner outside rtgate, above cyclic's priority, on the last CPU. Duty-cycled
// (3 ms on, 47 ms off) so RT throttling never hides it.
class ForeignSpinner {
 public:
  explicit ForeignSpinner(int cpu, const char* comm = "rtg-spinner") {
    pid_ = fork();
    if (pid_ != 0) return;
    prctl(PR_SET_NAME, comm);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
    sched_param sp{};
    sp.sched_priority = 98;
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) _exit(1);
    for (;;) {
      timespec t0{}, t{};
      clock_gettime(CLOCK_MONOTONIC, &t0);
      do {
        clock_gettime(CLOCK_MONOTONIC, &t);
      } while ((t.tv_sec - t0.tv_sec) * 1'000'000'000L + (t.tv_nsec - t0.tv_nsec) < 3'000'000);
      usleep(47'000);
    }
  }
  ~ForeignSpinner() {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }

 private:
  pid_t pid_;
};

// A thread's name is any bytes: one that is not UTF-8 is kept, escaped, in every output.
TEST(Cyclic, AForeignThreadNamedInBytesThatAreNotUtf8IsKeptEscaped) {
  SKIP_WITHOUT_FIFO();
  const int cpu = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)) - 1;
  TempDir dir;
  ProcessResult r;
  {
    ForeignSpinner spinner(cpu, "\xff\xfe<&");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    r = run_rtgate({"run", "cyclic", "--duration", "1", "-o", dir.file("r.json"), "--junit",
                    dir.file("j.xml"), "--report", dir.file("r.html"), "--textfile", dir.path()});
  }
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = load_json(dir.file("r.json"));
  bool named = false;
  for (const auto& t : doc["suites"][0]["hygiene"]["foreign_rt_threads"]) {
    named = named || t["comm"] == "\\xff\\xfe<&";
  }
  EXPECT_TRUE(named) << doc["suites"][0]["hygiene"].dump();
  for (const std::string f : {"j.xml", "r.html", "rtgate.prom"}) {
    const std::string text = read_all(dir.file(f));
    EXPECT_TRUE(text::is_valid_utf8(text)) << f;
    if (f != "rtgate.prom") {
      EXPECT_NE(text.find("\\xff\\xfe&lt;&amp;"), std::string::npos) << f;
    }
  }
}

TEST(Cyclic, ForeignFifoSpinnerContaminatesItsCpuAndCausesMissedPeriods) {
  SKIP_WITHOUT_FIFO();
  const int cpu = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)) - 1;
  TempDir dir;
  nlohmann::json doc;
  {
    ForeignSpinner spinner(cpu);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const auto r = run_rtgate({"run", "cyclic", "--duration", "3", "-o", dir.file("r.json")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("CONTAMINATED"), std::string::npos) << r.out;
    doc = load_json(dir.file("r.json"));
  }
  const auto& suite = doc["suites"][0];
  EXPECT_TRUE(suite["contaminated"].get<bool>());
  bool named = false;
  for (const auto& t : suite["hygiene"]["foreign_rt_threads"]) {
    if (t["comm"] == "rtg-spinner") {
      named = true;
      EXPECT_EQ(t["policy"], "fifo");
      EXPECT_EQ(t["priority"], 98);
      EXPECT_FALSE(t["kernel_thread"].get<bool>());
    }
  }
  EXPECT_TRUE(named) << suite["hygiene"].dump();
  for (const auto& c : suite["cases"]) {
    std::string reasons;
    for (const auto& why : c["contaminated_reasons"]) reasons += why.get<std::string>() + "; ";
    const auto missed = (*metric(c, "missed_periods"))["samples"][0].get<double>();
    if (c["labels"]["cpu"] == std::to_string(cpu)) {
      EXPECT_TRUE(c["contaminated"].get<bool>());
      EXPECT_NE(reasons.find("rtg-spinner"), std::string::npos) << reasons;
      // ~60 bursts of 3 ms over 1 ms periods: at least 2 missed periods per burst. Ask for 30.
      EXPECT_GE(missed, 30) << reasons;
      // The missed periods are named with the thread that may account for them.
      EXPECT_NE(reasons.find("missed periods, which these may account for"), std::string::npos)
          << reasons;
    } else {
      EXPECT_EQ(reasons.find("rtg-spinner"), std::string::npos) << reasons;
    }
  }
}

}  // namespace
}  // namespace rtgate::test
