#include "suites/ipc_wakeup/wakeup_channel.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <mqueue.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/sem.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "framework/measure/clock.h"

namespace rtgate {

namespace {

using Wait = WakeupChannel::Wait;

[[noreturn]] void fail(const char* call, int err) {
  throw std::system_error(err, std::generic_category(), call);
}

timespec remaining(std::int64_t end_ns) noexcept {
  return to_timespec(std::max<std::int64_t>(0, end_ns - monotonic_ns()));
}

std::int64_t realtime_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// A thread-directed signal carrying the value in its sigval. SIGUSR2, as sigwaittest uses; the
// receiver blocks it (RtThread threads block every asynchronous signal already) so that it is
// only ever taken by sigtimedwait.
class SignalChannel final : public WakeupChannel {
 public:
  static constexpr int kSignal = SIGUSR2;
  SignalChannel() {
    sigemptyset(&set_);
    sigaddset(&set_, kSignal);
  }
  void bind_receiver() noexcept override {
    pthread_sigmask(SIG_BLOCK, &set_, nullptr);
    receiver_ = pthread_self();
  }
  int send(std::uint64_t value) noexcept override {
    sigval v{};
    v.sival_ptr = reinterpret_cast<void*>(static_cast<std::uintptr_t>(value));
    return pthread_sigqueue(receiver_, kSignal, v);
  }
  Wait wait(std::int64_t timeout_ns, std::uint64_t* value, int* err) noexcept override {
    const std::int64_t end = monotonic_ns() + timeout_ns;
    for (;;) {
      siginfo_t info;
      const timespec ts = remaining(end);
      if (sigtimedwait(&set_, &info, &ts) == kSignal) {
        *value = reinterpret_cast<std::uintptr_t>(info.si_value.sival_ptr);
        return Wait::kMessage;
      }
      if (errno == EAGAIN) return Wait::kTimeout;
      if (errno != EINTR) return *err = errno, Wait::kError;
    }
  }
  const char* wait_call() const noexcept override { return "sigtimedwait"; }
  const char* send_call() const noexcept override { return "pthread_sigqueue"; }

 private:
  sigset_t set_;
  pthread_t receiver_{};
};

// A queue of depth 1 (as pmqtest's), unlinked at once: nothing is left behind in /dev/mqueue.
// The sending descriptor is non-blocking, so a full queue is an error rather than a hang.
class PmqChannel final : public WakeupChannel {
 public:
  PmqChannel() {
    static std::atomic<unsigned> serial{0};
    const std::string name =
        "/rtgate-ipc-" + std::to_string(getpid()) + "-" + std::to_string(serial.fetch_add(1));
    mq_attr attr{};
    attr.mq_maxmsg = 1;
    attr.mq_msgsize = sizeof(std::uint64_t);
    rx_ = mq_open(name.c_str(), O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600, &attr);
    if (rx_ == static_cast<mqd_t>(-1)) fail("mq_open", errno);
    tx_ = mq_open(name.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    const int err = errno;
    mq_unlink(name.c_str());
    if (tx_ == static_cast<mqd_t>(-1)) {
      mq_close(rx_);
      fail("mq_open", err);
    }
  }
  ~PmqChannel() override {
    mq_close(tx_);
    mq_close(rx_);
  }
  int send(std::uint64_t value) noexcept override {
    char msg[sizeof value];
    std::memcpy(msg, &value, sizeof value);
    return mq_send(tx_, msg, sizeof msg, 0) == 0 ? 0 : errno;
  }
  Wait wait(std::int64_t timeout_ns, std::uint64_t* value, int* err) noexcept override {
    // mq_timedreceive's deadline is on CLOCK_REALTIME; a clock step moves it, nothing worse.
    const timespec until = to_timespec(realtime_ns() + timeout_ns);
    for (;;) {
      char msg[sizeof(std::uint64_t)];
      const ssize_t n = mq_timedreceive(rx_, msg, sizeof msg, nullptr, &until);
      if (n == static_cast<ssize_t>(sizeof msg)) {
        std::memcpy(value, msg, sizeof msg);
        return Wait::kMessage;
      }
      if (n >= 0) return *err = EBADMSG, Wait::kError;
      if (errno == ETIMEDOUT) return Wait::kTimeout;
      if (errno != EINTR) return *err = errno, Wait::kError;
    }
  }
  const char* wait_call() const noexcept override { return "mq_timedreceive"; }
  const char* send_call() const noexcept override { return "mq_send"; }

 private:
  mqd_t rx_, tx_;
};

// The semaphores carry no data: the value sits beside them, written before the post.
class SemChannel final : public WakeupChannel {
 public:
  SemChannel() {
    if (sem_init(&sem_, 0, 0) != 0) fail("sem_init", errno);
  }
  ~SemChannel() override { sem_destroy(&sem_); }
  int send(std::uint64_t value) noexcept override {
    value_.store(value, std::memory_order_release);
    return sem_post(&sem_) == 0 ? 0 : errno;
  }
  Wait wait(std::int64_t timeout_ns, std::uint64_t* value, int* err) noexcept override {
    const timespec until = to_timespec(monotonic_ns() + timeout_ns);
    for (;;) {
      if (sem_clockwait(&sem_, CLOCK_MONOTONIC, &until) == 0) {
        *value = value_.load(std::memory_order_acquire);
        return Wait::kMessage;
      }
      if (errno == ETIMEDOUT) return Wait::kTimeout;
      if (errno != EINTR) return *err = errno, Wait::kError;
    }
  }
  const char* wait_call() const noexcept override { return "sem_clockwait"; }
  const char* send_call() const noexcept override { return "sem_post"; }

