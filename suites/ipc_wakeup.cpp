// ipc.wakeup: how long an RT thread takes to wake up through each IPC mechanism, the measurement
// of rt-tests' sigwaittest, pmqtest, ptsematest and svsematest, plus futexes, pipes and eventfds.
//
// Per mechanism (-p via=...; see suites/ipc_wakeup/wakeup_channel.h for how each sends and
// waits), a SCHED_FIFO sender wakes a SCHED_FIFO receiver every interval_us on an absolute-time
// schedule; by default the receiver runs one priority above the sender, as in those tools. The
// sender takes a CLOCK_MONOTONIC timestamp just before the send call and passes it in the message
// (beside it in shared memory for the semaphores and the futex); the latency is from that stamp
// to the receiver's return from its wait. Sender and receiver share one CPU (the send preempts
// the sender) or sit on two, sender on the first (the wakeup then crosses CPUs: an IPI, and the
// receiver's CPU leaving idle). The duration is split evenly over the mechanisms.
//
// At most one message is in flight: a sender whose receiver has not taken the previous message
// skips the period (skipped_periods), so queues never fill, eventfd counters never add up, and
// every sample is one wakeup. The receiver never sleeps without a bound: each wait ends after
// interval + timeout_ms. When a wait times out although the sender published a message well
// before it would have (half timeout_ms, so that a wakeup racing the timer does not count), the
// wakeup was lost: the case ends and the suite fails. drop_every makes the sender publish every
// Nth message without sending it, which is how a test shows that. When the sender finishes it
// sends a last message that only says so, unless the receiver still owes it one (then the
// receiver sees the sender done after taking it: both sides use sequentially consistent
// atomics, so one of them always sees the other).
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <system_error>

#include "framework/measure/periodic_loop.h"
#include "framework/measure/run_context.h"
#include "framework/measure/start_line.h"
#include "framework/registry.h"
#include "framework/rt/cpu_list.h"
#include "framework/rt/rt_thread.h"
#include "suites/ipc_wakeup/wakeup_channel.h"

