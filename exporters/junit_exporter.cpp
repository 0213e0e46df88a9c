#include "exporters/junit_exporter.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>

#include "exporters/gate_table.h"
#include "exporters/markup_escape.h"
#include "gate/model/format.h"

namespace rtgate {
namespace {

std::string escape(const std::string& s) { return markup_escape(s); }

// "2026-11-29T10:00:00.123Z" -> "2026-11-29T10:00:00" (the schema allows no fraction or zone).
// The schema's timestamp: YYYY-MM-DDTHH:MM:SS, no zone. A result from elsewhere may hold
// anything in started_at (markup included): what is not that shape is the epoch.
std::string junit_time(const std::string& rfc3339) {
  static constexpr std::string_view kShape = "dddd-dd-ddTdd:dd:dd";
  if (rfc3339.size() < kShape.size()) return "1970-01-01T00:00:00";
  for (std::size_t i = 0; i < kShape.size(); ++i) {
    const char c = rfc3339[i];
    const bool ok = kShape[i] == 'd' ? (c >= '0' && c <= '9') : c == kShape[i];
    if (!ok) return "1970-01-01T00:00:00";
  }
  return rfc3339.substr(0, kShape.size());
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s < 0 ? 0.0 : s);
  return buf;
}

std::vector<std::pair<std::string, std::string>> environment_properties(const RunReport& r) {
  const Environment& e = r.environment;
  return {{"rtgate.version", r.tool_version},   {"hostname", e.hostname},
          {"kernel_release", e.kernel_release}, {"kernel_version", e.kernel_version},
          {"preempt_model", e.preempt_model},   {"realtime", e.realtime ? "true" : "false"},
          {"cpu_model", e.cpu_model},           {"online_cpus", std::to_string(e.online_cpus)},
          {"isolated_cpus", e.isolated_cpus},   {"cmdline", e.cmdline}};
}

JunitSuite suite_shell(const std::string& name, const RunReport& r) {
  JunitSuite s;
  s.name = name;
  s.package = "rtgate";
  s.timestamp = junit_time(r.started_at);
  s.hostname = r.environment.hostname.empty() ? "localhost" : r.environment.hostname;
  s.properties = environment_properties(r);
  return s;
}

}  // namespace

std::string render_junit(const std::vector<JunitSuite>& suites) {
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n";
  int id = 0;
  for (const JunitSuite& s : suites) {
    int failures = 0, errors = 0, skipped = 0;
    for (const JunitCase& c : s.cases) {
      failures += c.outcome == JunitCase::Outcome::kFailure;
      errors += c.outcome == JunitCase::Outcome::kError;
      skipped += c.outcome == JunitCase::Outcome::kSkipped;
    }
    x += "  <testsuite name=\"" + escape(s.name) + "\" package=\"" + escape(s.package) +
         "\" id=\"" + std::to_string(id++) + "\" timestamp=\"" + s.timestamp + "\" hostname=\"" +
         escape(s.hostname) + "\" tests=\"" + std::to_string(s.cases.size()) + "\" failures=\"" +
         std::to_string(failures) + "\" errors=\"" + std::to_string(errors) + "\" skipped=\"" +
         std::to_string(skipped) + "\" time=\"" + seconds(s.time_s) + "\">\n    <properties>\n";
    for (const auto& [k, v] : s.properties) {
      x += "      <property name=\"" + escape(k) + "\" value=\"" + escape(v) + "\"/>\n";
    }
    x += "    </properties>\n";
    for (const JunitCase& c : s.cases) {
      x += "    <testcase classname=\"" + escape(c.classname) + "\" name=\"" + escape(c.name) +
           "\" time=\"" + seconds(c.time_s) + "\"";
      const char* tag = c.outcome == JunitCase::Outcome::kFailure   ? "failure"
                        : c.outcome == JunitCase::Outcome::kError   ? "error"
                        : c.outcome == JunitCase::Outcome::kSkipped ? "skipped"
                                                                    : nullptr;
      if (tag == nullptr) {
        x += "/>\n";
        continue;
      }
      x += ">\n      <" + std::string(tag) + " message=\"" + escape(c.message) + "\"";
      if (c.outcome != JunitCase::Outcome::kSkipped) x += " type=\"" + escape(c.type) + "\"";
      x += ">" + escape(c.body) + "</" + tag + ">\n    </testcase>\n";
    }
    x += "    <system-out>" + escape(s.system_out) + "</system-out>\n    <system-err/>\n";
    x += "  </testsuite>\n";
  }
  return x + "</testsuites>\n";
}

