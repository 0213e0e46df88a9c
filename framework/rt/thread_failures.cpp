#include "framework/rt/thread_failures.h"

#include <cstdio>

namespace rtgate::rt {
namespace {

std::atomic<std::atomic<bool>*> stop_flag{nullptr};
std::atomic<int> state{0};  // 0 none, 1 being written, 2 written
char message[256];

}  // namespace

void reset_thread_failures(std::atomic<bool>* stop) {
  state.store(0, std::memory_order_relaxed);
  stop_flag.store(stop, std::memory_order_release);
}

void record_thread_failure(const char* thread, const char* what) noexcept {
  int expected = 0;
  if (state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
    std::snprintf(message, sizeof message, "exception in thread '%s': %s", thread, what);
    state.store(2, std::memory_order_release);
  }
  if (std::atomic<bool>* stop = stop_flag.load(std::memory_order_acquire)) {
    stop->store(true, std::memory_order_relaxed);
  }
}

std::string first_thread_failure() {
  return state.load(std::memory_order_acquire) == 2 ? std::string(message) : std::string();
}

}  // namespace rtgate::rt
