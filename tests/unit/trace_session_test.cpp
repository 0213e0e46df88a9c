// TraceSession against the real tracefs of this machine: a private instance per session, never
// left behind. Needs root (tracefs); skips with the reason otherwise.
#include "framework/trace/trace_session.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include "framework/trace/tracefs_api.h"

namespace rtgate::trace {
namespace {

bool listed(const std::string& name) {
  const std::vector<std::string> all = rtgate_instances();
  return std::find(all.begin(), all.end(), name) != all.end();
}

std::unique_ptr<TraceSession> start_or_skip(const TraceConfig& c, std::string* why) {
  if (geteuid() != 0) return nullptr;
  return TraceSession::start(c, why);
}

TEST(TraceSession, APrivateInstanceThatMarksFreezesAndIsRemoved) {
  std::string why;
  TraceConfig c;
  c.cpus = {0};
  c.buffer_kb = 1024;
  auto s = start_or_skip(c, &why);
  if (!s) GTEST_SKIP() << (why.empty() ? "needs root" : why);
  const std::string name = s->name();
  EXPECT_EQ(name.rfind("rtgate-" + std::to_string(getpid()) + "-", 0), 0u) << name;
  EXPECT_TRUE(listed(name));
  EXPECT_TRUE(s->missing_events().empty()) << "this kernel has every default event";
  // A marker lands in the buffer of the CPU that writes it: only CPU 0 is traced, so write from
  // there (the measuring threads run on the CPUs they measure).
  cpu_set_t was, zero;
  ASSERT_EQ(sched_getaffinity(0, sizeof was, &was), 0);
  CPU_ZERO(&zero);
  CPU_SET(0, &zero);
  ASSERT_EQ(sched_setaffinity(0, sizeof zero, &zero), 0);
  EXPECT_TRUE(s->mark("rtgate-test-marker 12345"));
  sched_setaffinity(0, sizeof was, &was);
  const std::string text = s->read_text();
  EXPECT_NE(text.find("rtgate-test-marker 12345"), std::string::npos) << text.substr(0, 2000);
  // The instance's own settings, not the global buffer's.
  tracefs_instance* inst = tracefs_instance_alloc(nullptr, name.c_str());
  ASSERT_NE(inst, nullptr);
  // The kernel rounds the per-CPU size up to whole pages.
  EXPECT_GE(tracefs_instance_get_buffer_size(inst, 0), 1024);
  EXPECT_LT(tracefs_instance_get_buffer_size(inst, 0), 1024 + 16);
  EXPECT_EQ(tracefs_trace_is_on(inst), 1);
  s->freeze();
  EXPECT_EQ(tracefs_trace_is_on(inst), 0);
  EXPECT_FALSE(s->mark("after-freeze") && s->read_text().find("after-freeze") != std::string::npos)
      << "a frozen trace records nothing more";
  tracefs_instance_free(inst);
  s.reset();
  EXPECT_FALSE(listed(name)) << name << " left behind";
}

TEST(TraceSession, AnUnknownEventIsListedNotFatal) {
  std::string why;
  TraceConfig c;
  c.buffer_kb = 256;
  c.events = {"sched:sched_switch", "no_such_system:no_such_event"};
  auto s = start_or_skip(c, &why);
  if (!s) GTEST_SKIP() << (why.empty() ? "needs root" : why);
  ASSERT_EQ(s->missing_events().size(), 1u);
  EXPECT_EQ(s->missing_events()[0], "no_such_system:no_such_event");
}

// A child that starts a session, reports whether it could, and waits to be killed.
pid_t child_with_session(bool* ok) {
  int pipe_fd[2];
  if (pipe(pipe_fd) != 0) return -1;
  const pid_t child = fork();
  if (child == 0) {
    std::string why;
    TraceConfig c;
    c.buffer_kb = 64;
    auto s = TraceSession::start(c, &why);
    const char c_ok = s ? '1' : '0';
    (void)!write(pipe_fd[1], &c_ok, 1);
    pause();
    _exit(0);
  }
  char c_ok = 0;
  *ok = child > 0 && read(pipe_fd[0], &c_ok, 1) == 1 && c_ok == '1';
  close(pipe_fd[0]);
  close(pipe_fd[1]);
  return child;
}

std::string instance_of(pid_t pid) {
  for (const std::string& n : rtgate_instances()) {
    if (n.rfind("rtgate-" + std::to_string(pid) + "-", 0) == 0) return n;
  }
  return {};
}

// A process killed with its instance alive (SIGKILL: no destructor runs) leaves the instance;
// the next start removes it, and never another live process's. A test running beside this one
// (ctest -j) may start a session and remove the instance first: such a round proves nothing
// about the count, so it is played again.
TEST(TraceSession, AnInstanceOfADeadProcessIsRemovedAtTheNextStart) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  int counted_rounds = 0;
  for (int round = 0; round < 5 && counted_rounds == 0; ++round) {
    bool ok = false;
    const pid_t child = child_with_session(&ok);
    ASSERT_GT(child, 0);
    const std::string left = instance_of(child);
    if (!ok) {
      kill(child, SIGKILL);
      waitpid(child, nullptr, 0);
      GTEST_SKIP() << "no tracefs instance could be made here";
    }
    ASSERT_FALSE(left.empty()) << "the child's instance";
    EXPECT_EQ(remove_stale_instances(), 0) << "the owner is alive";
    EXPECT_TRUE(listed(left)) << "a live owner's instance stays";
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    const bool before = listed(left);
    const int removed = remove_stale_instances();
    EXPECT_FALSE(listed(left)) << "gone after any start";
    if (before && removed >= 1) ++counted_rounds;
  }
  EXPECT_EQ(counted_rounds, 1) << "five rounds, each raced by another start";
}

}  // namespace
}  // namespace rtgate::trace
