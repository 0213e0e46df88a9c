#include "framework/trace/kernel_tracer.h"

#include <traceevent/event-parse.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "framework/measure/clock.h"
#include "framework/rt/cpu_list.h"
#include "framework/trace/tracefs_api.h"

namespace rtgate::trace {
namespace {

// A top-level tracefs file as text, without its trailing newlines; nullopt when unreadable.
std::optional<std::string> read_top(const std::string& file) {
  int size = 0;
  char* text = tracefs_instance_file_read(nullptr, file.c_str(), &size);
  if (text == nullptr) return std::nullopt;
  std::string out(text, static_cast<std::size_t>(std::max(size, 0)));
  free(text);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

bool write_top(const std::string& file, const std::string& value) {
  return tracefs_instance_file_write(nullptr, file.c_str(), value.c_str()) >= 0;
}

bool has_word(std::string_view list, std::string_view word) {
  std::size_t at = 0;
  while (at < list.size()) {
    const std::size_t end = std::min(list.find_first_of(" \n", at), list.size());
    if (list.substr(at, end - at) == word) return true;
    at = end + 1;
  }
  return false;
}

// A knob that offers choices reads "none [round-robin] per-cpu": the one in brackets is its value.
std::string current_choice(const std::string& text) {
  const std::size_t open = text.find('[');
  const std::size_t close = text.find(']', open);
  if (open == std::string::npos || close == std::string::npos) return text;
  return text.substr(open + 1, close - open - 1);
}

// Puts saved knob values back, the last written first.
void write_back(const std::vector<std::pair<std::string, std::string>>& saved) {
  for (auto it = saved.rbegin(); it != saved.rend(); ++it) write_top(it->first, it->second);
}

int collect_name(const char* name, void* out) {
  static_cast<std::vector<std::string>*>(out)->push_back(name);
  return 0;
}

}  // namespace

std::vector<std::string> instances_running(const std::vector<std::string>& tracers,
                                           const std::string& except) {
  std::vector<std::string> names = {""};
  tracefs_instances_walk(&collect_name, &names);
  std::vector<std::string> out;
  for (const std::string& name : names) {
    if (!name.empty() && name == except) continue;
    const auto tracer =
        read_top(name.empty() ? "current_tracer" : "instances/" + name + "/current_tracer");
    if (tracer && std::find(tracers.begin(), tracers.end(), *tracer) != tracers.end()) {
      out.push_back((name.empty() ? "(top level)" : name) + ": " + *tracer);
    }
  }
  return out;
}

std::optional<std::string> KernelTracer::read_global(const std::string& file) {
  return read_top(file);
}

std::string KernelTracer::unavailable(const std::string& tracer, const std::string& config_option) {
  if (geteuid() != 0) return "the " + tracer + " tracer needs root (tracefs)";
  if (tracefs_tracing_dir() == nullptr) {  // mounts tracefs when it is not mounted
    return "tracefs is not mounted and could not be mounted";
  }
  const std::optional<std::string> tracers = read_top("available_tracers");
  if (!tracers) return "cannot read the kernel's available_tracers";
  if (!has_word(*tracers, tracer)) {
    return "the kernel has no " + tracer + " tracer (" + config_option + ")";
  }
  return "";
}

std::unique_ptr<KernelTracer> KernelTracer::start(const KernelTracerConfig& config,
                                                  std::string* why) {
  auto fail = [&](std::string w) {
    *why = std::move(w);
    return nullptr;
  };
  std::unique_ptr<KernelTracer> t(new KernelTracer());
  TraceConfig tc;
  tc.cpus = config.cpus;
  tc.buffer_kb = config.buffer_kb;
  tc.events = {};  // the tracer writes its own events into the instance
  t->session_ = TraceSession::start(tc, why);
  if (!t->session_) return nullptr;
  // From here on every return destroys `t`: tracer stopped, knobs restored, instance removed.
  static const char* const kSystems[] = {"ftrace", nullptr};
  t->tep_ = tracefs_local_events_system(nullptr, kSystems);
  if (t->tep_ == nullptr) return fail("cannot read the trace event formats");
  tep_event* event = tep_find_event_by_name(t->tep_, "ftrace", config.event.c_str());
  if (event == nullptr) return fail("the kernel has no ftrace:" + config.event + " event");
  t->event_id_ = event->id;
  for (const std::string& f : config.fields) {
    tep_format_field* field = tep_find_field(event, f.c_str());
    if (field == nullptr) return fail("ftrace:" + config.event + " has no field " + f);
    t->fields_.push_back(field);
  }
  t->scratch_.values.resize(t->fields_.size());

  std::vector<std::pair<std::string, std::string>> knobs = config.knobs;
  if (config.cpus_knob && !config.cpus.empty())
    knobs.insert(knobs.begin(), {"cpus", text::format_cpu_list(config.cpus)});
  if (!t->write_knobs(knobs, config.knob_dir, t->saved_, why)) return nullptr;
  if (tracefs_instance_file_write(t->session_->instance(), "current_tracer",
                                  config.tracer.c_str()) < 0) {
    const int err = errno;
    // The kernel runs timerlat and osnoise one at a time (in any number of instances), and
    // hwlat in one instance at a time.
    const std::string other = config.tracer == "timerlat"  ? "osnoise"
                              : config.tracer == "osnoise" ? "timerlat"
                                                           : config.tracer;
    const std::vector<std::string> busy = instances_running({other}, t->session_->name());
    std::string list;
    for (const std::string& b : busy) list += (list.empty() ? "" : ", ") + b;
    if (!busy.empty()) {
      return fail("the " + config.tracer + " tracer cannot start while " + other +
                  " runs (tracefs instance " + list + "; the kernel runs " +
                  (other == config.tracer ? "it in one instance" : "one of the two") +
                  " at a time)");
    }
    return fail("cannot start the " + config.tracer + " tracer: " + std::strerror(err));
  }
  t->tracer_set_ = true;
  if (!t->write_knobs(config.running_knobs, config.knob_dir, t->saved_running_, why)) {
    return nullptr;
  }
  return t;
}

bool KernelTracer::write_knobs(const std::vector<std::pair<std::string, std::string>>& knobs,
                               const std::string& dir,
                               std::vector<std::pair<std::string, std::string>>& saved,
                               std::string* why) {
  for (const auto& [knob, value] : knobs) {
    const std::string file = dir.empty() ? knob : dir + "/" + knob;
    const std::optional<std::string> old = read_top(file);
    if (!old) {
      *why = "the kernel has no " + file;
      return false;
    }
    saved.emplace_back(file, current_choice(*old));
    if (!write_top(file, value)) {
      *why = "cannot write " + value + " to " + file + ": " + std::strerror(errno);
      return false;
    }
    written_.emplace_back(file, value);
  }
  return true;
}

// As rtla ends its tracer: current_tracer=nop (which stops the kernel threads) with tracing still
// on, never tracing_on=0 first (that stops them through the tracer's stop hook, then nop resets
// it again).
void KernelTracer::stop_tracer() {
  if (!tracer_set_) return;
  // The running knobs first: the tracer's reset keeps what they hold now.
  write_back(saved_running_);
  saved_running_.clear();
  tracefs_instance_file_write(session_->instance(), "current_tracer", "nop");
  tracer_set_ = false;
}

KernelTracer::~KernelTracer() {
  if (session_) stop_tracer();
  // Restored in reverse order of writing, once the tracer's threads are gone (a write to
  // osnoise/cpus while the tracer runs restarts its threads).
  write_back(saved_);
  if (tep_ != nullptr) tep_free(tep_);
  // session_ (the instance) goes last, as a member.
}

int KernelTracer::on_event(tep_event* event, tep_record* record, int cpu, void* self) {
  auto* t = static_cast<KernelTracer*>(self);
  if (event->id != t->event_id_) return 0;
  TracerSample& s = t->scratch_;
  s.cpu = cpu;
  s.ts = static_cast<std::int64_t>(record->ts);
  for (std::size_t i = 0; i < t->fields_.size(); ++i) {
    unsigned long long v = 0;
    s.values[i] = tep_read_number_field(t->fields_[i], record->data, &v) == 0 ? v : 0;
  }
  (*t->sink_)(s);
  return 0;
}

void KernelTracer::drain(const Sink& sink) {
  sink_ = &sink;
  tracefs_iterate_raw_events(tep_, session_->instance(), nullptr, 0, &KernelTracer::on_event, this);
  sink_ = nullptr;
}

void KernelTracer::collect_until(std::int64_t end_ns, const std::function<bool()>& stop,
                                 const Sink& sink, std::int64_t every_ns) {
  for (std::int64_t now = monotonic_ns(); now < end_ns && !stop(); now = monotonic_ns()) {
    sleep_until_ns(std::min(end_ns, now + every_ns));
    drain(sink);
  }
  check_disturbances();
  // What the buffers hold, then the tracer stopped (setting nop clears the buffers: the events
  // of the last moments between the two are lost).
  drain(sink);
  stop_tracer();
}

void KernelTracer::check_disturbances() {
  // The last value written to each knob is the one the run should have had.
  std::vector<std::pair<std::string, std::string>> last;
  for (const auto& w : written_) {
    auto it =
        std::find_if(last.begin(), last.end(), [&](const auto& l) { return l.first == w.first; });
    if (it == last.end()) {
      last.push_back(w);
    } else {
      it->second = w.second;
    }
  }
  for (const auto& [file, value] : last) {
    const std::optional<std::string> now = read_top(file);
    if (now && *now != value) {
      disturbances_.push_back(file + " was changed to " + *now + " during the run (rtgate set " +
                              value + "): another user of the tracer");
    }
  }
  for (const std::string& h : instances_running({"hwlat"}, session_->name())) {
    disturbances_.push_back("the hwlat tracer ran beside this one (tracefs instance " + h + ")");
  }
}

std::uint64_t KernelTracer::lost(int cpu) const {
  const std::string file = "per_cpu/cpu" + std::to_string(cpu) + "/stats";
  int size = 0;
  char* text = tracefs_instance_file_read(session_->instance(), file.c_str(), &size);
  if (text == nullptr) return 0;
  const std::string_view t(text, static_cast<std::size_t>(std::max(size, 0)));
  std::uint64_t n = 0;
  if (const std::size_t at = t.find("overrun: "); at != std::string_view::npos) {
    n = std::strtoull(text + at + 9, nullptr, 10);
  }
  free(text);
  return n;
}

Case KernelTracer::cpu_case(int cpu, const std::string& thread_class) const {
  Case c;
  c.name = "cpu" + std::to_string(cpu);
  c.labels = {{"cpu", std::to_string(cpu)}, {"thread_class", thread_class}};
  c.contaminated_reasons = disturbances_;
  // Events the ring buffer overwrote before rtgate read them: the health of the measurement,
  // not the kernel's behaviour, so reported and never judged.
  c.metrics.push_back(Metric::count("lost_events", static_cast<double>(lost(cpu)), "events",
                                    Metric::Gating::kReported));
  return c;
}

void error_if_silent(SuiteResult& result, const std::string& tracer, int cpu, bool silent) {
  if (!silent || result.status != SuiteStatus::kPassed) return;
  result.status = SuiteStatus::kError;
  result.reason = "no " + tracer + " event from CPU " + std::to_string(cpu) + " in the run";
}

}  // namespace rtgate::trace
