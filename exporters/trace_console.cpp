#include "exporters/trace_console.h"

#include <cstdio>
#include <map>

#include "base/text/units.h"

namespace rtgate {
namespace {

std::string wait_line(const trace::WaitStats& w) {
  return std::to_string(w.count) + " waits, total " + text::duration(w.total_ns) + ", max " +
         text::duration(w.max_ns);
}

void render_analyses(std::string& out, const std::vector<trace::SampleAnalysis>& analyses) {
  std::size_t crossings = 0;
  std::map<std::string, int> delayed_by;  // the crossings' tasks, by how many each delayed
  for (const trace::SampleAnalysis& a : analyses) {
    if (a.trigger == "threshold") {
      ++crossings;
      if (a.delayed_by) ++delayed_by[trace::task_label(*a.delayed_by)];
      continue;
    }
    out += "  trace " + a.summary() + "\n";
    if (!a.note.empty()) out += "        (" + a.note + ")\n";
  }
  if (crossings > 0) {
    out += "  trace: " + std::to_string(crossings) +
           " threshold crossing(s) analysed too (in the JSON and the excerpt files)";
    std::string tasks;
    for (const auto& [task, n] : delayed_by) {
      tasks += (tasks.empty() ? "" : ", ") + task + " " + std::to_string(n) + "x";
    }
    out += tasks.empty() ? "\n" : "; delayed by " + tasks + "\n";
  }
}

// "cpu1 12.31 ms (runs 12.31, 0.00)" for the CPUs where the fair class ran over a waiting RT task.
std::string cfs_while_rt_line(const TraceRecord& t) {
  std::string cpus;
  for (const auto& [cpu, runs] : t.cfs_while_rt_runnable_ms) {
    double total = 0;
    for (double ms : runs) total += ms;
    if (total <= 0) continue;
    char b[64];
    std::snprintf(b, sizeof b, "cpu%d %.2f ms", cpu, total);
    std::string line = b;
    if (runs.size() > 1) {
      line += " (runs";
      for (double ms : runs) {
        std::snprintf(b, sizeof b, " %.2f", ms);
        line += b;
      }
      line += ")";
    }
    cpus += (cpus.empty() ? "" : ", ") + line;
  }
  if (cpus.empty()) return "";
  return "  trace: SCHED_OTHER ran while an RT task was runnable (fair server or RT throttling): " +
         cpus + "\n";
}

}  // namespace

std::string render_trace(const SuiteResult& s) {
  if (!s.trace) return "";
  const TraceRecord& t = *s.trace;
  if (!t.unavailable.empty()) return "  trace: not recorded: " + t.unavailable + "\n";
  std::string out;
  for (const Case& c : s.cases) render_analyses(out, c.analysis);
  render_analyses(out, t.analysis);
  out += cfs_while_rt_line(t);
  if (t.locks.traced) {
    out += "  kernel locks: mmap_lock read " + wait_line(t.locks.mmap_lock_read) + "; write " +
           wait_line(t.locks.mmap_lock_write) + "\n";
    std::size_t shown = 0;
    for (const trace::LockWait& w : t.locks.locks) {
      if (shown++ == 5) break;
      out += "  kernel lock " + w.lock + " (" + w.kind + ")" +
             (w.caller.empty() ? "" : " from " + w.caller) + ": " + wait_line(w.wait) + "\n";
    }
    if (t.locks.locks.empty()) out += "  kernel locks: no contention_begin/end pairs seen\n";
  }
  char line[300];
  std::snprintf(line, sizeof line, "  trace: %llu events, %llu lost, %llu marked samples%s%s%s\n",
                static_cast<unsigned long long>(t.events), static_cast<unsigned long long>(t.lost),
                static_cast<unsigned long long>(t.markers),
                t.missing_events.empty() ? "" : ", some events missing (see the JSON)",
                t.steal_source.empty() ? "" : ", host steal from ", t.steal_source.c_str());
  out += line;
  return out;
}

}  // namespace rtgate
