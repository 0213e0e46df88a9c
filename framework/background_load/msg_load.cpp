// msg:N — N hackbench-like groups. In each group every sender writes 100-byte messages to every
// receiver over AF_UNIX stream sockets: a wakeup storm of short-lived runnable threads, which is
// what scheduler latency suffers from, rather than raw CPU demand.
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "framework/background_load/load_registry.h"
#include "framework/background_load/workers.h"

namespace rtgate::load {
namespace {

constexpr int kMaxGroups = 32;
constexpr int kSenders = 4;
constexpr int kReceivers = 4;
constexpr int kThreadsPerGroup = kSenders + kReceivers;
constexpr std::size_t kMessageBytes = 100;

class MsgLoad final : public Load {
 public:
  explicit MsgLoad(int groups) : groups_(groups) {}
  ~MsgLoad() override { stop(); }

  void start() override {
    // One socket pair per receiver: [0] is read by the receiver, [1] written by all senders.
    pairs_.resize(static_cast<std::size_t>(groups_) * kReceivers, {-1, -1});
    try {
      for (auto& pair : pairs_) {
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair.data()) != 0) {
          throw LoadError(std::string("msg: socketpair: ") + std::strerror(errno));
        }
      }
      start_threads();
    } catch (const LoadError&) {
      stop();  // also wakes senders that are already blocked on receivers that never started
      throw;
    }
  }

  void stop() override {
    workers_.request_stop();
    // Threads blocked in send (full socket) or recv (empty socket) do not poll the flag;
    // shutting the sockets down wakes them with EPIPE or end-of-file.
    for (auto& pair : pairs_) {
      for (int fd : pair) {
        if (fd >= 0) shutdown(fd, SHUT_RDWR);
      }
    }
    workers_.join();
    close_all();
  }

  LoadReport report() const override {
    LoadReport r = workers_.report("msg", "msg:" + std::to_string(groups_), groups_, "messages");
    r.note = std::to_string(kSenders) + " senders x " + std::to_string(kReceivers) +
             " receivers per group, " + std::to_string(kMessageBytes) + "-byte messages";
    return r;
  }

 private:
  void start_threads() {
    workers_.start(
        groups_ * kThreadsPerGroup,
        [](int i) { return other_thread("load-msg" + std::to_string(i)); },
        [this](int i, Workers::Counter& ops) {
          const int group = i / kThreadsPerGroup;
          const int role = i % kThreadsPerGroup;
          if (role < kSenders) {
            send_loop(group);
          } else {
            receive_loop(group * kReceivers + role - kSenders, ops);
          }
        });
  }

  void send_loop(int group) {
    std::array<char, kMessageBytes> message;
    message.fill('m');
    while (!workers_.stopping()) {
      for (int r = 0; r < kReceivers; ++r) {
        const int fd = pairs_[static_cast<std::size_t>(group) * kReceivers + r][1];
        // MSG_NOSIGNAL: after shutdown a send must fail with EPIPE, not raise SIGPIPE.
        if (send(fd, message.data(), message.size(), MSG_NOSIGNAL) <= 0 && errno != EINTR) return;
      }
    }
  }

  void receive_loop(int receiver, Workers::Counter& ops) {
    const int fd = pairs_[static_cast<std::size_t>(receiver)][0];
    std::array<char, 16 * kMessageBytes> buffer;
    std::uint64_t bytes = 0;
    std::uint64_t counted = 0;
    while (true) {
      const ssize_t n = recv(fd, buffer.data(), buffer.size(), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      // A stream socket splits messages anywhere; a message counts once all its bytes arrived.
      bytes += static_cast<std::uint64_t>(n);
      ops.add(bytes / kMessageBytes - counted);
      counted = bytes / kMessageBytes;
    }
  }

  void close_all() {
    for (auto& pair : pairs_) {
      for (int& fd : pair) {
        if (fd >= 0) close(fd);
        fd = -1;
      }
    }
  }

  int groups_;
  std::vector<std::array<int, 2>> pairs_;
  Workers workers_;  // last: destroyed (joined) before the sockets its threads use
};

std::unique_ptr<Load> make(const std::vector<std::string>& args, std::string* error) {
  int n = 1;
  if (!check_arg_count(args, 1, error)) return nullptr;
  if (!args.empty() && !parse_int_arg(args[0], "group count", 1, kMaxGroups, &n, error)) {
    return nullptr;
  }
  return std::make_unique<MsgLoad>(n);
}

}  // namespace
}  // namespace rtgate::load

RTGATE_LOAD_KIND(msg, {.name = "msg",
                       .usage = "msg[:N]",
                       .help = "N hackbench-like groups, 4 senders x 4 receivers over AF_UNIX "
                               "sockets (ops: 100-byte messages received)",
                       .make = &rtgate::load::make});
