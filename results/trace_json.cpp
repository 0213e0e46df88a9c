#include "results/trace_json.h"

#include <algorithm>
#include <charconv>

#include "results/json_number.h"

namespace rtgate {
namespace {

using ojson = nlohmann::ordered_json;
using json = nlohmann::json;

template <class T>
T val(const json& j, const char* key, T fallback) {
  if (!j.is_object()) return fallback;
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  return json_number::as<T>(*it).value_or(std::move(fallback));
}

const json& arr(const json& j, const char* key) {
  static const json kEmpty = json::array();
  if (!j.is_object()) return kEmpty;
  const auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : kEmpty;
}

ojson wait_json(const trace::WaitStats& w) {
  return {{"count", w.count}, {"total_ns", w.total_ns}, {"max_ns", w.max_ns}};
}

trace::WaitStats wait_from(const json& j) {
  return {.count = val<std::uint64_t>(j, "count", 0),
          .total_ns = val<std::int64_t>(j, "total_ns", 0),
          .max_ns = val<std::int64_t>(j, "max_ns", 0)};
}

ojson part_json(const trace::AnalysisPart& p) {
  ojson pj = {{"kind", p.kind}, {"name", p.name}};
  if (p.kind == "task") {
    pj["pid"] = p.pid;
    pj["policy"] = p.policy;
    pj["prio"] = p.prio;
  }
  pj["ns"] = p.ns;
  pj["count"] = p.count;
  return pj;
}

trace::AnalysisPart part_from(const json& p) {
  return {.kind = val<std::string>(p, "kind", ""),
          .name = val<std::string>(p, "name", ""),
          .pid = val<pid_t>(p, "pid", 0),
          .policy = val<std::string>(p, "policy", ""),
          .prio = val<int>(p, "prio", 0),
          .ns = val<std::int64_t>(p, "ns", 0),
          .count = val<int>(p, "count", 0)};
}

ojson analysis_json(const trace::SampleAnalysis& a) {
  ojson j;
  j["trigger"] = a.trigger;
  j["run"] = a.run;
  j["cpu"] = a.cpu;
  j["thread"] = a.thread;
  j["tid"] = a.tid;
  j["deadline_ns"] = a.deadline_ns;
  j["latency_ns"] = a.latency_ns;
  j["timer_fired_ns"] = a.timer_fired_ns;
  j["woken_ns"] = a.woken_ns;
  j["got_cpu_ns"] = a.got_cpu_ns;
  j["parts"] = ojson::array();
  for (const trace::AnalysisPart& p : a.parts) j["parts"].push_back(part_json(p));
  j["pi_boosts"] = ojson::array();
  for (const trace::PiBoost& b : a.pi_boosts) {
    j["pi_boosts"].push_back({{"pid", b.pid},
                              {"comm", b.comm},
                              {"old_prio", b.old_prio},
                              {"new_prio", b.new_prio},
                              {"at_ns", b.at_ns}});
  }
  if (a.steal_ns >= 0) {
    j["steal_ns"] = a.steal_ns;
    j["steal_window_ns"] = a.steal_window_ns;
  }
  if (a.delayed_by) j["delayed_by"] = part_json(*a.delayed_by);
  j["note"] = a.note;
  j["excerpt_file"] = a.excerpt_file;
  return j;
}

trace::SampleAnalysis analysis_from(const json& j) {
  trace::SampleAnalysis a;
  a.trigger = val<std::string>(j, "trigger", "");
  a.run = val<int>(j, "run", 0);
  a.cpu = val<int>(j, "cpu", -1);
  a.thread = val<std::string>(j, "thread", "");
  a.tid = val<pid_t>(j, "tid", 0);
  a.deadline_ns = val<std::int64_t>(j, "deadline_ns", 0);
  a.latency_ns = val<std::int64_t>(j, "latency_ns", 0);
  a.timer_fired_ns = val<std::int64_t>(j, "timer_fired_ns", -1);
  a.woken_ns = val<std::int64_t>(j, "woken_ns", -1);
  a.got_cpu_ns = val<std::int64_t>(j, "got_cpu_ns", -1);
  for (const json& p : arr(j, "parts")) a.parts.push_back(part_from(p));
  for (const json& b : arr(j, "pi_boosts")) {
    a.pi_boosts.push_back({.pid = val<pid_t>(b, "pid", 0),
                           .comm = val<std::string>(b, "comm", ""),
                           .old_prio = val<int>(b, "old_prio", 0),
                           .new_prio = val<int>(b, "new_prio", 0),
                           .at_ns = val<std::int64_t>(b, "at_ns", 0)});
  }
  a.steal_ns = val<std::int64_t>(j, "steal_ns", -1);
  a.steal_window_ns = val<std::int64_t>(j, "steal_window_ns", 0);
  if (const json d = val<json>(j, "delayed_by", json()); d.is_object()) {
    a.delayed_by = part_from(d);
  }
  a.note = val<std::string>(j, "note", "");
  a.excerpt_file = val<std::string>(j, "excerpt_file", "");
  return a;
}

}  // namespace

ojson analyses_json(const std::vector<trace::SampleAnalysis>& analyses) {
  ojson j = ojson::array();
  for (const auto& a : analyses) j.push_back(analysis_json(a));
  return j;
}

std::vector<trace::SampleAnalysis> analyses_from(const json& j) {
  std::vector<trace::SampleAnalysis> out;
  if (!j.is_array()) return out;
  for (const json& a : j) out.push_back(analysis_from(a));
  return out;
}

ojson cause_profile_json(const trace::CauseProfile& p) {
  std::vector<std::pair<std::string, trace::CauseStats>> classes(p.causes.begin(), p.causes.end());
  std::stable_sort(classes.begin(), classes.end(),
                   [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; });
  ojson list = ojson::array();
  for (const auto& [name, c] : classes) {
    list.push_back(
        {{"cause", name}, {"samples", c.samples}, {"ns", c.ns}, {"slice_sq", c.slice_sq}});
  }
  return {{"threshold_ns", p.threshold_ns},
          {"samples", p.samples},
          {"not_analysed", p.not_analysed},
          {"ns", p.ns},
          {"slices", p.slices},
          {"classes", std::move(list)}};
}

trace::CauseProfile cause_profile_from(const json& j) {
  trace::CauseProfile p;
  p.threshold_ns = val<std::int64_t>(j, "threshold_ns", 0);
  p.samples = val<std::uint64_t>(j, "samples", 0);
  p.not_analysed = val<std::uint64_t>(j, "not_analysed", 0);
  p.ns = val<std::int64_t>(j, "ns", 0);
  p.slices = val<std::uint64_t>(j, "slices", 0);
  for (const json& c : arr(j, "classes")) {
    const std::string name = val<std::string>(c, "cause", "");
    if (name.empty()) continue;
    trace::CauseStats& s = p.causes[name];
    s.samples += val<std::uint64_t>(c, "samples", 0);
    s.ns += val<std::int64_t>(c, "ns", 0);
    s.slice_sq += val<double>(c, "slice_sq", 0);
  }
  return p;
}

ojson trace_record_json(const TraceRecord& r) {
  ojson j;
  if (!r.unavailable.empty()) j["unavailable"] = r.unavailable;
  j["runs"] = r.runs;
  j["threshold_ns"] = r.threshold_ns;
  if (!r.threshold_from.empty()) j["threshold_from"] = r.threshold_from;
  j["events"] = r.events;
  j["lost"] = r.lost;
  j["markers"] = r.markers;
  j["crossings_not_analysed"] = r.crossings_not_analysed;
  j["missing_events"] = r.missing_events;
  if (!r.break_reason.empty()) j["break"] = r.break_reason;
  j["analysis"] = analyses_json(r.analysis);
  if (!r.steal_source.empty()) j["steal_source"] = r.steal_source;
  if (!r.cfs_while_rt_runnable_ms.empty()) {
    ojson per_cpu = ojson::object();
    for (const auto& [cpu, runs] : r.cfs_while_rt_runnable_ms) per_cpu[std::to_string(cpu)] = runs;
    j["cfs_while_rt_runnable_ms"] = std::move(per_cpu);
  }
  if (r.locks.traced) {
    ojson locks = ojson::array();
    for (const trace::LockWait& w : r.locks.locks) {
      ojson lj = {{"lock", w.lock}, {"kind", w.kind}, {"caller", w.caller}};
      lj.update(wait_json(w.wait));
      lj["per_run"] = w.per_run;
      locks.push_back(std::move(lj));
    }
    j["lock_contention"] = {{"runs", r.locks.runs},
                            {"locks", std::move(locks)},
                            {"other_waits", r.locks.other_waits},
                            {"mmap_lock",
                             {{"read", wait_json(r.locks.mmap_lock_read)},
                              {"write", wait_json(r.locks.mmap_lock_write)}}}};
  }
  return j;
}

TraceRecord trace_record_from(const json& j) {
  TraceRecord r;
  r.unavailable = val<std::string>(j, "unavailable", "");
  r.runs = val<int>(j, "runs", 0);
  r.threshold_ns = val<std::int64_t>(j, "threshold_ns", 0);
  r.threshold_from = val<std::string>(j, "threshold_from", "");
  r.events = val<std::uint64_t>(j, "events", 0);
  r.lost = val<std::uint64_t>(j, "lost", 0);
  r.markers = val<std::uint64_t>(j, "markers", 0);
  r.crossings_not_analysed = val<std::uint64_t>(j, "crossings_not_analysed", 0);
  r.missing_events = val<std::vector<std::string>>(j, "missing_events", {});
  r.break_reason = val<std::string>(j, "break", "");
  r.analysis = analyses_from(val<json>(j, "analysis", json::array()));
  r.steal_source = val<std::string>(j, "steal_source", "");
  if (const json c = val<json>(j, "cfs_while_rt_runnable_ms", json()); c.is_object()) {
    for (const auto& [key, runs] : c.items()) {
      int cpu = -1;
      const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), cpu);
      if (ec != std::errc() || end != key.data() + key.size() || cpu < 0 || !runs.is_array()) {
        continue;
      }
      auto& into = r.cfs_while_rt_runnable_ms[cpu];
      for (const json& ms : runs) into.push_back(json_number::as<double>(ms).value_or(0));
    }
  }
  if (j.is_object() && j.contains("lock_contention")) {
    const json& lc = j["lock_contention"];
    r.locks.traced = true;
    r.locks.runs = val<int>(lc, "runs", 0);
    for (const json& l : arr(lc, "locks")) {
      r.locks.locks.push_back({.lock = val<std::string>(l, "lock", ""),
                               .kind = val<std::string>(l, "kind", ""),
                               .caller = val<std::string>(l, "caller", ""),
                               .wait = wait_from(l),
                               .per_run = val<std::vector<std::uint64_t>>(l, "per_run", {})});
    }
    r.locks.other_waits = val<std::uint64_t>(lc, "other_waits", 0);
    const json mm = val<json>(lc, "mmap_lock", json::object());
    r.locks.mmap_lock_read = wait_from(val<json>(mm, "read", json::object()));
    r.locks.mmap_lock_write = wait_from(val<json>(mm, "write", json::object()));
  }
  return r;
}

}  // namespace rtgate
