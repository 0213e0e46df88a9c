// pi.inversion: a functional gate on the kernel's priority inheritance, per lock.
//
// Each round runs the classic scenario on one CPU (suites/pi_inversion/inversion_scenario.h): low
// holds the lock for `critical_us` of CPU time, high blocks on it, medium spins `spin_us`. High's
// wait is recorded per round. A lock whose PI applies to the scenario must keep every wait under 3
// x critical_us (else the suite fails: the kernel's PI futex code is broken); a lock without PI is
// a control and is expected to show the inversion (wait >= spin_us). Time the kernel under test did
// not take is not held against it (suites/pi_inversion/inversion_round.h): the host's steal inside
// low's section is subtracted, and a round the host's steal could explain otherwise is not judged
// but counted apart ("host_disturbed"); so is one whose time over the bound lies outside low's
// section on a guest that cannot see its steal (QEMU TCG: the host's time lands unseen in whatever
// the guest ran). A case with fewer than half its rounds judged is inconclusive, never a failure.
// Between rounds the suite rests as long as the round took, so the RT class never holds the CPU for
// more than about half of any second: RT throttling and the fair deadline server (which give
// SCHED_OTHER tasks their 50 ms per second only when RT tasks starve them) never cut into a round.
// A round in which high found the lock free tested nothing. A case engages when high met a held
// lock in at least 90% of its rounds; a suite with a case that did not is an error, never a pass.
// Reader/writer locks run twice: high writer vs low reader, and high reader vs low writer.
// Spinlocks are skipped: high would spin on low's CPU forever.
#include <algorithm>

#include "framework/env/cpu_steal.h"
#include "framework/measure/clock.h"
#include "framework/measure/run_context.h"
#include "framework/registry.h"
#include "framework/rt/cpu_list.h"
#include "locks/lock_selection.h"
#include "suites/pi_inversion/inversion_round.h"
#include "suites/pi_inversion/inversion_scenario.h"

