#include "exporters/gate_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "base/text/utf8.h"
#include "gate/model/format.h"
#include "results/json_stream.h"

namespace rtgate {
namespace {

std::string figure(const gate::MetricVerdict& m, double v) {
  if (std::isnan(v)) return "-";
  if (m.kind == MetricKind::kLatency) return gate::fmt::ns(v);
  return gate::fmt::num(v) + (m.unit.empty() ? "" : " " + m.unit);
}

}  // namespace

std::vector<std::string> gate_row(const gate::MetricVerdict& m) {
  return {m.suite,
          m.case_name,
          m.metric,
          m.statistic,
          figure(m, m.baseline),
          figure(m, m.current),
          std::isnan(m.change_pct) ? "-" : gate::fmt::pct(m.change_pct),
          gate::fmt::effect(m),
          gate::fmt::detectable(m),
          m.decided_by.empty() ? "-" : m.decided_by,
          std::string(gate::to_string(m.verdict)) + (m.gated ? "" : " (not gated)")};
}

std::string gate_metric_line(const gate::MetricVerdict& m) {
  return (m.case_name.empty() ? "" : m.case_name + "/") + m.metric + ": " +
         gate::to_string(m.verdict) + (m.gated ? "" : " (not gated)") + ", " + m.statistic + " " +
         figure(m, m.baseline) + " -> " + figure(m, m.current) + ", change " +
         gate::fmt::effect(m) + ", detectable " + gate::fmt::detectable(m) + ", decided by " +
         (m.decided_by.empty() ? "-" : m.decided_by);
}

const std::vector<std::string>& gate_table_header() {
  static const std::vector<std::string> head = {"suite",      "case",       "metric", "stat",
                                                "baseline",   "current",    "change", "effect [CI]",
                                                "detectable", "decided by", "verdict"};
  return head;
}

namespace {

// The table and the lines after it, piece by piece into `put`: `rtgate gate` streams a
// 10,000-case table (50 MB) to stdout instead of holding it.
void emit_gate_table(const gate::GateVerdict& report, TableFormat format,
                     const std::function<void(const std::string&)>& put) {
  const std::vector<std::string>& head = gate_table_header();
  std::vector<std::vector<std::string>> rows;
  for (const auto& s : report.suites) {
    for (const auto& m : s.metrics) rows.push_back(gate_row(m));
  }
  if (format == TableFormat::kMarkdown) {
    std::string line = "|", rule = "|";
    for (const auto& h : head) line += " " + h + " |", rule += "---|";
    put(line + "\n" + rule + "\n");
    for (const auto& r : rows) {
      line = "|";
      for (const auto& c : r) line += " " + c + " |";
      put(line + "\n");
    }
  } else {
    std::vector<std::size_t> w(head.size());
    for (std::size_t i = 0; i < head.size(); ++i) {
      w[i] = head[i].size();
      for (const auto& r : rows) w[i] = std::max(w[i], r[i].size());
    }
    const auto emit = [&](const std::vector<std::string>& r) {
      std::string line;
      for (std::size_t i = 0; i < r.size(); ++i) {
        line += r[i] + std::string(w[i] - r[i].size() + 2, ' ');
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      put(line + "\n");
    };
    emit(head);
    for (const auto& r : rows) emit(r);
  }
  put("\n");
  for (const auto& s : report.suites) {
    if (!s.reason.empty()) put(s.suite + ": " + s.reason + "\n");
    for (const auto& n : s.notes) put(s.suite + ": note: " + n + "\n");
    for (const auto& m : s.metrics) {
      if (m.verdict == gate::Verdict::kUnchanged || !m.gated) continue;
      put(s.suite + "/" + m.case_name + "/" + m.metric + ": " + gate::to_string(m.verdict) + ": " +
          m.reason + "\n");
      for (const auto& e : m.evidence) {
        put("    " + std::string(gate::to_string(e.test)) + (e.deciding ? " (decided)" : "") +
            ": " + e.detail + "\n");
      }
      for (const auto& t : m.trace) put("    trace: " + t + "\n");
    }
  }
  for (const gate::CauseComparison& c : report.causes) put(c.block());
  for (const auto& d : report.incomparable) put("incomparable: " + d + "\n");
  for (const auto& d : report.environment_differences) put("environment differs: " + d + "\n");
  if (report.environment_mismatch) {
    put("environments are not comparable (use --allow-env-mismatch to judge anyway)\n");
  }
  put("alpha " + gate::fmt::num(report.alpha) + " for the gate");
  if (report.looks.max > 0) {
    put(" (sequential: this look at " + std::to_string(report.looks.runs) + " runs spends alpha " +
        gate::fmt::num(report.look_alpha) + " of a plan up to " + std::to_string(report.looks.max) +
        " runs)");
  }
  put(": " + std::to_string(report.judged_metrics) + " metrics judged, Holm over a family of " +
      std::to_string(report.family) + "; unchanged = the " +
      gate::fmt::num(100 * (1 - 2 * report.look_alpha)) +
      "% CI of every statistic inside its floor\n");
  if (!report.noise.empty()) put("sessions: " + report.noise + "\n");
  put(std::string("verdict: ") + gate::to_string(report.overall) + "\n");
}

}  // namespace

std::string render_gate_table(const gate::GateVerdict& report, TableFormat format) {
  std::string out;
  emit_gate_table(report, format, [&out](const std::string& piece) { out += piece; });
  return out;
}

void write_gate_table(const gate::GateVerdict& report, TableFormat format, std::FILE* out) {
  // Names in a result came from elsewhere: no control character reaches the terminal.
  emit_gate_table(report, format, [out](const std::string& piece) {
    std::fputs(text::for_terminal(piece, true).c_str(), out);
  });
}

namespace {

using ojson = nlohmann::ordered_json;

ojson num(double v) { return std::isfinite(v) ? ojson(v) : ojson(nullptr); }

ojson cause_json(const gate::CauseChange& c) {
  return {{"cause", c.cause},
          {"new", c.is_new},
          {"gone", c.is_gone},
          {"samples_base", c.samples_base},
          {"samples_cur", c.samples_cur},
          {"in_base", c.in_base},
          {"in_cur", c.in_cur},
          {"share_base", c.share_base},
          {"share_cur", c.share_cur},
          {"dispersion", c.phi},
          {"p_value", num(c.p)}};
}

}  // namespace

nlohmann::ordered_json cause_comparisons_json(const std::vector<gate::CauseComparison>& causes) {
  ojson out = ojson::array();
  for (const gate::CauseComparison& c : causes) {
    ojson j{{"suite", c.suite},
            {"case", c.case_name},
            {"threshold_ns", c.threshold_ns},
            {"threshold_from", c.threshold_from},
            {"samples_base", c.samples_base},
            {"samples_cur", c.samples_cur},
            {"headline", c.headline()},
            {"note", c.note},
            {"grew", ojson::array()},
            {"shrank", ojson::array()},
            {"locks_grew", ojson::array()}};
    for (const auto& g : c.grew) j["grew"].push_back(cause_json(g));
    for (const auto& g : c.shrank) j["shrank"].push_back(cause_json(g));
    for (const gate::LockChange& l : c.locks) {
      j["locks_grew"].push_back({{"lock", l.lock},
                                 {"new", l.is_new},
                                 {"waits_per_run_base", l.waits_base},
                                 {"waits_per_run_cur", l.waits_cur},
                                 {"wait_ms_per_run_base", l.wait_ms_base},
                                 {"wait_ms_per_run_cur", l.wait_ms_cur},
                                 {"dispersion", l.phi},
                                 {"p_value", num(l.p)}});
    }
    out.push_back(std::move(j));
  }
  return out;
}

namespace {

// The document without its suites ("suites" an empty array, last).
ojson gate_json_header(const gate::GateVerdict& report) {
  ojson j;
  j["schema"] = "rtgate.gate/1";
  j["verdict"] = gate::to_string(report.overall);
  j["environment_mismatch"] = report.environment_mismatch;
  j["environment_differences"] = report.environment_differences;
  j["alpha"] = report.alpha;
  j["judged_metrics"] = report.judged_metrics;
  j["family"] = report.family;
  j["look_runs"] = report.looks.runs;
  j["max_runs"] = report.looks.max;
  j["look_alpha"] = report.look_alpha;
  j["session_noise"] = report.noise;
  j["incomparable"] = report.incomparable;
  j["open_metrics"] = report.open_metrics();
  j["causes"] = cause_comparisons_json(report.causes);
  j["suites"] = ojson::array();
  return j;
}

// A suite without its metrics ("metrics" an empty array, last).
ojson suite_header(const gate::SuiteVerdict& s) {
  return {{"name", s.suite},    {"verdict", gate::to_string(s.verdict)},
          {"reason", s.reason}, {"notes", s.notes},
          {"gated", s.gated},   {"metrics", ojson::array()}};
}

ojson metric_json(const gate::MetricVerdict& m) {
  ojson jm{{"case", m.case_name},
           {"metric", m.metric},
           {"kind", to_string(m.kind)},
           {"unit", m.unit},
           {"statistic", m.statistic},
           {"baseline", num(m.baseline)},
           {"current", num(m.current)},
           {"change_pct", num(m.change_pct)},
           {"verdict", gate::to_string(m.verdict)},
           {"gated", m.gated},
           {"effect", num(m.effect)},
           {"effect_low", num(m.effect_low)},
           {"effect_high", num(m.effect_high)},
           {"effect_is_ratio", m.ratio},
           {"detectable", num(m.detectable)},
           {"decided_by", m.decided_by},
           {"p_worse", num(m.p_worse)},
           {"p_better", num(m.p_better)},
           {"level", num(m.level)},
           {"reason", m.reason},
           {"trace", m.trace},
           {"evidence", ojson::array()}};
  for (const auto& e : m.evidence) {
    jm["evidence"].push_back({{"test", gate::to_string(e.test)},
                              {"statistic", e.statistic},
                              {"baseline", num(e.baseline)},
                              {"current", num(e.current)},
                              {"p_value", num(e.p_value)},
                              {"p_better", num(e.p_better)},
                              {"effect", num(e.effect)},
                              {"ci_low", num(e.ci_low)},
                              {"ci_high", num(e.ci_high)},
                              {"floor", num(e.floor)},
                              {"detectable", num(e.detectable)},
                              {"runs_needed", num(e.runs_needed)},
                              {"sessions_needed", num(e.sessions_needed)},
                              {"session_noise", e.noise},
                              {"indicates", gate::to_string(e.indicates)},
                              {"deciding", e.deciding},
                              {"detail", e.detail}});
  }
  return jm;
}

void emit_gate_json(const gate::GateVerdict& report,
                    const std::function<void(const std::string&)>& put) {
  using json_stream::put_object;
  put_object(gate_json_header(report), "suites", 2, 0, put, [&](const auto& next_suite) {
    for (const auto& s : report.suites) {
      next_suite();
      put_object(suite_header(s), "metrics", 2, 2, put, [&](const auto& next_metric) {
        for (const auto& m : s.metrics) {
          next_metric();
          put(json_stream::dump_at(metric_json(m), 2, 4));
        }
      });
    }
  });
}

}  // namespace

nlohmann::ordered_json gate_json(const gate::GateVerdict& report) {
  ojson j = gate_json_header(report);
  for (const auto& s : report.suites) {
    ojson js = suite_header(s);
    for (const auto& m : s.metrics) js["metrics"].push_back(metric_json(m));
    j["suites"].push_back(std::move(js));
  }
  return j;
}

void write_gate_json(const gate::GateVerdict& report, std::FILE* out) {
  emit_gate_json(report, [out](const std::string& piece) { std::fputs(piece.c_str(), out); });
  std::fputs("\n", out);
}

}  // namespace rtgate
