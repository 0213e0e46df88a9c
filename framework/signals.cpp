#include "framework/signals.h"

#include <signal.h>

namespace rtgate {
namespace {

std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free, "used from a signal handler");

void on_signal(int sig) {
  g_interrupted.store(true);
  // The next one is not caught: a user who presses ^C twice means it.
  signal(sig, SIG_DFL);
}

void on_sigpipe(int) {}

}  // namespace

const std::atomic<bool>& install_interrupt_handler() {
  struct sigaction sa {};
  sa.sa_handler = &on_signal;
  sigemptyset(&sa.sa_mask);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
  return g_interrupted;
}

void survive_sigpipe() {
  struct sigaction sa {};
  sa.sa_handler = &on_sigpipe;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGPIPE, &sa, nullptr);
}

}  // namespace rtgate
