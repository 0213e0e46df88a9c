// KernelTracer: one of the kernel's own latency tracers (timerlat, osnoise), as rtla runs them,
// in a private tracefs instance, its events read raw through libtracefs.
//
// The instance is a TraceSession ("rtgate-<pid>-<n>", "mono" clock, the traced CPUs as its
// cpumask, no events of its own), so it is removed on every exit path as --trace's is, a reaper
// included. The tracer's knobs are not per instance: osnoise/{cpus, period_us, runtime_us,
// timerlat_period_us, stop_tracing_*} are global to the kernel (shared by every instance that
// runs either tracer, rtla's too). start() saves the old value of every knob it writes, and the
// destructor, after the tracer is stopped (current_tracer=nop ends the kernel threads), writes
// them back: every return, exception and SIGINT (the runner unwinds) restores them. A SIGKILL
// does not: the reaper removes the instance, which stops the tracer, but the knobs keep rtgate's
// values until someone writes them.
//
// Sharing: the kernel lets several instances run the same one of these tracers at once (their
// threads and knobs are shared, each instance gets every sample), but never timerlat beside
// osnoise; start() then fails with the kernel's EBUSY, said as such.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "framework/measure/clock.h"
#include "framework/measure/run_context.h"
#include "framework/trace/trace_session.h"
#include "results/report.h"

struct tep_handle;
struct tep_event;
struct tep_record;
struct tep_format_field;

namespace rtgate::trace {

struct KernelTracerConfig {
  std::string tracer;  // "timerlat", "osnoise", "hwlat"
  std::vector<int> cpus;
  // <knob_dir>/<knob> = value, written in this order before the tracer starts (with cpus_knob,
  // <knob_dir>/cpus is written first, from `cpus`).
  std::vector<std::pair<std::string, std::string>> knobs;
  // The event read back ("ftrace:<event>") and the fields delivered, in this order.
  std::string event;
  std::vector<std::string> fields;
  int buffer_kb = 4096;  // per CPU
  // Where the knobs are, under tracefs ("" = its top: hwlat's knobs are hwlat_detector/* and
  // the top-level tracing_thresh).
  std::string knob_dir = "osnoise";
  // Whether the tracer takes its CPUs from <knob_dir>/cpus (osnoise, timerlat) rather than only
  // from the instance's cpumask (hwlat).
  bool cpus_knob = true;
  // Knobs written once the tracer runs, and put back before it stops: those its start and
  // reset swap (hwlat's tracing_thresh, whose last running value it keeps for the next user).
  std::vector<std::pair<std::string, std::string>> running_knobs;
};

// One event: its CPU, CLOCK_MONOTONIC time stamp and the configured fields' values.
struct TracerSample {
  int cpu = 0;
  std::int64_t ts = 0;
  std::vector<std::uint64_t> values;
};

class KernelTracer {
 public:
  // "" when `tracer` can run here; else why not, one line: not root, no tracefs, or "the kernel
  // has no <tracer> tracer (<config_option>)". Creates nothing.
  static std::string unavailable(const std::string& tracer, const std::string& config_option);
  // A file at tracefs' top (a global knob such as tracing_thresh), without trailing newlines;
  // nullopt when unreadable.
  static std::optional<std::string> read_global(const std::string& file);

  // The tracer running in its own instance, or nullptr and `why`.
  static std::unique_ptr<KernelTracer> start(const KernelTracerConfig& config, std::string* why);
  ~KernelTracer();  // the tracer stopped, the knobs restored, then the instance removed
  KernelTracer(const KernelTracer&) = delete;
  KernelTracer& operator=(const KernelTracer&) = delete;