 private:
  sem_t sem_;
  std::atomic<std::uint64_t> value_{0};
};

class SvsemChannel final : public WakeupChannel {
 public:
  SvsemChannel() : id_(semget(IPC_PRIVATE, 1, IPC_CREAT | 0600)) {
    if (id_ < 0) fail("semget", errno);
  }
  ~SvsemChannel() override { semctl(id_, 0, IPC_RMID); }
  int send(std::uint64_t value) noexcept override {
    value_.store(value, std::memory_order_release);
    sembuf up{.sem_num = 0, .sem_op = 1, .sem_flg = 0};
    return semop(id_, &up, 1) == 0 ? 0 : errno;
  }
  Wait wait(std::int64_t timeout_ns, std::uint64_t* value, int* err) noexcept override {
    const std::int64_t end = monotonic_ns() + timeout_ns;
    for (;;) {
      sembuf down{.sem_num = 0, .sem_op = -1, .sem_flg = 0};
      const timespec ts = remaining(end);
      if (semtimedop(id_, &down, 1, &ts) == 0) {
        *value = value_.load(std::memory_order_acquire);
        return Wait::kMessage;
      }
      if (errno == EAGAIN) return Wait::kTimeout;
      if (errno != EINTR) return *err = errno, Wait::kError;
    }
  }
  const char* wait_call() const noexcept override { return "semtimedop"; }
  const char* send_call() const noexcept override { return "semop"; }

 private:
  int id_;
  std::atomic<std::uint64_t> value_{0};
};

// A bare futex: every send bumps the word and calls FUTEX_WAKE (a mutex or semaphore would skip
// the call when nobody waits; here somebody always does, so the kernel path is the same).
class FutexChannel final : public WakeupChannel {
 public:
  int send(std::uint64_t value) noexcept override {
    value_.store(value, std::memory_order_relaxed);
    word_.fetch_add(1, std::memory_order_release);
    return syscall(SYS_futex, &word_, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0) < 0 ? errno : 0;
  }
  Wait wait(std::int64_t timeout_ns, std::uint64_t* value, int* err) noexcept override {
    const std::int64_t end = monotonic_ns() + timeout_ns;
    for (;;) {
      const std::uint32_t now = word_.load(std::memory_order_acquire);
      if (now != seen_) {
        seen_ = now;
        *value = value_.load(std::memory_order_relaxed);
        return Wait::kMessage;
      }
      const timespec ts = remaining(end);
      if (ts.tv_sec == 0 && ts.tv_nsec == 0) return Wait::kTimeout;
      // 0 (woken), EAGAIN (the word moved first), ETIMEDOUT, EINTR: look at the word again.
      if (syscall(SYS_futex, &word_, FUTEX_WAIT_PRIVATE, seen_, &ts, nullptr, 0) != 0 &&
          errno != EAGAIN && errno != ETIMEDOUT && errno != EINTR) {
        return *err = errno, Wait::kError;
      }
    }
  }
  const char* wait_call() const noexcept override { return "futex(FUTEX_WAIT)"; }
  const char* send_call() const noexcept override { return "futex(FUTEX_WAKE)"; }

