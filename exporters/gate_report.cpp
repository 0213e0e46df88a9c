#include "exporters/gate_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "framework/gate/format.h"

namespace rtgate {
namespace {

std::string figure(const gate::MetricVerdict& m, double v) {
  if (std::isnan(v)) return "-";
  if (m.kind == MetricKind::kLatency) return gate::fmt::ns(v);
  return gate::fmt::num(v) + (m.unit.empty() ? "" : " " + m.unit);
}

bool significant(const gate::MetricVerdict& m) {
  return std::any_of(m.evidence.begin(), m.evidence.end(), [](const gate::Evidence& e) {
    return e.deciding &&
           (e.indicates == gate::Verdict::kRegressed || e.indicates == gate::Verdict::kImproved);
  });
}

std::vector<std::string> row(const gate::MetricVerdict& m) {
  return {m.suite,
          m.case_name,
          m.metric,
          m.statistic,
          figure(m, m.baseline),
          figure(m, m.current),
          std::isnan(m.change_pct) ? "-" : gate::fmt::pct(m.change_pct),
          significant(m) ? "*" : "",
          std::string(gate::to_string(m.verdict)) + (m.gated ? "" : " (not gated)")};
}

}  // namespace

std::string render_gate_table(const gate::GateReport& report, TableFormat format) {
  const std::vector<std::string> head = {"suite",   "case",   "metric", "stat",   "baseline",
                                         "current", "change", "sig",    "verdict"};
  std::vector<std::vector<std::string>> rows;
  for (const auto& s : report.suites) {
    for (const auto& m : s.metrics) rows.push_back(row(m));
  }
  std::string out;
  if (format == TableFormat::kMarkdown) {
    std::string line = "|", rule = "|";
    for (const auto& h : head) line += " " + h + " |", rule += "---|";
    out += line + "\n" + rule + "\n";
    for (const auto& r : rows) {
      line = "|";
      for (const auto& c : r) line += " " + c + " |";
      out += line + "\n";
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
      out += line + "\n";
    };
    emit(head);
    for (const auto& r : rows) emit(r);
  }
  out += "\n";
  for (const auto& s : report.suites) {
    if (!s.reason.empty()) out += s.suite + ": " + s.reason + "\n";
    for (const auto& n : s.notes) out += s.suite + ": note: " + n + "\n";
    for (const auto& m : s.metrics) {
      if (m.verdict == gate::Verdict::kUnchanged || !m.gated) continue;
      out += s.suite + "/" + m.case_name + "/" + m.metric + ": " + gate::to_string(m.verdict) +
             ": " + m.reason + "\n";
      for (const auto& e : m.evidence) out += "    " + e.test + ": " + e.detail + "\n";
    }
  }
  for (const auto& d : report.environment_differences) out += "environment differs: " + d + "\n";
  if (report.environment_mismatch) {
    out += "environments are not comparable (use --allow-env-mismatch to judge anyway)\n";
  }
  out += "alpha " + gate::fmt::num(report.alpha) + " for the gate: " +
         std::to_string(report.judged_metrics) + " metrics judged, each at alpha " +
         gate::fmt::num(report.metric_alpha) + "\n";
  out += std::string("verdict: ") + gate::to_string(report.overall) + "\n";
  return out;
}

nlohmann::ordered_json gate_json(const gate::GateReport& report) {
  using ojson = nlohmann::ordered_json;
  const auto num = [](double v) { return std::isfinite(v) ? ojson(v) : ojson(nullptr); };
  ojson j;
  j["schema"] = "rtgate.gate/1";
  j["verdict"] = gate::to_string(report.overall);
  j["environment_mismatch"] = report.environment_mismatch;
  j["environment_differences"] = report.environment_differences;
  j["alpha"] = report.alpha;
  j["judged_metrics"] = report.judged_metrics;
  j["metric_alpha"] = report.metric_alpha;
  j["suites"] = ojson::array();
  for (const auto& s : report.suites) {
    ojson js{{"name", s.suite},    {"verdict", gate::to_string(s.verdict)},
             {"reason", s.reason}, {"notes", s.notes},
             {"gated", s.gated},   {"metrics", ojson::array()}};
    for (const auto& m : s.metrics) {
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
               {"reason", m.reason},
               {"evidence", ojson::array()}};
      for (const auto& e : m.evidence) {
        jm["evidence"].push_back({{"test", e.test},
                                  {"p_value", num(e.p_value)},
                                  {"ci_low", num(e.ci_low)},
                                  {"ci_high", num(e.ci_high)},
                                  {"indicates", gate::to_string(e.indicates)},
                                  {"deciding", e.deciding},
                                  {"detail", e.detail}});
      }
      js["metrics"].push_back(std::move(jm));
    }
    j["suites"].push_back(std::move(js));
  }
  return j;
}

}  // namespace rtgate