namespace {

using rtgate::ParamSpec;
using rtgate::locks::LockInfo;
using rtgate::locks::LockKind;
using rtgate::locks::PiSupport;

struct Mode {
  const char* name;
  bool low_reads, high_reads;
};
constexpr Mode kExclusive{"exclusive", false, false};
constexpr Mode kHighWriter{"high_writer_low_reader", true, false};
constexpr Mode kHighReader{"high_reader_low_writer", false, true};

// Does the lock's PI cover high's wait in this mode? Writer-only PI (rwbase): a reader blocked
// on a writer boosts it, a writer waiting for readers boosts nobody.
bool pi_applies(const LockInfo& l, const Mode& m) {
  if (l.pi == PiSupport::kFull) return true;
  return l.pi == PiSupport::kWriterOnly && m.high_reads;
}

struct Outcome {
  bool failed = false, not_engaged = false, undecided = false;
  std::string error;  // the first case that could not run: not a verdict on any lock
};

// The scenario CPU's steal, read before and after each round.
std::int64_t steal_on(const rtgate::CpuSteal& steal, int cpu) {
  if (!steal.visible()) return -1;
  const rtgate::StealReading r = steal.read();
  const auto it = r.ns.find(cpu);
  return it == r.ns.end() ? -1 : it->second;
}

// Sleeps `ns`, waking early on a stop request.
void rest(std::int64_t ns, const rtgate::RunContext& ctx) {
  const std::int64_t end = rtgate::monotonic_ns() + ns;
  while (!ctx.stop_requested() && rtgate::monotonic_ns() < end) {
    rtgate::sleep_until_ns(std::min(end, rtgate::monotonic_ns() + 50'000'000));
  }
}

// What a case's rounds showed.
struct Tally {
  rtgate::LatencyHistogram waits;
  std::vector<double> per_round;
  std::uint64_t inversions = 0, boosted = 0, unblocked = 0, rounds = 0;
  std::uint64_t judged = 0, host_disturbed = 0, failing = 0;
  std::int64_t host_ns = 0;
  std::string error, first_failure, first_host;
};

// One round judged against PI's bound (judge_pi_round), with the CPU's steal around it.
void judge_round(const rtgate::rt::InversionResult& r, std::int64_t bound, std::int64_t steal0,
                 std::int64_t steal1, Tally& t) {
  const auto j =
      rtgate::rt::judge_pi_round(r, bound, steal0 >= 0 && steal1 >= 0 ? steal1 - steal0 : -1);
  t.host_ns += j.host_ns;
  if (j.call == rtgate::rt::RoundCall::kHost) {
    ++t.host_disturbed;
    if (t.first_host.empty()) t.first_host = j.why;
  } else {
    ++t.judged;
  }
  if (rtgate::rt::failing(j.call)) {
    ++t.failing;
    if (t.first_failure.empty()) t.first_failure = j.why;
  }
}

Tally run_rounds(const rtgate::rt::InversionSetup& s, bool expect_pi, const rtgate::Params& p,
                 rtgate::RunContext& ctx, const rtgate::CpuSteal& steal, rtgate::LiveStats& live) {
  const int cpu = s.cpu >= 0 ? s.cpu : rtgate::rt::allowed_cpus().back();
  const std::int64_t bound = 3 * s.critical_ns;
  Tally t;
  for (std::int64_t round = 0; round < p.get_int("rounds") && !ctx.stop_requested(); ++round) {
    const std::int64_t steal0 = steal_on(steal, cpu), t0 = rtgate::monotonic_ns();
    const rtgate::rt::InversionResult r = rtgate::rt::run_inversion(s);
    const std::int64_t took = rtgate::monotonic_ns() - t0, steal1 = steal_on(steal, cpu);
    if (!r.error.empty()) {
      t.error = r.error;
      break;
    }
    ++t.rounds;
    rest(took, ctx);
    if (!r.contended) {
      ++t.unblocked;  // high never waited: nothing was tested in this round
      continue;
    }
    if (expect_pi) judge_round(r, bound, steal0, steal1, t);
    t.waits.record(r.high_wait_ns);
    t.per_round.push_back(static_cast<double>(r.high_wait_ns));
    t.inversions += r.high_wait_ns >= s.spin_ns ? 1 : 0;
    t.boosted += r.high_seen_blocked && r.low_prio_while_blocked == r.high_prio_reported ? 1 : 0;
    live.publish(static_cast<std::uint64_t>(round + 1), static_cast<std::int64_t>(t.waits.max()));
  }
  live.done = true;
  return t;
}

// The case's verdict label, and what it means for the suite.
std::string verdict_of(const Tally& t, bool expect_pi, Outcome* out) {
  // 90%: one round lost to a stall of the conductor is not a broken scenario; more is.
  const bool engaged = t.rounds > 0 && 10 * t.waits.count() >= 9 * t.rounds;
  if (!t.error.empty()) {
    if (out->error.empty()) out->error = t.error;
    return "error: " + t.error;
  }
  if (!engaged) {
    out->not_engaged = true;
    return "not engaged: high found the lock free in " + std::to_string(t.unblocked) + " of " +
           std::to_string(t.rounds) + " rounds";
  }
  if (expect_pi && t.failing > 0) {
    out->failed = true;
    return "FAIL: inversion despite PI in " + std::to_string(t.failing) + " of " +
           std::to_string(t.judged) + " judged rounds (" + t.first_failure + ")";
  }
  if (expect_pi && 2 * t.judged < t.waits.count()) {
    out->undecided = true;
    return "inconclusive: host steal: " + std::to_string(t.host_disturbed) + " of " +
           std::to_string(t.waits.count()) + " rounds not judged (" + t.first_host + ")";
  }
  if (expect_pi) {
    return "pass: bounded by the critical section" +
           (t.host_disturbed > 0
                ? " in " + std::to_string(t.judged) + " judged rounds (" +
                      std::to_string(t.host_disturbed) + " not judged: the host's time)"
                : std::string());
  }
  return t.inversions == t.waits.count() && t.waits.count() > 0
             ? "control: inversion shown, as expected without PI"
             : "control: inversion NOT shown in every round (unexpected)";
}

rtgate::Case run_case(const LockInfo& info, const Mode& mode, const rtgate::Params& p,
                      rtgate::RunContext& ctx, const rtgate::CpuSteal& steal, Outcome* out) {
  const bool expect_pi = pi_applies(info, mode);
  auto lock = info.make();
  rtgate::rt::InversionSetup s;
  s.cpu = static_cast<int>(p.get_int("cpu"));
  s.low_prio = static_cast<int>(p.get_int("low_prio"));
  s.mid_prio = static_cast<int>(p.get_int("mid_prio"));
  s.high_prio = static_cast<int>(p.get_int("high_prio"));
  s.critical_ns = p.get_int("critical_us") * 1000;
  s.spin_ns = p.get_int("spin_us") * 1000;
  s.low_acquire = [&] { mode.low_reads ? lock->lock_shared() : lock->lock(); };
  s.low_release = [&] { mode.low_reads ? lock->unlock_shared() : lock->unlock(); };
  s.high_acquire = [&] { mode.high_reads ? lock->lock_shared() : lock->lock(); };
  s.high_release = [&] { mode.high_reads ? lock->unlock_shared() : lock->unlock(); };
  rtgate::LiveStats& live = ctx.track(info.name + "/" + mode.name);
  live.tid.store(0);
  Tally t = run_rounds(s, expect_pi, p, ctx, steal, live);

  rtgate::Case c;
  c.name = info.name + "/" + mode.name;
  c.labels = {{"lock", info.name},
              {"mode", mode.name},
              {"pi", rtgate::locks::to_string(info.pi)},
              {"expect", expect_pi ? "bounded" : "inversion"},
              {"verdict", verdict_of(t, expect_pi, out)},
              {"thread_class", "rt"}};
  const auto rounds = [](std::uint64_t n) { return static_cast<double>(n); };
  using rtgate::Metric;
  c.metrics.push_back(Metric::latency("high_wait", std::move(t.waits), std::move(t.per_round)));
  c.metrics.push_back(
      Metric::count("inversions", rounds(t.inversions), "rounds", Metric::Gating::kReported));
  c.metrics.push_back(
      Metric::count("boosted", rounds(t.boosted), "rounds", Metric::Gating::kReported));
  c.metrics.push_back(Metric::count("high_never_blocked", rounds(t.unblocked), "rounds",
                                    Metric::Gating::kReported));
  c.metrics.push_back(Metric::count("host_disturbed", rounds(t.host_disturbed), "rounds",
                                    Metric::Gating::kReported));
  c.metrics.push_back(Metric::count("host_steal_ms", static_cast<double>(t.host_ns) / 1e6, "ms",
                                    Metric::Gating::kReported));
  return c;
}

rtgate::SuiteResult run(const rtgate::Params& p, rtgate::RunContext& ctx) {
  if (rtgate::rt::allowed_cpus().size() < 2) {
    return rtgate::SuiteResult::ended(
        rtgate::SuiteStatus::kSkipped,
        "needs two CPUs (one for the scenario, one for the conductor); this process may use one");
  }
  rtgate::SuiteResult result;
  const auto sel = rtgate::locks::select_locks(p.get_string("locks"));
  Outcome out;
  const rtgate::CpuSteal steal;
  std::string skipped;
  for (const LockInfo* l : sel.locks) {
    if (l->kind == LockKind::kSpin) {
      skipped += (skipped.empty() ? "" : ", ") + l->name;
      continue;
    }
    const std::vector<Mode> modes = l->kind == LockKind::kRw
                                        ? std::vector<Mode>{kHighWriter, kHighReader}
                                        : std::vector<Mode>{kExclusive};
    for (const Mode& m : modes) {
      if (ctx.stop_requested()) break;
      result.cases.push_back(run_case(*l, m, p, ctx, steal, &out));
    }
  }
  if (out.failed) {
    result.status = rtgate::SuiteStatus::kFailed;
    result.reason = "a PI lock showed priority inversion (see the cases' verdict labels)";
  } else if (!out.error.empty()) {
    result.status = rtgate::SuiteStatus::kError;
    result.reason = "a case could not run: " + out.error + " (see the cases' verdict labels)";
  } else if (out.not_engaged) {
    result.status = rtgate::SuiteStatus::kError;
    result.reason =
        "the scenario did not engage: high found the lock free in too many rounds, so nothing "
        "was tested (see the cases' verdict labels)";
  } else if (out.undecided) {
    result.status = rtgate::SuiteStatus::kInconclusive;
    result.reason = "host steal: too few rounds the host left alone to judge (steal from " +
                    steal.describe() + "; see the cases' verdict labels)";
  }
  if (!skipped.empty()) {
    result.reason += std::string(result.reason.empty() ? "" : "; ") + "spinlocks skipped (" +
                     skipped + "): high would spin on low's CPU forever";
  }
  return result;
}

std::string validate(const rtgate::Params& p) {
  if (const auto sel = rtgate::locks::select_locks(p.get_string("locks")); !sel.error.empty()) {
    return sel.error;
  }
  const auto low = p.get_int("low_prio"), mid = p.get_int("mid_prio"),
             high = p.get_int("high_prio");
  if (!(low < mid && mid < high)) return "priorities must satisfy low_prio < mid_prio < high_prio";
  if (p.get_int("spin_us") < 2 * p.get_int("critical_us")) {
    return "spin_us must be at least 2 x critical_us, or inversion and PI cannot be told apart";
  }
  return "";
}

}  // namespace

