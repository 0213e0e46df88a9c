#include "framework/trace/trace_collector.h"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <string_view>

#include "framework/trace/cause_profile.h"
#include "framework/trace/sample_analysis.h"
#include "framework/trace/tracefs_api.h"

namespace rtgate::trace {
namespace {

constexpr auto kDrainEvery = std::chrono::milliseconds(50);
// Steal readings kept: a sample is analysed in the drain after its marker, so only the readings
// back to its deadline are looked at; 64 drains are over 3 s.
constexpr std::size_t kStealReadsKept = 64;

std::int64_t monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

// The steal source is picked once per process: picking reads the kernel's config.
const CpuSteal& cpu_steal() {
  static const CpuSteal steal;
  return steal;
}

bool same_sample(const SampleAnalysis& a, const std::optional<SampleAnalysis>& b) {
  return b && a.tid == b->tid && a.deadline_ns == b->deadline_ns;
}

// Events lost to overwrite: "overrun: N" in each CPU's stats file.
std::uint64_t overruns(tracefs_instance* inst) {
  std::uint64_t lost = 0;
  for (int cpu = 0; cpu < 4096; ++cpu) {
    const std::string file = "per_cpu/cpu" + std::to_string(cpu) + "/stats";
    int size = 0;
    char* text = tracefs_instance_file_read(inst, file.c_str(), &size);
    if (text == nullptr) break;
    const std::string_view t(text, static_cast<std::size_t>(size));
    if (const std::size_t at = t.find("overrun: "); at != std::string_view::npos) {
      lost += std::strtoull(text + at + 9, nullptr, 10);
    }
    free(text);
  }
  return lost;
}

}  // namespace

std::unique_ptr<TraceCollector> TraceCollector::start(const TraceSession& session,
                                                      CollectorOptions o, std::string* why) {
  static const char* const kSystems[] = {"sched", "irq",       "irq_vectors", "timer",
                                         "lock",  "mmap_lock", "ftrace",      nullptr};
  tep_handle* tep = tracefs_local_events_system(nullptr, kSystems);
  if (tep == nullptr) {
    *why = "cannot read the trace event formats";
    return nullptr;
  }
  std::unique_ptr<TraceCollector> c(new TraceCollector(session, std::move(o), tep));
  c->thread_ = std::thread([p = c.get()] { p->loop(); });
  return c;
}

TraceCollector::TraceCollector(const TraceSession& session, CollectorOptions o, tep_handle* tep)
    : session_(session), options_(std::move(o)), tep_(tep), decoder_(tep) {
  read_steal();  // before any sample's deadline: every window has a reading to start from
}

TraceCollector::~TraceCollector() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  tep_free(tep_);
}

void TraceCollector::loop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    drain();
    lock.lock();
    wake_.wait_for(lock, kDrainEvery, [&] { return stopping_; });
  }
}

// The markers of a drain are analysed after the steal reading that follows it, so that each
// sample's window ends with a reading taken after its marker.
void TraceCollector::drain() {
  tracefs_iterate_raw_events(tep_, session_.instance(), nullptr, 0, &TraceCollector::on_event,
                             this);
  read_steal();
  for (auto& [n, cpu] : cpus_) {
    cpu.analysed_this_drain = 0;
    for (const Marker& m : cpu.pending) on_marker(n, cpu, m);
    cpu.pending.clear();
    if (!cpu.history.empty()) trim(cpu);
  }
}

void TraceCollector::read_steal() {
  StealRead r;
  r.begin_ns = monotonic_ns();
  r.steal = cpu_steal().read();
  r.end_ns = monotonic_ns();
  if (!r.steal.source.empty()) findings_.steal_source = r.steal.source;
  steal_reads_.push_back(std::move(r));
  if (steal_reads_.size() > kStealReadsKept) steal_reads_.pop_front();
}

// The steal between the last reading finished by `from_ns` and the first begun after `to_ns`:
// what the CPU lost to the host in a window that encloses [from_ns, to_ns].
WindowSteal TraceCollector::window_steal(int cpu, std::int64_t from_ns, std::int64_t to_ns) const {
  const StealRead* before = nullptr;
  const StealRead* after = nullptr;
  for (const StealRead& r : steal_reads_) {
    if (r.end_ns <= from_ns) before = &r;
    if (r.begin_ns >= to_ns && after == nullptr) after = &r;
  }
  if (before == nullptr || after == nullptr) return {};
  const auto b = before->steal.ns.find(cpu), a = after->steal.ns.find(cpu);
  if (b == before->steal.ns.end() || a == after->steal.ns.end()) return {};
  return {.ns = std::max<std::int64_t>(0, a->second - b->second),
          .window_ns = after->end_ns - before->begin_ns};
}

