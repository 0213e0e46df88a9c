#include "framework/env/hygiene.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <string>
#include <thread>

#include "framework/rt/rt_checks.h"

namespace rtgate {
namespace {

using namespace std::chrono_literals;

constexpr int kSpinnerPriority = 10;
constexpr char kSpinnerName[] = "rtgate_spin";

std::uint64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

// Kills and reaps the child however the test ends, so no SCHED_FIFO spinner outlives it.
class ChildGuard {
 public:
  explicit ChildGuard(pid_t pid) : pid_(pid) {}
  ChildGuard(const ChildGuard&) = delete;
  ChildGuard& operator=(const ChildGuard&) = delete;
  ~ChildGuard() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_;
};

// Child: SCHED_FIFO on CPU 0, spins 2 ms in every 10 ms (well inside the RT throttling budget),
// reports setup errno (0 = ok) through `fd`. Bounded in time in case the parent cannot kill it.
[[noreturn]] void run_spinner(int fd) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  prctl(PR_SET_NAME, kSpinnerName);
  cpu_set_t cpu0;
  CPU_ZERO(&cpu0);
  CPU_SET(0, &cpu0);
  sched_param param{};
  param.sched_priority = kSpinnerPriority;
  char status = 0;
  if (sched_setaffinity(0, sizeof(cpu0), &cpu0) != 0 ||
      sched_setscheduler(0, SCHED_FIFO, &param) != 0) {
    status = static_cast<char>(errno);
  }
  if (write(fd, &status, 1) != 1 || status != 0) _exit(1);
  const std::uint64_t end = now_ns() + 10'000'000'000ULL;
  while (now_ns() < end) {
    const std::uint64_t spin_until = now_ns() + 2'000'000;
    while (now_ns() < spin_until) {
    }
    const timespec pause{0, 8'000'000};
    nanosleep(&pause, nullptr);
  }
  _exit(0);
}

const ThreadSample* find_thread(const HygieneSnapshot& s, pid_t pid) {
  auto it = std::find_if(s.rt_threads.begin(), s.rt_threads.end(),
                         [&](const ThreadSample& t) { return t.pid == pid; });
  return it == s.rt_threads.end() ? nullptr : &*it;
}

bool mentions(const std::vector<std::string>& reasons, const std::string& needle) {
  return std::any_of(reasons.begin(), reasons.end(),
                     [&](const std::string& r) { return r.find(needle) != std::string::npos; });
}

TEST(HygieneTest, ForeignSchedFifoProcessIsSeenAndAttributedToItsCpu) {
  if (const std::string why = rt::probe_sched_fifo(); !why.empty()) GTEST_SKIP() << why;
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    run_spinner(fds[1]);
  }
  ChildGuard child(pid);
  close(fds[1]);
  char status = -1;
  ASSERT_EQ(read(fds[0], &status, 1), 1);
  close(fds[0]);
  ASSERT_EQ(status, 0) << "child could not become SCHED_FIFO: errno " << int{status};

  const HygieneSnapshot before = take_hygiene_snapshot();
  std::this_thread::sleep_for(300ms);
  const HygieneSnapshot after = take_hygiene_snapshot();
  EXPECT_GT(after.monotonic_ns - before.monotonic_ns, 300'000'000U);

  const ThreadSample* sample = find_thread(before, pid);
  ASSERT_NE(sample, nullptr) << "the spinner is missing from the snapshot";
  EXPECT_EQ(sample->tid, pid);
  EXPECT_EQ(sample->comm, kSpinnerName);
  EXPECT_EQ(sample->policy, SCHED_FIFO);
  EXPECT_EQ(sample->priority, kSpinnerPriority);
  EXPECT_EQ(sample->cpus_allowed, "0");
  EXPECT_FALSE(sample->kernel_thread);

  const Hygiene h = hygiene_between(before, after, {getpid()});
  auto it = std::find_if(h.foreign_rt_threads.begin(), h.foreign_rt_threads.end(),
                         [&](const ForeignRtThread& t) { return t.pid == pid; });
  ASSERT_NE(it, h.foreign_rt_threads.end());
  EXPECT_EQ(it->policy, "fifo");
  EXPECT_EQ(it->priority, kSpinnerPriority);
  EXPECT_EQ(it->comm, kSpinnerName);
  // About 2 ms in every 10 ms for 300 ms: 60 ms. Loose bounds; the VM may steal some of it.
  EXPECT_GT(it->runtime_ns, 10'000'000U);
  EXPECT_LT(it->runtime_ns, 300'000'000U);

  const std::string tag = "'" + std::string(kSpinnerName) + "' (pid " + std::to_string(pid);
  const auto on_cpu0 = contamination_reasons_for_cpu(h, 0);
  EXPECT_TRUE(mentions(on_cpu0, tag)) << testing::PrintToString(on_cpu0);
  EXPECT_TRUE(mentions(on_cpu0, "foreign SCHED_FIFO thread")) << testing::PrintToString(on_cpu0);
  EXPECT_TRUE(mentions(contamination_reasons(h), tag));
  if (sysconf(_SC_NPROCESSORS_ONLN) > 1) {
    EXPECT_FALSE(mentions(contamination_reasons_for_cpu(h, 1), tag)) << "pinned to CPU 0 only";
  }

