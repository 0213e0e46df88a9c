// `rtgate run --trace` for real (needs root and tracefs; skips otherwise): the cause of a worst
// sample named from the trace, --break-us, kernel lock contention of the workload suites, and no
// tracefs instance left behind on any exit path.
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "framework/rt/rt_checks.h"
#include "framework/trace/trace_session.h"
#include "tests/integration/process.h"

namespace rtgate::test {
namespace {

#define SKIP_WITHOUT_TRACING()                                                         \
  if (const std::string why = rt::probe_sched_fifo(); !why.empty()) GTEST_SKIP() << why; \
  if (geteuid() != 0 || access("/sys/kernel/tracing/instances", W_OK) != 0) {          \
    GTEST_SKIP() << "needs root and tracefs at /sys/kernel/tracing";                    \
  }

nlohmann::json load(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The instances of this test's children (the test's own pid never owns one).
bool no_rtgate_instance() { return trace::rtgate_instances().empty(); }

bool wait_for_no_instance(double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!no_rtgate_instance()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

std::int64_t parts_sum(const nlohmann::json& a) {
  std::int64_t s = 0;
  for (const auto& p : a["parts"]) s += p["ns"].get<std::int64_t>();
  return s;
}

const nlohmann::json* worst_of(const nlohmann::json& c) {
  for (const auto& a : c["analysis"]) {
    if (a["trigger"] == "worst" || a["trigger"] == "break") return &a;
  }
  return nullptr;
}

// A SCHED_FIFO 98 spinner on every CPU (rt:2: one pinned to each of this machine's CPUs, so one
// on CPU 1) spins 9 ms of every 10 ms above the measuring thread (FIFO 95): cpu1's worst sample
// is a wait behind it. 90% duty rather than 30%: on this VM the host can hold an idle vCPU for
// 10-20 ms, which a 3 ms spin would not beat; a vCPU kept busy is rarely descheduled idle.
TEST(Trace, TheWorstSampleNamesTheRtSpinnerThatHeldTheCpu) {
  SKIP_WITHOUT_TRACING();
  TempDir dir;
  const auto r = run_rtgate({"run", "cyclic", "-p", "cpus=1", "--duration", "2", "--trace",
                             "--load", "rt:2:98:90", "-o", dir.file("r.json"), "--no-progress"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto doc = load(dir.file("r.json"));
  const auto& c = doc["suites"][0]["cases"][0];
  ASSERT_EQ(c["name"], "cpu1");
  const nlohmann::json* a = worst_of(c);
  ASSERT_NE(a, nullptr) << c.dump(1);
  const auto& top = (*a)["parts"][0];
  EXPECT_EQ(top["kind"], "task") << a->dump(1);
  EXPECT_EQ(top["name"], "load-rt1") << a->dump(1);
  EXPECT_EQ(top["policy"], "SCHED_FIFO");
  EXPECT_EQ(top["prio"], 98);
  EXPECT_GT(top["pid"].get<int>(), 0);
  const auto latency = (*a)["latency_ns"].get<std::int64_t>();
  // Of the time the CPU was held by something other than the thread itself, the spinner held at
  // least 90%. Idle and the thread's own time are left out: in a VM they are where the host's
  // steal shows (the guest trace sees an idle vCPU whose timer fires late, or a thread that ran
  // slowly), and the spinner cannot cause either; on this VM under steal they reached 16% and 8%.
  // SCHED_OTHER tasks are left out too: one runs beside a waiting FIFO thread only while the RT
  // class is throttled (sched_rt_runtime_us), which the 90% spinner plus the measuring thread can
  // reach; whatever ordinary task is runnable then takes the time (on this VM the sandbox's
  // agent, tokio-rt-worker, 1.0-1.1 ms of 9.3 ms in two clean-clone CI runs).
  std::int64_t held_by_others = latency;
  for (const auto& p : (*a)["parts"]) {
    const bool ordinary_task = p["kind"] == "task" && p.value("policy", "") == "SCHED_OTHER";
    if (p["kind"] == "idle" || p["kind"] == "self" || ordinary_task) {
      held_by_others -= p["ns"].get<std::int64_t>();
    }
  }
  EXPECT_GE(top["ns"].get<double>(), 0.9 * static_cast<double>(held_by_others)) << a->dump(1);
  EXPECT_EQ(parts_sum(*a), latency) << "the parts add up to the latency";
  // The worst sample is the case's max (the hook marks every new worst of its CPU).
  for (const auto& m : c["metrics"]) {
    if (m["name"] == "wakeup_latency") {
      EXPECT_EQ(m["summary"]["max"].get<std::int64_t>(), latency);
    }
  }
  EXPECT_NE(r.out.find("trace cpu1 worst"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("load-rt1 (pid"), std::string::npos) << r.out;
  const std::string excerpt = slurp(dir.file("r.trace/cyclic.cpu1.txt"));
  EXPECT_NE(excerpt.find("sched_switch"), std::string::npos);
  EXPECT_NE(excerpt.find("latency_ns=" + std::to_string(latency)), std::string::npos);
  EXPECT_TRUE(no_rtgate_instance());
}

// A process outside rtgate: SCHED_FIFO 97 (above cyclic's 95) on CPU 1, spinning 2 ms of every
// 50 ms for at most `seconds` (and killed with the test). Its comm, "rtg_hog", is the name the
// analysis must find.
class FifoHog {
 public:
  explicit FifoHog(double seconds) {
    int ready[2];
    if (pipe(ready) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      close(ready[0]);
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      prctl(PR_SET_NAME, "rtg_hog");
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(1, &set);
      sched_param sp{};
      sp.sched_priority = 97;
      const bool ok = sched_setaffinity(0, sizeof set, &set) == 0 &&
                      sched_setscheduler(0, SCHED_FIFO, &sp) == 0;
      const ssize_t told = write(ready[1], ok ? "y" : "n", 1);
      if (!ok || told != 1) _exit(1);
      const std::int64_t end = now() + static_cast<std::int64_t>(seconds * 1e9);
      for (std::int64_t next = now(); next < end;) {
        while (now() < next + 2'000'000) {
        }
        next += 50'000'000;
        const timespec at{.tv_sec = next / 1'000'000'000, .tv_nsec = next % 1'000'000'000};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr);
      }
      _exit(0);
    }
    close(ready[1]);
    char c = 0;
    started_ = pid_ > 0 && read(ready[0], &c, 1) == 1 && c == 'y';
    close(ready[0]);
  }
  ~FifoHog() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }
  bool started() const { return started_; }

 private:
  static std::int64_t now() {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1'000'000'000L + t.tv_nsec;
  }
  pid_t pid_ = -1;
  bool started_ = false;
};

// The hog delays the thread 1-2 ms at each spin (a spin covers one or two of its 1 ms deadlines),
// about 120 times in 6 s; over --trace-threshold-us 800 each such sample is marked. The analysis
// must name the hog, by comm, pid, policy and priority: in the CPU's worst sample once host time
// is set aside (the worst itself, or a separate "guest_worst": samples the host's steal made
// larger are set aside by the host placement), or in one of the 8 largest crossings kept.
// Not flaky: the name is asserted, not times. The crossings are there because on a kernel without
// full preemption (this VM boots preempt=none) an ordinary task in the kernel can hold the CPU
// longer than the hog when something else runs beside the test (a link step of a parallel build
// held it 2-6.5 ms in 3 of 10 runs), and that sample is then rightly the guest's worst; it takes
// more than 8 such samples in 6 s to crowd the hog's out of the crossings. Where the host took
// the vCPU, its part never exceeds the window's steal.
TEST(Trace, TheAnalysisNamesTheFifoHogWhateverTheHostDid) {
  SKIP_WITHOUT_TRACING();
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "needs CPU 1";
  TempDir dir;
  const FifoHog hog(12);
  ASSERT_TRUE(hog.started()) << "the hog could not become SCHED_FIFO 97 on CPU 1";
  const auto r = run_rtgate({"run", "cyclic", "-p", "cpus=1", "--trace", "--trace-threshold-us",
                             "800", "--duration", "6", "-o", dir.file("r.json"), "--no-progress"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto doc = load(dir.file("r.json"));
  const auto& c = doc["suites"][0]["cases"][0];
  int naming = 0;
  for (const auto& a : c["analysis"]) {
    EXPECT_EQ(parts_sum(a), a["latency_ns"].get<std::int64_t>()) << a.dump(1);
    std::int64_t host = 0;
    for (const auto& p : a["parts"]) host += p["kind"] == "host" ? p["ns"].get<std::int64_t>() : 0;
    if (host > 0) {
      EXPECT_LE(host, a["steal_ns"].get<std::int64_t>()) << a.dump(1);
    }
    if (!a.contains("delayed_by") || a["delayed_by"]["name"] != "rtg_hog") continue;
    ++naming;
    const auto& by = a["delayed_by"];
    EXPECT_EQ(by["pid"], hog.pid()) << a.dump(1);
    EXPECT_EQ(by["policy"], "SCHED_FIFO");
    EXPECT_EQ(by["prio"], 97);
  }
  EXPECT_GT(naming, 0) << c["analysis"].dump(1);
  const std::string named = "rtg_hog (pid " + std::to_string(hog.pid()) + ", SCHED_FIFO 97)";
  EXPECT_NE(r.out.find(named), std::string::npos) << "on the console too: " << r.out;
  EXPECT_TRUE(doc["suites"][0]["trace"].contains("cfs_while_rt_runnable_ms"));
}

// Disk writes with fsync (io:2) raise the virtio block IRQ: some analysed sample (the worst of a
// CPU, or one of the largest crossings over 20 us) has a device IRQ or a softirq part.
TEST(Trace, AnIoLoadNamesAnIrqOrSoftirqPart) {
  SKIP_WITHOUT_TRACING();
  TempDir dir;
  const auto r = run_rtgate({"run", "cyclic", "--duration", "3", "--trace", "--trace-threshold-us",
                             "20", "--load", "io:2", "-o", dir.file("r.json"), "--no-progress"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto doc = load(dir.file("r.json"));
  int analyses = 0;
  std::string named;
  for (const auto& c : doc["suites"][0]["cases"]) {
    if (!c.contains("analysis")) continue;
    for (const auto& a : c["analysis"]) {
      ++analyses;
      EXPECT_EQ(parts_sum(a), a["latency_ns"].get<std::int64_t>());
      for (const auto& p : a["parts"]) {
        if (p["kind"] == "irq" || p["kind"] == "softirq") named = p["name"];
      }
    }
  }
  EXPECT_GT(analyses, 2);
  EXPECT_FALSE(named.empty()) << doc["suites"][0]["cases"].dump(1);
}

TEST(Trace, BreakStopsTheTraceAtTheSampleAndEndsTheSuite) {
  SKIP_WITHOUT_TRACING();
  TempDir dir;
  const auto r = run_rtgate({"run", "cyclic", "--duration", "30", "--runs", "3", "--break-us",
                             "1", "-o", dir.file("r.json"), "--no-progress"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_LT(r.seconds, 10) << "the break ends the suite, not its 30 s";
  const auto doc = load(dir.file("r.json"));
  const auto& s = doc["suites"][0];
  EXPECT_EQ(s["status"], "failed");
  EXPECT_EQ(s["runs"], 1) << "no further runs after a break";
  const std::string reason = s["reason"];
  EXPECT_EQ(reason.rfind("break: cpu", 0), 0u) << reason;
  EXPECT_EQ(s["trace"]["break"], reason);
  const nlohmann::json* brk = nullptr;
  std::string cpu;
  for (const auto& c : s["cases"]) {
    if (!c.contains("analysis")) continue;  // a CPU whose loop saw the stop before a marker
    for (const auto& a : c["analysis"]) {
      if (a["trigger"] == "break") {
        brk = &a;
        cpu = std::to_string(a["cpu"].get<int>());
      }
    }
  }
  ASSERT_NE(brk, nullptr) << s.dump(1);
  const std::string excerpt = slurp(dir.file("r.trace/cyclic.cpu" + cpu + ".txt"));
  const std::size_t last = excerpt.rfind("rtgate: cpu");
  ASSERT_NE(last, std::string::npos) << excerpt;
  const std::string line = excerpt.substr(last, excerpt.find('\n', last) - last);
  EXPECT_NE(line.find("latency_ns=" + std::to_string((*brk)["latency_ns"].get<std::int64_t>())),
            std::string::npos)
      << line;
  EXPECT_NE(line.find(" break"), std::string::npos) << line;
  EXPECT_TRUE(no_rtgate_instance());
}

TEST(Trace, MmapLockWaitsOfWhackMmapSem) {
  SKIP_WITHOUT_TRACING();
  TempDir dir;
  const auto r = run_rtgate({"run", "mm.whack_mmap_sem", "--duration", "2", "--trace=locks", "-o",
                             dir.file("r.json"), "--no-progress"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto lc = load(dir.file("r.json"))["suites"][0]["trace"]["lock_contention"];
  const auto& w = lc["mmap_lock"]["write"];
  EXPECT_GT(w["count"].get<int>(), 0) << lc.dump(1);
  EXPECT_GT(w["total_ns"].get<std::int64_t>(), 0);
  EXPECT_GE(w["total_ns"].get<std::int64_t>(), w["max_ns"].get<std::int64_t>());
  EXPECT_NE(r.out.find("kernel locks: mmap_lock read"), std::string::npos) << r.out;
}

TEST(Trace, ContendedLocksOfFsDentryWithTheirCallers) {
  SKIP_WITHOUT_TRACING();
  TempDir dir;
  const auto r = run_rtgate({"run", "fs.dentry", "--duration", "2", "--trace=locks", "-o",
                             dir.file("r.json"), "--no-progress"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto lc = load(dir.file("r.json"))["suites"][0]["trace"]["lock_contention"];
  ASSERT_FALSE(lc["locks"].empty()) << lc.dump(1);
  bool caller = false;
  for (const auto& l : lc["locks"]) {
    EXPECT_GT(l["count"].get<int>(), 0);
    EXPECT_GE(l["total_ns"].get<std::int64_t>(), l["max_ns"].get<std::int64_t>());
    caller = caller || !l["caller"].get<std::string>().empty();
  }
  EXPECT_TRUE(caller) << "the stacktrace trigger names callers: " << lc.dump(1);
}

TEST(Trace, NoInstanceRemainsAfterSigint) {
  SKIP_WITHOUT_TRACING();
  TempDir dir;
  const auto r = run_rtgate({"run", "cyclic", "--duration", "30", "--trace", "-o",
                             dir.file("r.json"), "--no-progress"},
                            {.on_start = [](pid_t pid) {
                              std::this_thread::sleep_for(std::chrono::milliseconds(1500));
                              kill(pid, SIGINT);
                            }});
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_TRUE(no_rtgate_instance()) << "removed before exit, not by the reaper";
  EXPECT_FALSE(load(dir.file("r.json"))["suites"][0]["cases"][0]["analysis"].empty());
}

// SIGKILL leaves the process no chance: the reaper it spawned removes the instance.
TEST(Trace, NoInstanceRemainsAfterSigkill) {
  SKIP_WITHOUT_TRACING();
  bool seen = false;
  const auto r = run_rtgate({"run", "cyclic", "--duration", "30", "--trace", "--no-progress"},
                            {.on_start = [&](pid_t pid) {
                              std::this_thread::sleep_for(std::chrono::milliseconds(1500));
                              seen = !no_rtgate_instance();
                              kill(pid, SIGKILL);
                            }});
  EXPECT_EQ(r.exit_code, 128 + SIGKILL);
  EXPECT_TRUE(seen) << "the run had an instance while it ran";
  EXPECT_TRUE(wait_for_no_instance(6)) << "the reaper removes it within seconds";
}

// A suite that gives up after tracing began (its work directory cannot be made) and a selection
// refused before anything runs both leave nothing.
TEST(Trace, NoInstanceRemainsAfterASuiteThatCouldNotRunOrARefusedRun) {
  SKIP_WITHOUT_TRACING();
  auto r = run_rtgate({"run", "fs.dentry", "-p", "root=/proc", "--duration", "1", "--trace",
                       "--no-progress"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("skipped"), std::string::npos) << r.out;
  EXPECT_TRUE(no_rtgate_instance());
  r = run_rtgate({"run", "cyclic", "--trace", "--load", "nonsense:1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(no_rtgate_instance());
}

}  // namespace
}  // namespace rtgate::test
