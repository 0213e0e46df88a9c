#include "exporters/console_table.h"

#include <algorithm>
#include <cstdarg>

#include "base/text/units.h"
#include "base/text/utf8.h"
#include "exporters/trace_console.h"

namespace rtgate {
namespace {

std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

std::string count_notes(const Case& c) {
  std::string notes;
  for (const Metric& m : c.metrics) {
    if (m.kind != MetricKind::kCount) continue;
    double total = 0;
    for (double v : m.samples) total += v;
    notes += fmt("%s%s=%.0f", notes.empty() ? "" : " ", m.name.c_str(), total);
  }
  return notes;
}

std::size_t case_width(const SuiteResult& s) {
  std::size_t w = 10;
  for (const Case& c : s.cases) w = std::max(w, c.name.size());
  return std::min<std::size_t>(w, 48);
}

void render_suite(std::string& out, const SuiteResult& s) {
  const int cw = static_cast<int>(case_width(s));
  out += fmt("%s: %s", s.name.c_str(), to_string(s.status));
  if (s.status != SuiteStatus::kSkipped) {
    out += fmt(" (%d run%s, %.1f s)", s.runs, s.runs == 1 ? "" : "s", s.duration_s);
  }
  if (!s.reason.empty()) out += " - " + s.reason;
  out += "\n";
  bool header = false;
  const auto put_header = [&] {
    if (header) return;
    out += fmt("  %-*s %-16s %10s %9s %9s %9s %9s %9s  %s\n", cw, "case", "metric", "samples",
               "min", "p50", "p99", "p99.9", "max", "notes");
    header = true;
  };
  for (const Case& c : s.cases) {
    for (const Metric& m : c.metrics) {
      if (m.histogram) {
        put_header();
        const LatencySummary l = LatencySummary::of(*m.histogram);
        std::string notes = count_notes(c);
        if (const auto v = c.labels.find("verdict"); v != c.labels.end()) notes += "  " + v->second;
        if (c.contaminated) notes += (notes.empty() ? "" : " ") + std::string("CONTAMINATED");
        out += fmt("  %-10s %-16s %10llu %9s %9s %9s %9s %9s  %s\n", c.name.c_str(), m.name.c_str(),
                   static_cast<unsigned long long>(l.count),
                   text::compact(static_cast<double>(l.min)).c_str(),
                   text::compact(static_cast<double>(l.p50)).c_str(),
                   text::compact(static_cast<double>(l.p99)).c_str(),
                   text::compact(static_cast<double>(l.p999)).c_str(),
                   text::compact(static_cast<double>(l.max)).c_str(), notes.c_str());
      } else if (m.summary_only) {
        // Imported with count, min, mean and max alone: no quantiles to show.
        put_header();
        std::uint64_t count = 0, min = 0, max = 0;
        for (const LatencySummary& r : m.runs) {
          if (r.count == 0) continue;
          min = count == 0 ? r.min : std::min(min, r.min);
          max = std::max(max, r.max);
          count += r.count;
        }
        out += fmt("  %-10s %-16s %10llu %9s %9s %9s %9s %9s  %s\n", c.name.c_str(), m.name.c_str(),
                   static_cast<unsigned long long>(count),
                   text::compact(static_cast<double>(min)).c_str(), "-", "-", "-",
                   text::compact(static_cast<double>(max)).c_str(), "min/mean/max only");
      } else if (m.kind == MetricKind::kThroughput || m.kind == MetricKind::kDuration) {
        const SampleSummary t = SampleSummary::of(m.samples);
        const bool has_latency =
            std::any_of(c.metrics.begin(), c.metrics.end(),
                        [](const Metric& x) { return x.histogram.has_value(); });
        out += fmt("  %-*s %-16s hmean %.4g %s  (n=%zu, cv %.1f%%)  %s\n", cw, c.name.c_str(),
                   m.name.c_str(), t.hmean, m.unit.c_str(), t.n, t.cv,
                   has_latency ? "" : count_notes(c).c_str());
      }
    }
  }
  for (const load::LoadReport& l : s.loads) {
    out += fmt("  load %-12s %.4g %s/s (%d x, %.1f s)%s%s\n", l.spec.c_str(), l.ops_per_s,
               l.unit.c_str(), l.instances, l.seconds, l.note.empty() ? "" : " - ", l.note.c_str());
  }
  for (const std::string& why : s.contaminated_reasons) out += "  contaminated: " + why + "\n";
  out += render_trace(s);
}

// What was bad for RT measurement during the run, in one line (rtgate env says how to fix it).
std::string readiness_footer(const Environment& e) {
  std::string bad;
  for (const ReadinessItem& r : e.readiness) {
    if (r.level == "bad") bad += (bad.empty() ? "" : ", ") + text::for_terminal(r.item);
  }
  return bad.empty()
             ? ""
             : "not ready for RT measurement: " + bad + " (rtgate env says why and how to fix)\n";
}

}  // namespace

std::string render_console(const RunReport& report) {
  const Environment& e = report.environment;
  std::string out =
      fmt("rtgate %s  kernel %s (preempt %s%s), %d CPUs, %s\n", report.tool_version.c_str(),
          e.kernel_release.c_str(), e.preempt_model.c_str(), e.realtime ? ", PREEMPT_RT" : "",
          e.online_cpus, e.hostname.c_str());
  for (const SuiteResult& s : report.suites) render_suite(out, s);
  const auto count = [&](SuiteStatus st) {
    return std::count_if(report.suites.begin(), report.suites.end(),
                         [st](const SuiteResult& s) { return s.status == st; });
  };
  const long inconclusive = count(SuiteStatus::kInconclusive);
  out += fmt("%zu suites: %ld passed, %ld failed, %ld error, %ld skipped%s%s\n",
             report.suites.size(), count(SuiteStatus::kPassed), count(SuiteStatus::kFailed),
             count(SuiteStatus::kError), count(SuiteStatus::kSkipped),
             inconclusive > 0 ? fmt(", %ld inconclusive", inconclusive).c_str() : "",
             report.complete ? "" : "  (INCOMPLETE: the run did not finish)");
  out += readiness_footer(e);
  return out;
}

std::string ConsoleExporter::write(const RunReport& report) {
  std::fputs(render_console(report).c_str(), out_);
  std::fflush(out_);
  return "";
}

}  // namespace rtgate