  // Hands every event now in the buffers to `sink` (consumed: each is read once).
  using Sink = std::function<void(const TracerSample&)>;
  void drain(const Sink& sink);
  // Reads until `end_ns` (CLOCK_MONOTONIC) or `stop`, every `every_ns`; then reads what is left
  // and stops the tracer.
  void collect_until(std::int64_t end_ns, const std::function<bool()>& stop, const Sink& sink,
                     std::int64_t every_ns = 100'000'000);
  // Events the ring buffer overwrote before they were read, per CPU (its "overrun").
  std::uint64_t lost(int cpu) const;
  // What disturbed the run, one line each, as collect_until() found it at the end: a knob this
  // run wrote that someone else changed meanwhile (another user of the tracer, e.g. rtla), or
  // another instance running hwlat (which holds CPUs with IRQs off). Empty when nothing did.
  const std::vector<std::string>& disturbances() const { return disturbances_; }
  const std::string& instance_name() const { return session_->name(); }
  // A traced CPU's case as the suites name CPUs ("cpuN"; labels cpu and thread_class), with
  // what disturbed the run as its contamination and the CPU's lost events as a count.
  Case cpu_case(int cpu, const std::string& thread_class) const;

 private:
  KernelTracer() = default;
  static int on_event(tep_event* event, tep_record* record, int cpu, void* self);
  void stop_tracer();
  void check_disturbances();
  // Writes each <dir>/knob, its old value saved into `saved` first; false and `why` at the first
  // that fails.
  bool write_knobs(const std::vector<std::pair<std::string, std::string>>& knobs,
                   const std::string& dir, std::vector<std::pair<std::string, std::string>>& saved,
                   std::string* why);

  std::unique_ptr<TraceSession> session_;
  tep_handle* tep_ = nullptr;
  int event_id_ = -1;
  std::vector<tep_format_field*> fields_;
  std::vector<std::pair<std::string, std::string>> saved_;          // knob, old value
  std::vector<std::pair<std::string, std::string>> saved_running_;  // running knob, old value
  std::vector<std::pair<std::string, std::string>> written_;        // knob, rtgate's value
  std::vector<std::string> disturbances_;
  bool tracer_set_ = false;
  const Sink* sink_ = nullptr;
  TracerSample scratch_;
};

// Ends a passing `result` as an error naming `cpu` when that CPU was `silent` (no event of
// `tracer` in a run long enough for some): a CPU that measured nothing is never a pass.
void error_if_silent(SuiteResult& result, const std::string& tracer, int cpu, bool silent);

// Runs `tracer` for the run's duration, or until a stop, handing each sample of a selected CPU to
// on_sample(state, sample) with that CPU's state. A state is made per CPU from its live counter
// ("cpuN"), tracked from here: the watchdog's stall clock starts once the tracer runs (setting it
// up takes seconds under emulation).
template <class PerCpu, class OnSample>
std::map<int, std::unique_ptr<PerCpu>> collect_per_cpu(KernelTracer& tracer,
                                                       const std::vector<int>& cpus,
                                                       RunContext& ctx, OnSample on_sample) {
  std::map<int, std::unique_ptr<PerCpu>> per_cpu;
  for (int cpu : cpus) {
    per_cpu.emplace(cpu, std::make_unique<PerCpu>(ctx.track("cpu" + std::to_string(cpu))));
  }
  const KernelTracer::Sink sink = [&](const TracerSample& s) {
    const auto it = per_cpu.find(s.cpu);
    if (it != per_cpu.end()) on_sample(*it->second, s);  // else outside the selection
  };
  tracer.collect_until(
      monotonic_ns() + ctx.duration_ns(), [&] { return ctx.stop_requested(); }, sink);
  return per_cpu;
}

// Whether a CPU silent through the run measured nothing: the run was not stopped and lasted two
// of the tracer's periods or more.
inline bool silence_is_failure(const RunContext& ctx, std::int64_t period_us) {
  return !ctx.stop_requested() && ctx.duration_ns() >= 2 * period_us * 1000;
}

// The instances other than `except` (the top level as "(top level)") whose current tracer is
// one of `tracers`, as "<instance>: <tracer>".
std::vector<std::string> instances_running(const std::vector<std::string>& tracers,
                                           const std::string& except);

}  // namespace rtgate::trace