RTGATE_SUITE({.name = "pi.inversion",
              .tags = {"pi", "lock", "rt"},
              .summary = "priority inversion per lock: PI locks must bound high's wait, controls "
                         "must show inversion",
              .params = {ParamSpec::string("locks", "all",
                                           "locks to test: all, or names from `rtgate locks`"),
                         ParamSpec::integer("rounds", 10, 1, 100000, "", "scenarios per lock"),
                         ParamSpec::integer("critical_us", 5000, 100, 1'000'000, "us",
                                            "low's CPU time inside the lock"),
                         ParamSpec::integer("spin_us", 50000, 200, 5'000'000, "us",
                                            "medium's busy loop while high waits"),
                         ParamSpec::integer("cpu", -1, -1, 4095, "",
                                            "CPU for the three threads (-1: the last one)"),
                         ParamSpec::integer("low_prio", 10, 1, 96, "", "low's FIFO priority"),
                         ParamSpec::integer("mid_prio", 20, 2, 97, "", "medium's FIFO priority"),
                         ParamSpec::integer("high_prio", 30, 3, 97, "",
                                            "high's FIFO priority (the conductor runs one above)")},
              .needs = rtgate::Needs::kSchedFifo,
              .run = &run,
              .validate = &validate,
              .fixed_work = true});
