// RtThread: a thread born with its scheduling policy, priority and affinity.
//
// Everything is set through pthread attributes with PTHREAD_EXPLICIT_SCHED, so the thread never
// runs a single instruction with the creator's policy or on a CPU it should not use. (Setting
// affinity first and priority later lets a SCHED_OTHER thread queue behind a FIFO spinner.)
// Asynchronous signals are blocked in the new thread: SIGINT belongs to the main thread, and a
// signal must never interrupt a measurement. The first thing the thread does is prefault its
// stack, so the measured path takes no page fault on it.
#pragma once

#include <pthread.h>
#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace rtgate::rt {

enum class Policy { kFifo, kRr, kOther };

const char* to_string(Policy policy);
int to_sched_policy(Policy policy);

struct ThreadSpec {
  std::string name;  // thread name (15 chars max are kept)
  Policy policy = Policy::kFifo;
  int priority = 80;      // 1..99 for FIFO/RR; ignored (0) for OTHER
  std::vector<int> cpus;  // empty: every CPU the process may use
  std::size_t stack_bytes = 512 * 1024;
  std::size_t prefault_stack_bytes = 128 * 1024;
};

class RtError : public std::runtime_error {
 public:
  RtError(const std::string& what, int err) : std::runtime_error(what), errno_(err) {}
  int error_number() const { return errno_; }

 private:
  int errno_;
};

class RtThread {
 public:
  // Creates and starts the thread. Throws RtError (with a one-line reason) when the policy,
  // priority or affinity cannot be applied, e.g. EPERM without CAP_SYS_NICE.
  RtThread(ThreadSpec spec, std::function<void()> body);
  ~RtThread();  // joins
  RtThread(const RtThread&) = delete;
  RtThread& operator=(const RtThread&) = delete;

  void join();
  // The kernel thread id; waits until the thread has started.
  pid_t tid() const;
  const ThreadSpec& spec() const { return spec_; }

 private:
  static void* trampoline(void* self);

  ThreadSpec spec_;
  std::function<void()> body_;
  pthread_t handle_{};
  bool joinable_ = false;
  std::atomic<pid_t> tid_{0};
};

}  // namespace rtgate::rt