 private:
  alignas(64) std::atomic<std::uint32_t> word_{0};
  std::atomic<std::uint64_t> value_{0};
  std::uint32_t seen_ = 0;  // the receiver's: the word it last saw
};

// Pipes and eventfds: ppoll, then a non-blocking read of the 8-byte value.
Wait poll_then_read(int fd, std::int64_t timeout_ns, std::uint64_t* value, int* err) noexcept {
  const std::int64_t end = monotonic_ns() + timeout_ns;
  for (;;) {
    pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
    const timespec ts = remaining(end);
    const int ready = ppoll(&p, 1, &ts, nullptr);
    if (ready == 0) return Wait::kTimeout;
    if (ready < 0) {
      if (errno != EINTR) return *err = errno, Wait::kError;
      continue;
    }
    const ssize_t n = read(fd, value, sizeof *value);
    if (n == static_cast<ssize_t>(sizeof *value)) return Wait::kMessage;
    if (n >= 0) return *err = EBADMSG, Wait::kError;  // a short read or end of file
    if (errno != EAGAIN && errno != EINTR) return *err = errno, Wait::kError;
  }
}

class PipeChannel final : public WakeupChannel {
 public:
  PipeChannel() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) fail("pipe2", errno);
    rx_ = fds[0];
    tx_ = fds[1];
  }
  ~PipeChannel() override {
    close(tx_);
    close(rx_);
  }
  int send(std::uint64_t value) noexcept override {
    const ssize_t n = write(tx_, &value, sizeof value);
    return n == static_cast<ssize_t>(sizeof value) ? 0 : (n < 0 ? errno : EIO);
  }
  Wait wait(std::int64_t timeout_ns, std::uint64_t* value, int* err) noexcept override {
    return poll_then_read(rx_, timeout_ns, value, err);
  }
  const char* wait_call() const noexcept override { return "ppoll/read(pipe)"; }
  const char* send_call() const noexcept override { return "write(pipe)"; }

 private:
  int rx_, tx_;
};

class EventfdChannel final : public WakeupChannel {
 public:
  EventfdChannel() : fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    if (fd_ < 0) fail("eventfd", errno);
  }
  ~EventfdChannel() override { close(fd_); }
  int send(std::uint64_t value) noexcept override {
    const ssize_t n = write(fd_, &value, sizeof value);
    return n == static_cast<ssize_t>(sizeof value) ? 0 : (n < 0 ? errno : EIO);
  }
  Wait wait(std::int64_t timeout_ns, std::uint64_t* value, int* err) noexcept override {
    return poll_then_read(fd_, timeout_ns, value, err);
  }
  const char* wait_call() const noexcept override { return "ppoll/read(eventfd)"; }
  const char* send_call() const noexcept override { return "write(eventfd)"; }

 private:
  int fd_;
};

struct Named {
  WakeupVia via;
  const char* name;
};
constexpr Named kNames[] = {{WakeupVia::kSignal, "signal"},  {WakeupVia::kPmq, "pmq"},
                            {WakeupVia::kSem, "sem"},        {WakeupVia::kSvsem, "svsem"},
                            {WakeupVia::kFutex, "futex"},    {WakeupVia::kPipe, "pipe"},
                            {WakeupVia::kEventfd, "eventfd"}};

}  // namespace

const char* to_string(WakeupVia via) {
  for (const auto& n : kNames) {
    if (n.via == via) return n.name;
  }
  return "?";
}

std::optional<WakeupVia> wakeup_via_from(std::string_view name) {
  for (const auto& n : kNames) {
    if (name == n.name) return n.via;
  }
  return std::nullopt;
}

const std::vector<WakeupVia>& all_wakeup_vias() {
  static const std::vector<WakeupVia> all = [] {
    std::vector<WakeupVia> v;
    for (const auto& n : kNames) v.push_back(n.via);
    return v;
  }();
  return all;
}

std::unique_ptr<WakeupChannel> make_wakeup_channel(WakeupVia via) {
  switch (via) {
    case WakeupVia::kSignal:
      return std::make_unique<SignalChannel>();
    case WakeupVia::kPmq:
      return std::make_unique<PmqChannel>();
    case WakeupVia::kSem:
      return std::make_unique<SemChannel>();
    case WakeupVia::kSvsem:
      return std::make_unique<SvsemChannel>();
    case WakeupVia::kFutex:
      return std::make_unique<FutexChannel>();
    case WakeupVia::kPipe:
      return std::make_unique<PipeChannel>();
    case WakeupVia::kEventfd:
      return std::make_unique<EventfdChannel>();
  }
  fail("make_wakeup_channel", EINVAL);
}

}  // namespace rtgate
