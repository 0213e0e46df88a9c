#include "framework/signals.h"

#include <signal.h>
#include <unistd.h>

namespace rtgate {
namespace {

std::atomic<bool> g_interrupted{false};
std::atomic<bool> g_hurried{false};
std::atomic<bool> g_saved{false};
static_assert(std::atomic<bool>::is_always_lock_free, "used from a signal handler");

// A stop ends a suite within its grace (5 s), the loads within a second or two, and the result is
// written after: a shutdown still going after this long is stuck, and what was saved stays.
constexpr unsigned kShutdownBoundS = 30;
// After a second ^C: long enough for the partial result to be written.
constexpr unsigned kHurriedBoundS = 5;

void on_signal(int sig) {
  const bool first = !g_interrupted.exchange(true);
  if (first) {
    alarm(kShutdownBoundS);
    return;
  }
  // SIGTERM and SIGHUP come from machines (timeout(1) forwarding its own TERM to the process
  // group, a CI runner cancelling a job, a closing ssh session), often in bursts: once a shutdown
  // has begun they change nothing. A person who presses ^C again means it: the process ends at
  // once when a result is on disk, else as soon as the one being written is.
  if (sig != SIGINT) return;
  if (g_saved.load()) _exit(130);
  if (!g_hurried.exchange(true)) alarm(kHurriedBoundS);
}

void on_shutdown_overrun(int) { _exit(130); }

void on_sigpipe(int) {}

}  // namespace

const std::atomic<bool>& install_interrupt_handler() {
  struct sigaction sa {};
  sa.sa_handler = &on_signal;
  sigemptyset(&sa.sa_mask);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&sa.sa_mask, sig);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
  struct sigaction overrun {};
  overrun.sa_handler = &on_shutdown_overrun;
  sigemptyset(&overrun.sa_mask);
  sigaction(SIGALRM, &overrun, nullptr);
  return g_interrupted;
}

bool shutdown_hurried() { return g_hurried.load(); }

void note_result_saved() {
  g_saved.store(true);
  if (g_hurried.load()) _exit(130);
}

void survive_sigpipe() {
  struct sigaction sa {};
  sa.sa_handler = &on_sigpipe;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGPIPE, &sa, nullptr);
}

}  // namespace rtgate