namespace {

using rtgate::ParamSpec;
using rtgate::WakeupChannel;
using rtgate::WakeupVia;

constexpr std::uint64_t kDone = 1;  // the sender's last message; a real stamp is far above it

struct Config {
  int priority, sender_priority;
  std::int64_t interval_ns, block_ns, timeout_ns, slice_ns;
  std::uint64_t drop_every;
};

// What the two threads share, the sender's and the receiver's fields on separate cache lines.
struct Shared {
  alignas(64) std::atomic<std::int64_t> sent_ns{0};  // the stamp of the last published message
  std::atomic<std::uint64_t> sent{0};                // messages published
  std::atomic<bool> done{false};                     // the sender sends no more
  alignas(64) std::atomic<std::uint64_t> taken{0};   // messages the receiver has taken
  std::atomic<bool> quit{false};                     // the receiver ended early: the sender stops
};

// Each side's state, built by its own thread before the start line (on its CPU's NUMA node).
struct alignas(64) Receiver {
  Receiver(const Config& c, std::size_t blocks, rtgate::LiveStats& live_)
      : rec(c.interval_ns, c.block_ns, blocks, live_), live(live_) {}
  rtgate::PeriodicRecorder rec;  // keyed on each message's stamp: latency = return - stamp
  rtgate::LiveStats& live;
  std::uint64_t lost_seq = 0;
  std::int64_t lost_age_ns = 0;
  int error = 0;
  bool lost = false;
};

struct alignas(64) Sender {
  Sender(const Config& c, std::size_t blocks, rtgate::LiveStats& live_)
      : rec(c.interval_ns, c.block_ns, blocks, live_), live(live_) {}
  rtgate::PeriodicRecorder rec;  // the sender's own wakeups: missed periods
  rtgate::LiveStats& live;
  std::uint64_t skipped = 0;
  int error = 0;
};

void receive(WakeupChannel& ch, Shared& sh, Receiver& r, const Config& c, std::int64_t start,
             const std::atomic<bool>& stop, rtgate::SampleHook* hook) {
  r.live.tid.store(gettid(), std::memory_order_relaxed);
  r.rec.start(start);
  const std::int64_t wait_ns = c.interval_ns + c.timeout_ns;
  std::uint64_t taken = 0;
  for (;;) {
    const std::int64_t began = rtgate::monotonic_ns();
    std::uint64_t value = 0;
    const WakeupChannel::Wait w = ch.wait(wait_ns, &value, &r.error);
    const std::int64_t now = rtgate::monotonic_ns();
    if (w == WakeupChannel::Wait::kMessage) {
      if (value == kDone) break;
      const auto stamp = static_cast<std::int64_t>(value);
      r.rec.on_wakeup(stamp, now);
      if (hook != nullptr && !hook->on_sample(r.live, stamp, now - stamp)) [[unlikely]] {
        sh.quit.store(true);
        break;
      }
      sh.taken.store(++taken);
      if (sh.done.load()) break;
      continue;
    }
    if (w == WakeupChannel::Wait::kError) {
      sh.quit.store(true);
      break;
    }
    const std::uint64_t sent = sh.sent.load(std::memory_order_acquire);
    const std::int64_t sent_ns = sh.sent_ns.load(std::memory_order_relaxed);
    if (sent != taken && sent_ns < began + wait_ns - c.timeout_ns / 2) {
      r.lost = true;
      r.lost_seq = sent;
      r.lost_age_ns = now - sent_ns;
      sh.quit.store(true);
      break;
    }
    if ((sh.done.load() && sent == taken) || stop.load(std::memory_order_relaxed)) break;
  }
  r.rec.finish();
  r.live.done.store(true, std::memory_order_relaxed);
}

void send(WakeupChannel& ch, Shared& sh, Sender& s, const Config& c, std::int64_t start,
          const std::atomic<bool>& stop) {
  std::uint64_t sent = 0;
  rtgate::PeriodicLoop(s.rec, s.live, c.interval_ns).run(start, start + c.slice_ns, sh.quit, [&] {
    if (stop.load(std::memory_order_relaxed)) {
      sh.quit.store(true);
      return;
    }
    if (sh.taken.load(std::memory_order_acquire) != sent) {
      ++s.skipped;
      return;
    }
    ++sent;
    const std::int64_t stamp = rtgate::monotonic_ns();
    sh.sent_ns.store(stamp, std::memory_order_relaxed);
    sh.sent.store(sent, std::memory_order_release);
    if (c.drop_every != 0 && sent % c.drop_every == 0) return;
    if (const int err = ch.send(static_cast<std::uint64_t>(stamp)); err != 0) {
      s.error = err;
      sh.quit.store(true);
    }
  });
  sh.done.store(true);
  if (sh.taken.load() == sent) ch.send(kDone);  // else the receiver sees `done` after its last
}

std::string describe(const char* call, int err) { return std::string(call) + ": " + strerror(err); }

struct Placement {
  int sender_cpu, receiver_cpu;
};

// What one mechanism's threads measured: its failures and errors, and the case's metrics.
void add_outcome(const std::string& name, WakeupChannel& ch, Receiver& rx, Sender& tx,
                 rtgate::Case& out, std::string* failure, std::string* error) {
  if (rx.lost) {
    *failure = name + ": lost wakeup: message " + std::to_string(rx.lost_seq) + " was sent " +
               std::to_string(rx.lost_age_ns / 1'000'000) +
               " ms before the receiver's wait timed out, and never woke it";
  }
  if (rx.error != 0) *error = name + ": " + describe(ch.wait_call(), rx.error);
  if (tx.error != 0) *error = name + ": " + describe(ch.send_call(), tx.error);
  const auto messages = static_cast<double>(rx.rec.samples());
  out.metrics.push_back(rtgate::Metric::latency("wakeup_latency", std::move(rx.rec.histogram()),
                                                std::move(rx.rec.block_maxima())));
  out.metrics.push_back(
      rtgate::Metric::count("messages", messages, "messages", rtgate::Metric::Gating::kReported));
  // Periods the sender woke too late for or spent inside a send (its CPU was taken), and
  // periods it let pass because the receiver had not yet taken the previous message (a wakeup
  // slower than a period). With the messages they account for every period of the schedule.
  const std::uint64_t missed = tx.rec.missed_periods() + tx.rec.work_skipped();
  out.metrics.push_back(rtgate::Metric::count("missed_periods", static_cast<double>(missed),
                                              "periods", rtgate::Metric::Gating::kEventRate));
  out.metrics.push_back(rtgate::Metric::count("skipped_periods", static_cast<double>(tx.skipped),
                                              "periods", rtgate::Metric::Gating::kEventRate));
  out.metrics.push_back(rtgate::Metric::count("lost_wakeups", rx.lost ? 1 : 0, "wakeups",
                                              rtgate::Metric::Gating::kEventRate));
}

// One mechanism's case. `failure`, `error` and `missing` get a one-line reason when it failed,
// broke, or the kernel lacks the mechanism (then the case has no metrics).
rtgate::Case measure(WakeupVia via, const Placement& at, const Config& c, rtgate::RunContext& ctx,
                     std::string* failure, std::string* error, std::string* missing) {
  const std::string name =
      std::string(rtgate::to_string(via)) + "/cpu" + std::to_string(at.sender_cpu) +
      (at.sender_cpu == at.receiver_cpu ? "" : "-cpu" + std::to_string(at.receiver_cpu));
  rtgate::Case out;
  out.name = name;
  out.labels = {{"via", rtgate::to_string(via)},
                {"cpu", std::to_string(at.receiver_cpu)},
                {"sender_cpu", std::to_string(at.sender_cpu)},
                {"thread_class", "rt"},
                {"period_us", std::to_string(c.interval_ns / 1000)}};
  std::unique_ptr<WakeupChannel> ch;
  try {
    ch = rtgate::make_wakeup_channel(via);
  } catch (const std::system_error& e) {
    // A kernel built without the mechanism (CONFIG_POSIX_MQUEUE, CONFIG_SYSVIPC) only loses its
    // case, noted in the reason; any other failure is an error.
    *(e.code().value() == ENOSYS ? missing : error) = name + ": " + e.what();
    return out;
  }
  Shared sh;
  rtgate::LiveStats& rx_live = ctx.track(name);
  rtgate::LiveStats& tx_live = ctx.track(name + "/sender");
  const auto blocks = static_cast<std::size_t>(c.slice_ns / c.block_ns) + 2;
  std::unique_ptr<Receiver> rx;
  std::unique_ptr<Sender> tx;
  rtgate::StartLine start_line(2, 1'000'000);
  {
    // Declared receiver first: the sender is joined first, so it never signals a joined thread.
    std::unique_ptr<rtgate::rt::RtThread> receiver, sender;
    try {
      receiver = std::make_unique<rtgate::rt::RtThread>(
          rtgate::rt::ThreadSpec{.name = std::string("ipcw-rx-") + rtgate::to_string(via),
                                 .priority = c.priority,
                                 .cpus = {at.receiver_cpu}},
          [&] {
            const std::int64_t start = start_line.prepare_and_wait([&] {
              ch->bind_receiver();  // first: the sender may send once the start line lets them go
              rx = std::make_unique<Receiver>(c, blocks, rx_live);
            });
            receive(*ch, sh, *rx, c, start, ctx.stop_flag(), ctx.sample_hook());
          });
      sender = std::make_unique<rtgate::rt::RtThread>(
          rtgate::rt::ThreadSpec{.name = std::string("ipcw-tx-") + rtgate::to_string(via),
                                 .priority = c.sender_priority,
                                 .cpus = {at.sender_cpu}},
          [&] {
            const std::int64_t start = start_line.prepare_and_wait(
                [&] { tx = std::make_unique<Sender>(c, blocks, tx_live); });
            send(*ch, sh, *tx, c, start, ctx.stop_flag());
          });
    } catch (...) {
      ctx.request_stop();  // a receiver already started ends at its first timeout
      start_line.abandon(receiver ? 1 : 2);
      throw;
    }
  }                            // joins the sender, then the receiver
  if (!rx || !tx) return out;  // a thread failed to build its state: the run ends as an error
  add_outcome(name, *ch, *rx, *tx, out, failure, error);
  return out;
}

// "all", or a comma-separated list of distinct mechanisms; nullopt and *why otherwise.
std::optional<std::vector<WakeupVia>> parse_vias(const std::string& text, std::string* why) {
  if (text == "all") return rtgate::all_wakeup_vias();
  std::vector<WakeupVia> out;
  std::size_t at = 0;
  for (;;) {
    const std::size_t comma = text.find(',', at);
    const std::string item = text.substr(at, comma == std::string::npos ? comma : comma - at);
    const auto via = rtgate::wakeup_via_from(item);
    if (!via) {
      std::string names;
      for (WakeupVia v : rtgate::all_wakeup_vias()) names += std::string(" ") + to_string(v);
      *why = "via: unknown mechanism '" + item + "' (all, or a list of:" + names + ")";
      return std::nullopt;
    }
    if (std::find(out.begin(), out.end(), *via) != out.end()) {
      *why = "via: '" + item + "' is listed twice";
      return std::nullopt;
    }
    out.push_back(*via);
    if (comma == std::string::npos) return out;
    at = comma + 1;
  }
}

int sender_priority_of(const rtgate::Params& p) {
  const auto sp = p.get_int("sender_priority");
  return static_cast<int>(sp != 0 ? sp : p.get_int("priority") - 1);
}

rtgate::SuiteResult run(const rtgate::Params& p, rtgate::RunContext& ctx) {
  std::string why;
  const auto vias = *parse_vias(p.get_string("via"), &why);
  // "all": the first two CPUs the run may use (one when there is only one).
  std::vector<int> cpus;
  if (p.get_string("cpus") == "all") {
    const auto n = static_cast<std::ptrdiff_t>(std::min<std::size_t>(2, ctx.cpus().size()));
    cpus.assign(ctx.cpus().begin(), ctx.cpus().begin() + n);
    if (cpus.empty()) return rtgate::SuiteResult::ended(rtgate::SuiteStatus::kSkipped, "no CPU");
  } else if (const auto sel = rtgate::rt::select_cpus(p.get_string("cpus"), ctx.cpus(), &why)) {
    cpus = *sel;
  } else {
    return rtgate::SuiteResult::ended(rtgate::SuiteStatus::kSkipped, why);
  }
  const Placement at{.sender_cpu = cpus.front(), .receiver_cpu = cpus.back()};
  // A lost wakeup is found within two waits: they stay below the watchdog's stall time.
  const std::int64_t asked_ns = p.get_int("timeout_ms") * 1'000'000;
  const auto cap_ns = static_cast<std::int64_t>(ctx.watchdog_s() * 0.25e9);
  Config c{.priority = static_cast<int>(p.get_int("priority")),
           .sender_priority = sender_priority_of(p),
           .interval_ns = p.get_int("interval_us") * 1000,
           .block_ns = p.get_int("block_ms") * 1'000'000,
           .timeout_ns = std::min(asked_ns, cap_ns),
           .slice_ns = ctx.duration_ns() / static_cast<std::int64_t>(vias.size()),
           .drop_every = static_cast<std::uint64_t>(p.get_int("drop_every"))};
  c.block_ns = std::max(c.block_ns, c.interval_ns);

  rtgate::SuiteResult result;
  std::string failures, errors, missing;
  const auto add = [](std::string& to, const std::string& what) {
    if (!what.empty()) to += (to.empty() ? "" : "; ") + what;
  };
  for (WakeupVia via : vias) {
    if (ctx.stop_requested()) break;
    std::string failure, error, absent;
    rtgate::Case one = measure(via, at, c, ctx, &failure, &error, &absent);
    add(failures, failure);
    add(errors, error);
    add(missing, absent);
    if (!one.metrics.empty()) result.cases.push_back(std::move(one));
  }
  if (result.cases.empty() && !missing.empty() && errors.empty()) {
    return rtgate::SuiteResult::ended(rtgate::SuiteStatus::kSkipped, missing);
  }
  add(result.reason, missing);
  if (!errors.empty()) {
    result.status = rtgate::SuiteStatus::kError;
    add(result.reason, errors);
  } else if (!failures.empty()) {
    result.status = rtgate::SuiteStatus::kFailed;
    add(result.reason, failures);
  }
  if (c.timeout_ns < asked_ns) {
    add(result.reason, "timeout_ms " + std::to_string(asked_ns / 1'000'000) + " capped at " +
                           std::to_string(c.timeout_ns / 1'000'000) +
                           " ms, a quarter of the --watchdog stall time");
  }
  return result;
}

std::string validate(const rtgate::Params& p) {
  std::string why;
  if (!parse_vias(p.get_string("via"), &why)) return why;
  if (const std::string& cpus = p.get_string("cpus"); cpus != "all") {
    const auto list = rtgate::text::parse_cpu_list(cpus);
    if (list && list->size() > 2) {
      return "cpus: one CPU (sender and receiver share it) or two (sender on the first), not " +
             std::to_string(list->size());
    }
  }
  if (p.get_int("priority") == 1 && p.get_int("sender_priority") == 0) {
    return "sender_priority: priority 1 leaves none below it for the sender; set it";
  }
  return "";
}

}  // namespace