int TraceCollector::on_event(tep_event* event, tep_record* record, int cpu, void* self) {
  auto* c = static_cast<TraceCollector*>(self);
  std::optional<TraceEvent> e = c->decoder_.decode(event, record, cpu, true);
  ++c->findings_.events;
  if (e) c->add(std::move(*e));
  return 0;
}

void TraceCollector::add(TraceEvent e) {
  if (e.type == Ev::kSwitch) {
    for (auto [pid, comm] : {std::pair{e.pid, &e.comm}, std::pair{e.pid2, &e.comm2}}) {
      if (pid > 0 && comms_registered_.insert(pid).second) {
        tep_register_comm(tep_, comm->c_str(), pid);
      }
    }
    for (auto [pid, prio] : {std::pair{e.pid, e.prio}, std::pair{e.pid2, e.prio2}}) {
      if (pid <= 0 || prio < 0 || prio >= 100) continue;
      if (auto [it, fresh] = rt_policies_.try_emplace(pid); fresh) {
        it->second = policy_of_live_task(pid);
      }
    }
  }
  if (options_.locks) contention_.add(e);
  cfs_while_rt_.add(e);
  Cpu& cpu = cpus_[e.cpu];
  if (std::optional<Marker> marker = parse_marker(e)) cpu.pending.push_back(*marker);
  cpu.history.push_back(std::move(e));
}

void TraceCollector::trim(Cpu& cpu) {
  const std::int64_t newest = cpu.history.back().ts;
  while (cpu.history.size() > options_.history_cap ||
         (!cpu.history.empty() && cpu.history.front().ts < newest - options_.history_ns)) {
    const TraceEvent& old = cpu.history.front();
    if (old.type == Ev::kSwitch) cpu.current_before = old.pid2;
    cpu.history.pop_front();
  }
}

bool TraceCollector::is_crossing(std::int64_t latency_ns) const {
  return options_.threshold_ns > 0 && latency_ns >= options_.threshold_ns;
}

// The crossings kept are the largest ones: when full, a larger one replaces the smallest.
// What a kept crossing stands for: the task that delayed the thread, else its largest part.
std::string TraceCollector::cause_of(const SampleAnalysis& a) {
  if (a.delayed_by) return task_label(*a.delayed_by);
  return a.parts.empty() ? "" : a.parts.front().kind + " " + a.parts.front().name;
}

bool TraceCollector::wants_crossing(Cpu& cpu, std::int64_t latency_ns) {
  if (!is_crossing(latency_ns)) return false;
  // Every crossing is analysed, up to a budget per drain: which to keep depends on its cause,
  // which only the analysis knows.
  return cpu.analysed_this_drain < options_.crossings_per_cpu * 2;
}

// Kept crossings are the largest, but never at the price of the only one of a cause: a FIFO hog's
// 2 ms crossings must not all be displaced by a few longer ones of another task, or the analysis
// would never name the hog.
void TraceCollector::keep_crossing(Cpu& cpu, SampleAnalysis a) {
  a.trigger = "threshold";
  if (cpu.crossings.size() < static_cast<std::size_t>(options_.crossings_per_cpu)) {
    cpu.crossings.push_back(std::move(a));
    return;
  }
  ++findings_.crossings_not_analysed;
  std::map<std::string, int> per_cause;
  for (const SampleAnalysis& k : cpu.crossings) ++per_cause[cause_of(k)];
  const std::string cause = cause_of(a);
  const bool new_cause = per_cause.find(cause) == per_cause.end();
  SampleAnalysis* victim = nullptr;
  for (SampleAnalysis& k : cpu.crossings) {
    const std::string c = cause_of(k);
    // A new cause may displace any crossing of a cause kept more than once; a known cause only
    // a smaller crossing of its own or of such a cause.
    const bool may = per_cause[c] > 1 || (!new_cause && c == cause);
    if (!may || (!new_cause && k.latency_ns >= a.latency_ns)) continue;
    if (victim == nullptr || k.latency_ns < victim->latency_ns) victim = &k;
  }
  if (victim != nullptr) *victim = std::move(a);
}

std::int64_t TraceCollector::guest_floor(const Cpu& cpu) {
  return cpu.guest ? cpu.guest->guest_latency_ns() : -1;
}

