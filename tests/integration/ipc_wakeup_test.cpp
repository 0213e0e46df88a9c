// `rtgate run ipc.wakeup` for real: every mechanism on one CPU and on two, the lost-wakeup
// detection, and the parameters it refuses.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "framework/rt/rt_checks.h"
#include "tests/integration/process.h"
#include "tests/integration/result_json.h"

namespace rtgate::test {
namespace {

const std::set<std::string> kVias = {"signal", "pmq", "sem", "svsem", "futex", "pipe", "eventfd"};

struct SuiteRun {
  ProcessResult process;
  nlohmann::json suite;
};

SuiteRun run_suite(const std::vector<std::string>& args) {
  TempDir dir;
  std::vector<std::string> full = {"run", "ipc.wakeup", "--no-progress", "-o", dir.file("r.json")};
  full.insert(full.end(), args.begin(), args.end());
  SuiteRun r{run_rtgate(full, {.timeout_s = 60}), {}};
  std::ifstream in(dir.file("r.json"));
  if (in) r.suite = nlohmann::json::parse(in)["suites"][0];
  return r;
}

// Every mechanism measures real wakeups: --duration 2 over 7 mechanisms is 285 periods of 1 ms
// each, every one of which is a message, a period the sender skipped (the receiver still had the
// previous one) or one it missed; the schedule is deterministic, so they add up exactly.
void expect_every_mechanism_works(int sender_cpu, int receiver_cpu) {
  const std::string cpus = sender_cpu == receiver_cpu
                               ? std::to_string(sender_cpu)
                               : std::to_string(sender_cpu) + "," + std::to_string(receiver_cpu);
  const SuiteRun r = run_suite({"--duration", "2", "-p", "cpus=" + cpus});
  ASSERT_EQ(r.process.exit_code, 0) << r.process.out << r.process.err;
  const auto& suite = r.suite;
  ASSERT_EQ(suite["status"], "passed") << suite["reason"];
  EXPECT_EQ(suite["params"]["cpus"], cpus);
  std::set<std::string> seen;
  for (const auto& c : suite["cases"]) {
    const std::string via = c["labels"]["via"];
    seen.insert(via);
    const std::string where =
        sender_cpu == receiver_cpu
            ? "/cpu" + cpus
            : "/cpu" + std::to_string(sender_cpu) + "-cpu" + std::to_string(receiver_cpu);
    EXPECT_EQ(c["name"], via + where);
    EXPECT_EQ(c["labels"]["cpu"], std::to_string(receiver_cpu));
    EXPECT_EQ(c["labels"]["sender_cpu"], std::to_string(sender_cpu));
    const auto& s = metric_named(c, "wakeup_latency")["summary"];
    const auto n = s["count"].get<std::uint64_t>();
    const double messages = count_value(c, "messages");
    EXPECT_GT(n, 0u) << via;
    EXPECT_EQ(static_cast<double>(n), messages) << via;
    EXPECT_EQ(messages + count_value(c, "skipped_periods") + count_value(c, "missed_periods"),
              285.0)
        << via;
    // Idle, most periods carry a message: a wakeup that usually took more than a period would
    // mean a broken machine (a host that takes a vCPU away for tens of milliseconds a few times
    // a second costs tens of periods, not half of them).
    EXPECT_GT(messages, 285.0 / 2) << via;
    EXPECT_EQ(count_value(c, "lost_wakeups"), 0.0) << via;
    // A send syscall, a context switch and the return from the wait take more than 200 ns on
    // any CPU Linux runs on, so a smaller latency is a mixed-up stamp; the median wakeup is
    // under a period (else the sender would skip most periods), and none takes a second.
    EXPECT_GT(s["min"].get<std::uint64_t>(), 200u) << via;
    EXPECT_LT(s["p50"].get<std::uint64_t>(), 1'000'000u) << via;
    EXPECT_LT(s["max"].get<std::uint64_t>(), 1'000'000'000u) << via;
    EXPECT_LE(s["p50"].get<std::uint64_t>(), s["max"].get<std::uint64_t>()) << via;
    // 285 ms of 1 s blocks: one block maximum, the histogram's maximum.
    const auto& blocks = metric_named(c, "wakeup_latency")["samples"];
    ASSERT_EQ(blocks.size(), 1u) << via;
    EXPECT_EQ(blocks[0].get<double>(), static_cast<double>(s["max"].get<std::uint64_t>())) << via;
  }
  EXPECT_EQ(seen, kVias);
}

TEST(IpcWakeup, EveryMechanismOnOneCpu) {
  SKIP_WITHOUT_FIFO();
  const int last = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)) - 1;
  expect_every_mechanism_works(last, last);
}

TEST(IpcWakeup, EveryMechanismAcrossTwoCpus) {
  SKIP_WITHOUT_FIFO();
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "one CPU";
  expect_every_mechanism_works(0, 1);
}

// The sender publishes its 20th message without sending it: each receiver's bounded wait ends,
// finds the message it was owed, and fails the suite instead of hanging.
TEST(IpcWakeup, ALostWakeupFailsTheSuiteWithoutHanging) {
  SKIP_WITHOUT_FIFO();
  const SuiteRun r = run_suite({"--duration", "2", "-p", "drop_every=20", "-p", "timeout_ms=50"});
  EXPECT_EQ(r.process.exit_code, 1) << r.process.out << r.process.err;
  // Each case ends about 20 periods plus one 50 ms wait after it starts; with start-up and the
  // JSON, a few seconds at most. A hang would run into the 60 s kill.
  EXPECT_LT(r.process.seconds, 10.0);
  ASSERT_EQ(r.suite["status"], "failed");
  const std::string reason = r.suite["reason"];
  ASSERT_EQ(r.suite["cases"].size(), kVias.size());
  for (const auto& c : r.suite["cases"]) {
    const std::string name = c["name"];
    EXPECT_NE(reason.find(name + ": lost wakeup: message 20 "), std::string::npos) << reason;
    EXPECT_EQ(count_value(c, "lost_wakeups"), 1.0) << name;
    EXPECT_EQ(count_value(c, "messages"), 19.0) << name;
  }
}

TEST(IpcWakeup, BadParametersExit2WithOneLine) {
  for (const std::string bad :
       {"via=bogus", "via=pmq,pmq", "via=pmq,", "cpus=0-2", "interval_us=10", "priority=99",
        "priority=1", "timeout_ms=5", "drop_every=-1"}) {
    const auto r = run_rtgate({"run", "ipc.wakeup", "--duration", "1", "-p", bad});
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.out << r.err;
    const std::string name = bad.substr(0, bad.find('='));
    EXPECT_NE(r.err.find(name), std::string::npos) << bad << ": " << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << bad << ": " << r.err;
  }
}

TEST(IpcWakeup, AnUnavailableCpuSkipsTheSuite) {
  SKIP_WITHOUT_FIFO();
  const SuiteRun r = run_suite({"--duration", "1", "-p", "cpus=4095"});
  EXPECT_EQ(r.process.exit_code, 0) << r.process.err;
  EXPECT_EQ(r.suite["status"], "skipped");
  EXPECT_NE(r.suite["reason"].get<std::string>().find("CPU 4095 is not available"),
            std::string::npos)
      << r.suite["reason"];
}

}  // namespace
}  // namespace rtgate::test