std::vector<JunitSuite> junit_from_run(const RunReport& report) {
  std::vector<JunitSuite> out;
  for (const SuiteResult& r : report.suites) {
    JunitSuite s = suite_shell(r.name, report);
    s.time_s = r.duration_s;
    if (r.status != SuiteStatus::kPassed) {
      JunitCase c{.classname = r.name, .name = "status"};
      c.outcome = r.status == SuiteStatus::kFailed  ? JunitCase::Outcome::kFailure
                  : r.status == SuiteStatus::kError ? JunitCase::Outcome::kError
                                                    : JunitCase::Outcome::kSkipped;
      c.type = to_string(r.status);
      c.message = r.reason.empty() ? to_string(r.status) : r.reason;
      for (const Case& k : r.cases) {
        for (const auto& a : k.analysis) {
          if (a.trigger == "break") c.body += "trace: " + a.summary(8) + "\n";
        }
      }
      s.cases.push_back(std::move(c));
    }
    for (const Case& k : r.cases) {
      for (const auto& a : k.analysis) {
        if (a.trigger != "threshold") s.system_out += "trace: " + a.summary(8) + "\n";
      }
      for (const Metric& m : k.metrics) {
        s.cases.push_back({.classname = r.name, .name = k.name + "/" + m.name});
        if (m.histogram) {
          const LatencySummary l = LatencySummary::of(*m.histogram);
          s.system_out += k.name + "/" + m.name + ": count " + std::to_string(l.count) + ", p99 " +
                          gate::fmt::ns(static_cast<double>(l.p99)) + ", max " +
                          gate::fmt::ns(static_cast<double>(l.max)) + "\n";
        } else if (m.summary_only) {
          std::uint64_t count = 0, max = 0;
          for (const LatencySummary& run : m.runs) {
            count += run.count;
            max = std::max(max, run.max);
          }
          s.system_out += k.name + "/" + m.name + ": count " + std::to_string(count) + ", max " +
                          gate::fmt::ns(static_cast<double>(max)) + " (min, mean and max only)\n";
        }
      }
      for (const auto& why : k.contaminated_reasons) {
        s.system_out += k.name + ": contaminated: " + why + "\n";
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<JunitSuite> junit_from_gate(const gate::GateVerdict& report, const RunReport& current,
                                        bool fail_on_inconclusive) {
  std::vector<JunitSuite> out;
  for (const gate::SuiteVerdict& v : report.suites) {
    JunitSuite s = suite_shell(v.suite, current);
    if (!report.noise.empty()) {
      s.properties.emplace_back("rtgate.session_noise", report.noise);
      s.system_out += "sessions: " + report.noise + "\n";
    }
    for (const auto& d : report.environment_differences) {
      s.system_out += "environment differs: " + d + "\n";
    }
    for (const auto& d : report.incomparable) s.system_out += "incomparable: " + d + "\n";
    for (const auto& n : v.notes) s.system_out += "note: " + n + "\n";
    if (!v.reason.empty()) s.system_out += "suite: " + v.reason + "\n";
    for (const gate::MetricVerdict& m : v.metrics) s.system_out += gate_metric_line(m) + "\n";
    for (const gate::CauseComparison& cc : report.causes) {
      if (cc.suite != v.suite) continue;
      for (const std::string& line : cc.lines()) s.system_out += line + "\n";
    }
    for (const gate::MetricVerdict& m : v.metrics) {
      JunitCase c{.classname = v.suite,
                  .name = (m.case_name.empty() ? "" : m.case_name + "/") + m.metric};
      const bool inconclusive = m.verdict == gate::Verdict::kInconclusive ||
                                m.verdict == gate::Verdict::kMissing ||
                                (report.environment_mismatch && m.gated);
      if (m.gated && m.verdict == gate::Verdict::kRegressed) {
        c.outcome = JunitCase::Outcome::kFailure;
        c.type = "regressed";
      } else if (m.gated && inconclusive) {
        c.outcome =
            fail_on_inconclusive ? JunitCase::Outcome::kFailure : JunitCase::Outcome::kSkipped;
        c.type = "inconclusive";
      }
      if (c.outcome != JunitCase::Outcome::kPassed) {
        c.message = std::string(gate::to_string(m.verdict)) + ": " + m.metric + " " + m.statistic +
                    " " + gate::fmt::effect(m) + ", detectable " + gate::fmt::detectable(m) +
                    ", decided by " + (m.decided_by.empty() ? "-" : m.decided_by) + " - " +
                    m.reason;
        if (!m.trace.empty()) c.message += "; trace: " + m.trace.front();
        for (const auto& e : m.evidence) {
          c.body += std::string(gate::to_string(e.test)) + (e.deciding ? " (decided)" : "") + ": " +
                    e.detail + "\n";
        }
        for (const auto& t : m.trace) c.body += "trace: " + t + "\n";
        for (const gate::CauseComparison& cc : report.causes) {
          if (cc.suite != v.suite || cc.case_name != m.case_name) continue;
          for (const std::string& line : cc.lines()) c.body += line + "\n";
        }
      }
      s.cases.push_back(std::move(c));
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace rtgate
