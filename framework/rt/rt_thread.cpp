#include "framework/rt/rt_thread.h"

#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "framework/rt/thread_failures.h"

namespace rtgate::rt {
namespace {

// Owns a pthread_attr_t so every exit path destroys it.
struct Attr {
  Attr() { pthread_attr_init(&attr); }
  ~Attr() { pthread_attr_destroy(&attr); }
  pthread_attr_t attr;
};

[[noreturn]] void fail(const std::string& what, int err) {
  std::string msg = what + ": " + std::strerror(err);
  if (err == EPERM) msg += " (needs root, CAP_SYS_NICE or RLIMIT_RTPRIO)";
  throw RtError(msg, err);
}

void check(int rc, const std::string& what) {
  if (rc != 0) fail(what, rc);
}

__attribute__((noinline)) void prefault_stack(std::size_t bytes, std::size_t stack_bytes) {
#if defined(__SANITIZE_THREAD__)
  // TSAN's frames are much larger; a prefault sized for the normal build can overflow.
  return;
#endif
  // Touch one byte per page of a stack array; volatile keeps the compiler from eliding it.
  // Never more than half the stack: the body needs the rest.
  bytes = std::min(bytes, stack_bytes / 2);
  volatile char* buf = static_cast<volatile char*>(__builtin_alloca(bytes));
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  for (std::size_t i = 0; i < bytes; i += page) buf[i] = 0;
}

}  // namespace

const char* to_string(Policy policy) {
  switch (policy) {
    case Policy::kFifo:
      return "fifo";
    case Policy::kRr:
      return "rr";
    case Policy::kOther:
      return "other";
  }
  return "?";
}

int to_sched_policy(Policy policy) {
  switch (policy) {
    case Policy::kFifo:
      return SCHED_FIFO;
    case Policy::kRr:
      return SCHED_RR;
    case Policy::kOther:
      return SCHED_OTHER;
  }
  return SCHED_OTHER;
}

RtThread::RtThread(ThreadSpec spec, std::function<void()> body)
    : spec_(std::move(spec)), body_(std::move(body)) {
  Attr a;
  const int policy = to_sched_policy(spec_.policy);
  sched_param sp{};
  sp.sched_priority = spec_.policy == Policy::kOther ? 0 : spec_.priority;
  const std::string who = "thread '" + spec_.name + "' (" + to_string(spec_.policy) + " " +
                          std::to_string(sp.sched_priority) + ")";
  check(pthread_attr_setinheritsched(&a.attr, PTHREAD_EXPLICIT_SCHED), who + ": inheritsched");
  check(pthread_attr_setschedpolicy(&a.attr, policy), who + ": policy");
  check(pthread_attr_setschedparam(&a.attr, &sp), who + ": priority");
  check(pthread_attr_setstacksize(&a.attr, spec_.stack_bytes), who + ": stack size");
  if (!spec_.cpus.empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu : spec_.cpus) {
      if (cpu < 0 || cpu >= CPU_SETSIZE) fail(who + ": bad CPU " + std::to_string(cpu), EINVAL);
      CPU_SET(cpu, &set);
    }
    check(pthread_attr_setaffinity_np(&a.attr, sizeof set, &set), who + ": affinity");
  }

  // The new thread inherits the signal mask: block everything asynchronous around creation.
  sigset_t all, old;
  sigfillset(&all);
  for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP}) sigdelset(&all, s);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  const int rc = pthread_create(&handle_, &a.attr, &RtThread::trampoline, this);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (rc != 0) fail("cannot start " + who, rc);
  joinable_ = true;
  pthread_setname_np(handle_, spec_.name.substr(0, 15).c_str());
}

RtThread::~RtThread() { join(); }

void RtThread::join() {
  if (joinable_) {
    pthread_join(handle_, nullptr);
    joinable_ = false;
  }
}

pid_t RtThread::tid() const {
  pid_t t;
  while ((t = tid_.load(std::memory_order_acquire)) == 0) std::this_thread::yield();
  return t;
}

void* RtThread::trampoline(void* self) {
  auto* t = static_cast<RtThread*>(self);
  t->tid_.store(gettid(), std::memory_order_release);
  prefault_stack(t->spec_.prefault_stack_bytes, t->spec_.stack_bytes);
  // A SCHED_OTHER thread's sleeps get the default 50 us timer slack (RT threads get none):
  // measuring with policy=other must not add it to every wakeup (cyclictest sets 1 ns too).
  if (t->spec_.policy == Policy::kOther) prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  // An exception must not reach std::terminate from an RT thread: record it, stop the run.
  try {
    t->body_();
  } catch (const std::exception& e) {
    record_thread_failure(t->spec_.name.c_str(), e.what());
  } catch (...) {
    record_thread_failure(t->spec_.name.c_str(), "unknown exception");
  }
  return nullptr;
}

}  // namespace rtgate::rt