  // The same window with the spinner declared as ours: it is no longer foreign.
  const Hygiene own = hygiene_between(before, after, {getpid(), pid});
  EXPECT_TRUE(std::none_of(own.foreign_rt_threads.begin(), own.foreign_rt_threads.end(),
                           [&](const ForeignRtThread& t) { return t.pid == pid; }));
  EXPECT_FALSE(mentions(contamination_reasons_for_cpu(own, 0), tag));
  EXPECT_FALSE(mentions(contamination_reasons(own), tag));
}

// A thread of ours with a comm full of parentheses and spaces, to exercise the stat parser.
TEST(HygieneTest, ParsesCommWithParenthesesAndSpaces) {
  if (const std::string why = rt::probe_sched_fifo(); !why.empty()) GTEST_SKIP() << why;
  static constexpr char kOddName[] = "a) (b c) d";
  std::atomic<bool> stop{false};
  std::atomic<pid_t> tid{0};
  struct Args {
    std::atomic<bool>* stop;
    std::atomic<pid_t>* tid;
  } args{&stop, &tid};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
  pthread_attr_setschedpolicy(&attr, SCHED_RR);
  sched_param param{};
  param.sched_priority = 3;
  pthread_attr_setschedparam(&attr, &param);
  pthread_t thread{};
  const int err = pthread_create(
      &thread, &attr,
      [](void* p) -> void* {
        auto* a = static_cast<Args*>(p);
        prctl(PR_SET_NAME, kOddName);
        a->tid->store(gettid());
        while (!a->stop->load()) std::this_thread::sleep_for(1ms);
        return nullptr;
      },
      &args);
  pthread_attr_destroy(&attr);
  ASSERT_EQ(err, 0);
  struct Joiner {
    pthread_t t;
    std::atomic<bool>& stop;
    ~Joiner() {
      stop = true;
      pthread_join(t, nullptr);
    }
  } joiner{thread, stop};
  while (tid.load() == 0) std::this_thread::sleep_for(1ms);

  const HygieneSnapshot snap = take_hygiene_snapshot();
  auto it = std::find_if(snap.rt_threads.begin(), snap.rt_threads.end(),
                         [&](const ThreadSample& t) { return t.tid == tid.load(); });
  ASSERT_NE(it, snap.rt_threads.end());
  EXPECT_EQ(it->comm, kOddName);
  EXPECT_EQ(it->pid, getpid());
  EXPECT_EQ(it->policy, SCHED_RR);
  EXPECT_EQ(it->priority, 3);
  EXPECT_FALSE(it->kernel_thread);
  EXPECT_FALSE(it->cpus_allowed.empty());
  // The main test thread is SCHED_OTHER and must not be listed.
  EXPECT_FALSE(std::any_of(snap.rt_threads.begin(), snap.rt_threads.end(),
                           [](const ThreadSample& t) { return t.tid == gettid(); }));
}

TEST(HygieneTest, SnapshotSeesKernelRtThreadsStealAndKmsg) {
  const HygieneSnapshot snap = take_hygiene_snapshot();
  const long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
  // Every SMP kernel has a SCHED_FIFO 99 migration/N kernel thread per CPU.
  int migration = 0;
  for (const auto& t : snap.rt_threads) {
    if (t.comm.rfind("migration/", 0) != 0) continue;
    ++migration;
    EXPECT_TRUE(t.kernel_thread) << t.comm;
    EXPECT_EQ(t.policy, SCHED_FIFO) << t.comm;
    EXPECT_EQ(t.priority, 99) << t.comm;
  }
  if (ncpus > 1) {
    EXPECT_EQ(migration, ncpus);
  }
  EXPECT_EQ(static_cast<long>(snap.steal_ns.size()), ncpus);
  const int kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
  if (kmsg >= 0) {
    close(kmsg);
    EXPECT_GE(snap.kmsg_throttle_events, 0);
  } else {
    EXPECT_EQ(snap.kmsg_throttle_events, -1);
  }
}

ThreadSample sample(pid_t pid, pid_t tid, const char* comm, int policy, int prio, const char* cpus,
                    bool kernel, std::uint64_t runtime) {
  return {.pid = pid,
          .tid = tid,
          .comm = comm,
          .policy = policy,
          .priority = prio,
          .cpus_allowed = cpus,
          .kernel_thread = kernel,
          .runtime_ns = runtime};
}

