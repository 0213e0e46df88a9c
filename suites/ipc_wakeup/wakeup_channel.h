// WakeupChannel: one thread wakes another through a chosen IPC mechanism, passing a 64-bit value
// (ipc.wakeup's send timestamp), and the receiving side never sleeps without a bound.
//
// How each mechanism sends, and how the receiver waits for it:
//   signal   pthread_sigqueue(SIGUSR2) with the value    sigtimedwait (SIGUSR2 blocked)
//   pmq      mq_send of the 8-byte value, queue depth 1  mq_timedreceive
//   sem      POSIX sem_post; value in shared memory      sem_clockwait (CLOCK_MONOTONIC)
//   svsem    SysV semop +1; value in shared memory       semtimedop -1
//   futex    word += 1, FUTEX_WAKE; value beside it      FUTEX_WAIT on the word, with timeout
//   pipe     write of the 8-byte value                   ppoll(POLLIN), then read
//   eventfd  write of the value (the counter)            ppoll(POLLIN), then read
// Pipes and eventfds have no timed read, so their receiver waits in ppoll and then reads
// without blocking: its wakeup is poll's, and the latency includes the read.
//
// The channel holds at most one message at a time (ipc.wakeup's sender waits for the receiver
// to take each one before it sends the next): eventfd counters then never add up, and a
// semaphore's value carries the one message. send() and wait() neither allocate nor lock
// anything but the kernel's own; a channel is built, and torn down, outside measured paths.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rtgate {

enum class WakeupVia { kSignal, kPmq, kSem, kSvsem, kFutex, kPipe, kEventfd };

const char* to_string(WakeupVia via);
std::optional<WakeupVia> wakeup_via_from(std::string_view name);
// Every mechanism, in the order `via=all` measures them.
const std::vector<WakeupVia>& all_wakeup_vias();

class WakeupChannel {
 public:
  enum class Wait { kMessage, kTimeout, kError };

  virtual ~WakeupChannel() = default;
  WakeupChannel() = default;
  WakeupChannel(const WakeupChannel&) = delete;
  WakeupChannel& operator=(const WakeupChannel&) = delete;

  // Called by the receiving thread once, before anyone sends (signals are sent to a thread).
  virtual void bind_receiver() noexcept {}
  // Sends `value` (not 0). Returns 0 or an errno value; never blocks.
  virtual int send(std::uint64_t value) noexcept = 0;
  // Sleeps until a message arrives (its value in *value), `timeout_ns` passes, or a call fails
  // (its errno in *err). Signals interrupting the wait do not end it early.
  virtual Wait wait(std::int64_t timeout_ns, std::uint64_t* value, int* err) noexcept = 0;
  // The call that failed, for the reason line ("mq_timedreceive").
  virtual const char* wait_call() const noexcept = 0;
  virtual const char* send_call() const noexcept = 0;
};

// Throws std::system_error naming the call that failed (e.g. "mq_open: Function not
// implemented" on a kernel without POSIX message queues).
std::unique_ptr<WakeupChannel> make_wakeup_channel(WakeupVia via);

}  // namespace rtgate
