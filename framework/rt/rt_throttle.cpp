#include "framework/rt/rt_throttle.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include "base/io/proc_files.h"
#include "base/text/strings.h"
#include "framework/measure/clock.h"

namespace rtgate::rt {
namespace {

constexpr const char* kDebugfsFile = "/sys/kernel/debug/sched/debug";
constexpr const char* kProcFile = "/proc/sched_debug";
// A read may take at most this share of the polling thread's time (1%).
constexpr std::int64_t kBackoff = 100;
// Episodes are inferred between samples at most this many intervals apart.
constexpr std::int64_t kMaxInferenceGap = 4;
// The longest wait while every watched rt_rq is far from its budget.
constexpr std::int64_t kMaxQuietNs = 1'000'000'000;

bool to_double(std::string_view s, double* out) {
  const std::string copy(text::trim(s));  // strtod: std::from_chars for double is not in g++ 12's
  if (copy.empty()) return false;         // libstdc++ for every target; this is not a hot path
  char* end = nullptr;
  *out = std::strtod(copy.c_str(), &end);
  return end == copy.c_str() + copy.size();
}

// "rt_rq[3]:/user.slice" -> cpu 3, group "/user.slice".
bool parse_header(std::string_view line, RtRqState* s) {
  if (!line.starts_with("rt_rq[")) return false;
  const std::size_t close = line.find("]:");
  if (close == std::string_view::npos) return false;
  const std::string_view num = line.substr(6, close - 6);
  int cpu = -1;
  const auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), cpu);
  if (ec != std::errc() || p != num.data() + num.size() || cpu < 0) return false;
  s->cpu = cpu;
  s->group = text::trim(line.substr(close + 2));
  return true;
}

}  // namespace

std::vector<RtRqState> parse_rt_rqs(std::string_view text) {
  std::vector<RtRqState> out;
  RtRqState cur;
  bool in = false, has_throttled = false, has_time = false, has_runtime = false;
  auto flush = [&] {
    if (in && has_throttled && has_time && has_runtime) out.push_back(cur);
    in = false;
  };
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (line.empty() || (line.front() != ' ' && line.front() != '\t')) {
      flush();  // a blank line or the next section's header ends this one
      RtRqState next;
      if (parse_header(line, &next)) {
        cur = next;
        in = true;
        has_throttled = has_time = has_runtime = false;
      }
      continue;
    }
    if (!in) continue;
    const std::string field(text::trim(line));
    const std::size_t colon = field.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string key(text::trim(std::string_view(field).substr(0, colon)));
    const std::string_view value = std::string_view(field).substr(colon + 1);
    double v = 0;
    if (!to_double(value, &v)) continue;
    if (key == ".rt_throttled") {
      cur.throttled = v != 0;
      has_throttled = true;
    } else if (key == ".rt_time") {
      cur.rt_time_ms = v;
      has_time = true;
    } else if (key == ".rt_runtime") {
      cur.rt_runtime_ms = v;
      has_runtime = true;
    } else if (key == ".rt_nr_running") {
      cur.nr_running = static_cast<int>(v);
    }
  }
  flush();
  return out;
}

RtThrottleWatch::RtThrottleWatch(std::vector<int> cpus, std::string debug_file)
    : cpus_(std::move(cpus)), file_(std::move(debug_file)) {
  const std::int64_t runtime_us = proc::read_int("/proc/sys/kernel/sched_rt_runtime_us", 0);
  const std::int64_t period_us = proc::read_int("/proc/sys/kernel/sched_rt_period_us", 1'000'000);
  if (file_.empty() && runtime_us < 0) {
    source_ = "RT throttling disabled (sched_rt_runtime_us = -1)";
    disabled_ = true;
    return;
  }
  if (file_.empty()) {
    file_ = access(kDebugfsFile, R_OK) == 0 ? kDebugfsFile : kProcFile;
  }
  const std::int64_t t0 = monotonic_ns();
  const auto text = proc::read_file(file_);
  const std::int64_t t1 = monotonic_ns();
  if (!text || parse_rt_rqs(*text).empty()) {
    source_ = "unavailable: no readable rt_rq state (debugfs not mounted at /sys/kernel/debug?)";
    return;
  }
  active_ = true;
  // An episode lasts up to the unused part of a period (50 ms of the default 1 s): sample at
  // least twice in that time, and no more often than every 5 ms.
  const std::int64_t window_ns = std::max<std::int64_t>(0, period_us - runtime_us) * 1000;
  base_interval_ns_ = std::clamp<std::int64_t>(window_ns / 2, 5'000'000, 20'000'000);
  interval_ns_ = base_interval_ns_;
  source_ = std::string(file_ == kProcFile ? "/proc/sched_debug" : "sched/debug") +
            ", sampled every " + std::to_string(base_interval_ns_ / 1'000'000) +
            " ms near the budget (up to 1 s far from it)";
  take(*text, t0, t1);  // the first sample: the file lists every task, so it is read once here
}

