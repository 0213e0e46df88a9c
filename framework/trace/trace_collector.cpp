#include "framework/trace/trace_collector.h"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string_view>

#include "framework/trace/tracefs_api.h"

namespace rtgate::trace {
namespace {

constexpr auto kDrainEvery = std::chrono::milliseconds(50);

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
  static const char* const kSystems[] = {"sched", "irq",  "irq_vectors", "timer",
                                         "lock",  "mmap_lock", "ftrace", nullptr};
  tep_handle* tep = tracefs_local_events_system(nullptr, kSystems);
  if (tep == nullptr) {
    *why = "cannot read the trace event formats";
    return nullptr;
  }
  std::unique_ptr<TraceCollector> c(new TraceCollector(session, o, tep));
  c->thread_ = std::thread([p = c.get()] { p->loop(); });
  return c;
}

TraceCollector::TraceCollector(const TraceSession& session, CollectorOptions o, tep_handle* tep)
    : session_(session), options_(o), tep_(tep), decoder_(tep) {}

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

void TraceCollector::drain() {
  tracefs_iterate_raw_events(tep_, session_.instance(), nullptr, 0, &TraceCollector::on_event,
                             this);
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
  }
  if (options_.locks) contention_.add(e);
  Cpu& cpu = cpus_[e.cpu];
  const std::optional<Marker> marker = parse_marker(e);
  cpu.history.push_back(std::move(e));
  if (marker) on_marker(*marker, cpu);
  trim(cpu);
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
SampleAnalysis* TraceCollector::smallest_crossing(Cpu& cpu) {
  auto it = std::min_element(cpu.crossings.begin(), cpu.crossings.end(),
                             [](const auto& x, const auto& y) { return x.latency_ns < y.latency_ns; });
  return it == cpu.crossings.end() ? nullptr : &*it;
}

bool TraceCollector::wants_crossing(Cpu& cpu, std::int64_t latency_ns) {
  if (!is_crossing(latency_ns)) return false;
  if (cpu.crossings.size() < static_cast<std::size_t>(options_.crossings_per_cpu)) return true;
  const SampleAnalysis* low = smallest_crossing(cpu);
  return low != nullptr && latency_ns > low->latency_ns;
}

void TraceCollector::keep_crossing(Cpu& cpu, SampleAnalysis a) {
  a.trigger = "threshold";
  if (cpu.crossings.size() < static_cast<std::size_t>(options_.crossings_per_cpu)) {
    cpu.crossings.push_back(std::move(a));
    return;
  }
  ++findings_.crossings_not_analysed;
  SampleAnalysis* low = smallest_crossing(cpu);
  if (low != nullptr && a.latency_ns > low->latency_ns) *low = std::move(a);
}

void TraceCollector::on_marker(const Marker& m, Cpu& cpu) {
  ++findings_.markers;
  const bool worst = !cpu.worst || m.latency_ns > cpu.worst->latency_ns;
  if (!worst && !m.is_break && !wants_crossing(cpu, m.latency_ns)) {
    findings_.crossings_not_analysed += is_crossing(m.latency_ns);
    return;
  }
  std::vector<const TraceEvent*> events;
  events.reserve(cpu.history.size());
  for (const TraceEvent& e : cpu.history) events.push_back(&e);
  SampleAnalysis a = analyze_sample(m, events, cpu.current_before, &policy_of_live_task);
  a.excerpt = excerpt(cpu, m);
  if (!worst) return keep_crossing(cpu, std::move(a));
  a.trigger = m.is_break ? "break" : "worst";
  // The previous worst becomes a crossing when it was one.
  if (cpu.worst && is_crossing(cpu.worst->latency_ns)) keep_crossing(cpu, std::move(*cpu.worst));
  cpu.worst = std::move(a);
}

std::string TraceCollector::excerpt(const Cpu& cpu, const Marker& m) const {
  const std::int64_t from = m.deadline_ns - options_.excerpt_before_ns;
  std::vector<const TraceEvent*> lines;
  for (auto it = cpu.history.rbegin(); it != cpu.history.rend() && it->ts >= from; ++it) {
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
    if (cpu.worst) findings_.analyses.push_back(std::move(*cpu.worst));
    for (SampleAnalysis& a : cpu.crossings) findings_.analyses.push_back(std::move(a));
    cpu.worst.reset();
    cpu.crossings.clear();
  }
  if (options_.locks) findings_.contention = contention_.result(KernelSymbols::load());
  findings_.lost = overruns(session_.instance());
  return std::move(findings_);
}

}  // namespace rtgate::trace