RTGATE_SUITE(
    {.name = "ipc.wakeup",
     .tags = {"ipc", "sched"},
     .summary = "FIFO-to-FIFO wakeup latency through signals, POSIX mq, semaphores, futex, "
                "pipe, eventfd",
     .params = {ParamSpec::string("via", "all",
                                  "mechanisms, measured in turn: all, or a list of signal, pmq, "
                                  "sem, svsem, futex, pipe, eventfd"),
                ParamSpec::cpu_list("cpus", "all",
                                    "one CPU (shared) or two (sender on the first); all: the "
                                    "first two the run may use"),
                ParamSpec::integer("interval_us", 1000, 50, 1'000'000, "us",
                                   "sender's period, as pmqtest -i"),
                ParamSpec::integer("priority", 95, 1, 98, "",
                                   "receiver's FIFO priority (99 is the watchdog's)"),
                ParamSpec::integer("sender_priority", 0, 0, 98, "",
                                   "sender's FIFO priority (0: one below the receiver's)"),
                ParamSpec::integer("timeout_ms", 1000, 10, 60'000, "ms",
                                   "receiver's wait bound beyond the period; a wakeup this late "
                                   "is lost"),
                ParamSpec::integer("block_ms", 1000, 10, 3'600'000, "ms",
                                   "block length for the per-block maxima the gate compares"),
                ParamSpec::integer("drop_every", 0, 0, 1'000'000, "",
                                   "self-test: publish every Nth message without sending it, "
                                   "a lost wakeup (0: off)")},
     .needs = rtgate::Needs::kSchedFifo,
     .run = &run,
     .validate = &validate});