TEST(HygieneTest, BetweenComputesDeltasAndReasons) {
  constexpr int kDeadline = 6;
  HygieneSnapshot before, after;
  before.rt_threads = {sample(100, 100, "idle_rt", SCHED_FIFO, 50, "0-1", false, 1000),
                       sample(200, 201, "worker", SCHED_RR, 5, "1", false, 5000),
                       sample(2, 30, "irq/9-acpi", SCHED_FIFO, 50, "0-1", true, 10),
                       sample(400, 400, "ours", SCHED_FIFO, 80, "0-1", false, 0),
                       sample(500, 501, "reused", SCHED_FIFO, 20, "0", false, 9'000'000)};
  after.rt_threads = {sample(100, 100, "idle_rt", SCHED_FIFO, 50, "0-1", false, 1000),
                      sample(200, 201, "worker", SCHED_RR, 5, "1", false, 2'005'000),
                      sample(300, 300, "dl", kDeadline, 0, "0-1", false, 700),
                      sample(2, 30, "irq/9-acpi", SCHED_FIFO, 50, "0-1", true, 20),
                      sample(400, 400, "ours", SCHED_FIFO, 80, "0-1", false, 999'999),
                      sample(500, 501, "reused", SCHED_FIFO, 20, "0", false, 3'000'000)};
  before.steal_ns = {{0, 100'000'000}, {1, 200'000'000}};
  after.steal_ns = {{0, 100'000'000}, {1, 230'000'000}};  // 30 ms on CPU 1
  before.kmsg_throttle_events = 1;
  after.kmsg_throttle_events = 3;

  const Hygiene h = hygiene_between(before, after, {400});
  ASSERT_EQ(h.foreign_rt_threads.size(), 4U);                 // not idle_rt (did not run), not ours
  EXPECT_EQ(h.foreign_rt_threads[0].comm, "reused");          // sorted by runtime, largest first
  EXPECT_EQ(h.foreign_rt_threads[0].runtime_ns, 3'000'000U);  // tid reuse counts from zero
  EXPECT_EQ(h.foreign_rt_threads[1].comm, "worker");
  EXPECT_EQ(h.foreign_rt_threads[1].runtime_ns, 2'000'000U);
  EXPECT_EQ(h.foreign_rt_threads[1].policy, "rr");
  EXPECT_EQ(h.foreign_rt_threads[2].comm, "dl");
  EXPECT_EQ(h.foreign_rt_threads[2].policy, "deadline");
  EXPECT_EQ(h.foreign_rt_threads[2].runtime_ns, 700U);  // new thread counts from zero
  EXPECT_EQ(h.foreign_rt_threads[3].comm, "irq/9-acpi");
  EXPECT_TRUE(h.foreign_rt_threads[3].kernel_thread);

  EXPECT_DOUBLE_EQ(h.steal_ms_per_cpu.at(0), 0.0);
  EXPECT_DOUBLE_EQ(h.steal_ms_per_cpu.at(1), 30.0);
  EXPECT_DOUBLE_EQ(h.steal_ms, 30.0);
  EXPECT_EQ(h.rt_throttled, 2);
  EXPECT_EQ(h.rt_throttled_source, "kmsg");
  EXPECT_EQ(h.missed_periods, 0U);

  const auto cpu1 = contamination_reasons_for_cpu(h, 1);
  ASSERT_EQ(cpu1.size(), 3U) << testing::PrintToString(cpu1);
  EXPECT_EQ(cpu1[0],
            "foreign SCHED_RR thread 'worker' (pid 200, tid 201, prio 5) ran 2.0 ms on CPUs 1");
  EXPECT_EQ(cpu1[1],
            "foreign SCHED_DEADLINE thread 'dl' (pid 300, tid 300) ran 0.001 ms on CPUs 0-1");
  EXPECT_NE(cpu1[2].find("ms of CPU steal on CPU 1"), std::string::npos);
  const auto cpu0 = contamination_reasons_for_cpu(h, 0);
  ASSERT_EQ(cpu0.size(), 2U) << testing::PrintToString(cpu0);  // reused, dl; no steal, no kthread
  EXPECT_EQ(cpu0[0],
            "foreign SCHED_FIFO thread 'reused' (pid 500, tid 501, prio 20) ran 3.0 ms on CPUs 0");

  const auto all = contamination_reasons(h);
  EXPECT_EQ(all.size(), 3U + 2U) << testing::PrintToString(all);  // 3 threads, steal, throttling
  EXPECT_FALSE(mentions(all, "irq/9-acpi"));
  EXPECT_TRUE(mentions(all, "ms of CPU steal in total"));
  EXPECT_TRUE(mentions(all, "RT throttling"));
}

TEST(HygieneTest, UnknownThrottlingAndQuietWindowGiveNoReasons) {
  HygieneSnapshot before, after;
  before.kmsg_throttle_events = -1;
  after.kmsg_throttle_events = 4;
  before.steal_ns = after.steal_ns = {{0, 70'000'000}};
  const Hygiene h = hygiene_between(before, after, {});
  EXPECT_EQ(h.rt_throttled, -1);
  EXPECT_EQ(h.rt_throttled_source, "unavailable");
  EXPECT_TRUE(h.foreign_rt_threads.empty());
  EXPECT_DOUBLE_EQ(h.steal_ms, 0.0);
  EXPECT_TRUE(contamination_reasons(h).empty());
  EXPECT_TRUE(contamination_reasons_for_cpu(h, 0).empty());
}

}  // namespace
}  // namespace rtgate