// A sample no longer held as the worst or the guest worst stays as a crossing when it is one.
void TraceCollector::retire(Cpu& cpu, std::optional<SampleAnalysis> displaced) {
  if (!displaced || !is_crossing(displaced->latency_ns)) return;
  if (same_sample(*displaced, cpu.worst) || same_sample(*displaced, cpu.guest)) return;
  keep_crossing(cpu, std::move(*displaced));
}

void TraceCollector::on_marker(int n, Cpu& cpu, const Marker& m) {
  ++findings_.markers;
  const bool worst = !cpu.worst || m.latency_ns > cpu.worst->latency_ns;
  // Host time only ever lowers a sample's guest latency: one at or below the guest worst's
  // cannot replace it.
  const bool maybe_guest = m.latency_ns > guest_floor(cpu);
  if (!worst && !m.is_break && !maybe_guest && !wants_crossing(cpu, m.latency_ns)) {
    if (is_crossing(m.latency_ns)) {
      ++findings_.crossings_not_analysed;
      profile(m.thread).skipped();
    }
    return;
  }
  ++cpu.analysed_this_drain;
  std::vector<const TraceEvent*> events;
  events.reserve(cpu.history.size());
  for (const TraceEvent& e : cpu.history) {
    if (e.ts > m.ts) break;
    events.push_back(&e);
  }
  const PolicyOf policy_of = [this](pid_t pid) {
    std::string policy = policy_of_live_task(pid);
    if (const auto seen = rt_policies_.find(pid); policy.empty() && seen != rt_policies_.end()) {
      policy = seen->second;
    }
    return policy;
  };
  SampleAnalysis a = analyze_sample(m, events, cpu.current_before, policy_of,
                                    window_steal(n, m.deadline_ns, m.ts));
  a.excerpt = excerpt(cpu, m);
  profile(m.thread).add(a);
  a.trigger = !worst ? "threshold" : m.is_break ? "break" : "worst";
  const bool guest_worst = a.guest_latency_ns() > guest_floor(cpu);
  std::optional<SampleAnalysis> displaced_guest, displaced_worst;
  if (guest_worst) {
    displaced_guest = std::move(cpu.guest);
    cpu.guest = a;
    cpu.guest->trigger = "guest_worst";
  }
  if (worst) {
    displaced_worst = std::move(cpu.worst);
    cpu.worst = std::move(a);
  } else if (!guest_worst && is_crossing(a.latency_ns)) {
    keep_crossing(cpu, std::move(a));
  }
  retire(cpu, std::move(displaced_worst));
  retire(cpu, std::move(displaced_guest));
  if (guest_worst && options_.lower_mark_floor) options_.lower_mark_floor(n, guest_floor(cpu));
}

CauseProfileBuilder& TraceCollector::profile(const std::string& thread) {
  return profiles_.try_emplace(thread, options_.threshold_ns).first->second;
}

std::string TraceCollector::excerpt(const Cpu& cpu, const Marker& m) const {
  const std::int64_t from = m.deadline_ns - options_.excerpt_before_ns;
  std::vector<const TraceEvent*> lines;
  for (auto it = cpu.history.rbegin(); it != cpu.history.rend() && it->ts >= from; ++it) {
    if (it->ts > m.ts) continue;  // read in the same drain, after the marker
    lines.push_back(&*it);
    if (lines.size() == options_.excerpt_lines) break;
  }
  std::string out;
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    out += decoder_.format(**it);
    out += '\n';
  }
  return out;
}

TraceFindings TraceCollector::finish() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  drain();  // what arrived after the last look
  for (auto& [n, cpu] : cpus_) {
    const bool guest_apart = cpu.guest && cpu.worst && !same_sample(*cpu.guest, cpu.worst);
    if (cpu.worst) findings_.analyses.push_back(std::move(*cpu.worst));
    if (guest_apart) findings_.analyses.push_back(std::move(*cpu.guest));
    for (SampleAnalysis& a : cpu.crossings) findings_.analyses.push_back(std::move(a));
    cpu.worst.reset();
    cpu.guest.reset();
    cpu.crossings.clear();
  }
  findings_.cfs_while_rt_runnable_ns = cfs_while_rt_.result();
  for (const auto& [thread, builder] : profiles_) findings_.profiles[thread] = builder.result();
  if (options_.locks) findings_.contention = contention_.result(KernelSymbols::load());
  findings_.lost = overruns(session_.instance());
  return std::move(findings_);
}

}  // namespace rtgate::trace