void RtThrottleWatch::poll() {
  if (!active_) return;
  const std::int64_t t0 = monotonic_ns();
  if (t0 < next_poll_ns_) return;
  const auto text = proc::read_file(file_);
  if (text) take(*text, t0, monotonic_ns());
}

void RtThrottleWatch::take(std::string_view text, std::int64_t t0, std::int64_t t1) {
  observe(text, t1);
  // RT time grows at most as fast as the wall clock, so no rt_rq can reach its budget before
  // its headroom has passed: until then (less two intervals, for the sample's own lateness)
  // there is nothing to see. A cyclic load far below the budget is then sampled about once a
  // second, not fifty times.
  const auto quiet_ns = static_cast<std::int64_t>(headroom_ms_ * 1e6) - 2 * base_interval_ns_;
  interval_ns_ =
      std::max({base_interval_ns_, (t1 - t0) * kBackoff, std::min(quiet_ns, kMaxQuietNs)});
  next_poll_ns_ = t1 + interval_ns_;
}

void RtThrottleWatch::observe(std::string_view text, std::int64_t now_ns) {
  headroom_ms_ = 0;
  bool first = true;
  for (const RtRqState& s : parse_rt_rqs(text)) {
    if (!cpus_.empty() && std::find(cpus_.begin(), cpus_.end(), s.cpu) == cpus_.end()) continue;
    if (s.rt_runtime_ms > 0 || s.throttled) {  // a group without RT budget runs no RT task
      // A runnable task's time since the last tick or switch is not in the figure yet.
      const bool exact = s.nr_running == 0;
      const double headroom = s.throttled || !exact ? 0 : s.rt_runtime_ms - s.rt_time_ms;
      headroom_ms_ = first ? headroom : std::min(headroom_ms_, headroom);
      first = false;
    }
    Last& last = last_[std::to_string(s.cpu) + s.group];
    const bool now = s.throttled || (s.rt_runtime_ms > 0 && s.rt_time_ms >= s.rt_runtime_ms);
    bool episode = now && !(last.seen && last.throttled);
    const std::int64_t gap_ns = last.seen ? now_ns - last.at_ns : 0;
    if (!now && last.seen && !last.throttled && s.rt_time_ms < last.rt_time_ms &&
        gap_ns <= kMaxInferenceGap * base_interval_ns_) {
      // A period ended since the last sample: could the RT time have reached the budget
      // before it did? It grows at most as fast as the wall clock, and since the period's end
      // it has grown to what this sample shows. (Over a long gap, e.g. the sampler starved by
      // the very RT load that is throttled, this bound says nothing: no inference then.)
      const double could_reach = last.rt_time_ms + static_cast<double>(gap_ns) / 1e6 - s.rt_time_ms;
      episode = s.rt_runtime_ms > 0 && could_reach >= s.rt_runtime_ms;
    }
    if (episode) ++events_[s.cpu];
    last = {.seen = true, .throttled = now, .rt_time_ms = s.rt_time_ms, .at_ns = now_ns};
  }
}

std::int64_t RtThrottleWatch::events() const {
  std::int64_t n = 0;
  for (const auto& [cpu, k] : events_) n += k;
  return n;
}

std::string RtThrottleWatch::describe() const {
  std::string out;
  for (const auto& [cpu, k] : events_) {
    if (!out.empty()) out += ", ";
    out += "CPU " + std::to_string(cpu) + ": " + std::to_string(k) +
           (k == 1 ? " episode" : " episodes");
  }
  return out;
}

}  // namespace rtgate::rt
