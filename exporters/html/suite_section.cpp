#include "exporters/html/suite_section.h"

#include <cstdio>

#include "exporters/html/html_text.h"
#include "exporters/html/latency_charts.h"
#include "exporters/html/workload_tables.h"
#include "exporters/trace_console.h"
#include "gate/model/format.h"

namespace rtgate::html {
namespace {

std::string param_text(const ParamValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) return gate::fmt::num(*d);
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  return std::get<std::string>(v);
}

std::string list_items(const std::vector<std::string>& items) {
  std::string s = "<ul>";
  for (const std::string& i : items) s += "<li>" + escape(i) + "</li>";
  return s + "</ul>";
}

std::string hygiene_html(const SuiteResult& s) {
  const Hygiene& h = s.hygiene;
  char line[160];
  std::snprintf(line, sizeof line, "steal %.1f ms, RT throttling %s, missed periods %llu",
                h.steal_ms, h.rt_throttled < 0 ? "unknown" : std::to_string(h.rt_throttled).c_str(),
                static_cast<unsigned long long>(h.missed_periods));
  std::string out =
      "<p class=\"hyg\">Hygiene: " + escape(line) +
      (h.rt_throttled_source.empty() ? "" : " (" + escape(h.rt_throttled_source) + ")") + "</p>";
  if (!h.foreign_rt_threads.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const ForeignRtThread& t : h.foreign_rt_threads) {
      rows.push_back({std::to_string(t.pid), std::to_string(t.tid), escape(t.comm),
                      escape(t.policy), std::to_string(t.priority), escape(t.cpus_allowed),
                      t.kernel_thread ? "kernel" : "user",
                      gate::fmt::ns(static_cast<double>(t.runtime_ns))});
    }
    out += "<p>Foreign RT threads that ran during the suite:</p>" +
           table({"pid", "tid", "comm", "policy", "prio", "CPUs", "kind", "runtime"}, rows);
  }
  if (s.contaminated) {
    out += "<div class=\"warn\">Contaminated:" + list_items(s.contaminated_reasons) + "</div>";
  }
  return out;
}

std::string loads_html(const SuiteResult& s) {
  if (s.loads.empty()) return "";
  std::vector<std::vector<std::string>> rows;
  for (const load::LoadReport& l : s.loads) {
    rows.push_back({escape(l.spec), escape(l.kind), std::to_string(l.instances),
                    gate::fmt::num(l.seconds),
                    gate::fmt::num(l.ops_per_s) + " " + escape(l.unit) + "/s", escape(l.note)});
  }
  return "<p>Load beside the suite:</p>" +
         table({"spec", "kind", "instances", "seconds", "rate", "note"}, rows);
}

std::string case_section(const SuiteResult& s, const Case& c, const CaseIndex& base,
                         const VerdictIndex& verdicts, bool small_suite) {
  const Case* bc = base.find(c.name);
  gate::Verdict worst = gate::Verdict::kUnchanged;
  bool judged = false;
  std::string body;
  if (c.contaminated) {
    body += "<div class=\"warn\">Contaminated:" + list_items(c.contaminated_reasons) + "</div>";
  }
  for (const Metric& m : c.metrics) {
    if (const gate::MetricVerdict* v = verdicts.find(c.name, m.name); v && v->gated) {
      worst = gate::worst(worst, v->verdict);
      judged = true;
    }
    if (m.kind != MetricKind::kLatency) continue;
    body += latency_charts(c.name + " " + m.name, m, bc != nullptr ? bc->find(m.name) : nullptr);
  }
  std::string labels;
  for (const auto& [k, v] : c.labels) labels += " " + k + "=" + v;
  const std::string summary = "<span class=\"case\" id=\"" + case_anchor(s.name, c.name) + "\">" +
                              escape(c.name) + "</span> <span class=\"dim\">" + escape(labels) +
                              "</span>" + (judged ? " " + badge(gate::to_string(worst)) : "") +
                              (c.contaminated ? " " + badge("contaminated") : "");
  const bool open =
      small_suite ||
      (judged && (worst == gate::Verdict::kRegressed || worst == gate::Verdict::kMissing));
  return details(summary, body, open, "case-d");
}

}  // namespace

std::string suite_anchor(const std::string& suite) { return anchor_id("suite-", suite); }

std::string case_anchor(const std::string& suite, const std::string& case_name) {
  return anchor_id("case-", suite + "/" + case_name);
}

bool has_case_section(const Case& c) {
  if (c.contaminated) return true;
  for (const Metric& m : c.metrics) {
    if (m.kind == MetricKind::kLatency && (m.histogram || m.summary_only)) return true;
  }
  return false;
}

std::string suite_section(const SuiteResult& s, const SuiteResult* base,
                          const VerdictIndex& verdicts, int cpus, bool open) {
  const gate::SuiteVerdict* sv = verdicts.suite();
  std::string summary =
      "<span class=\"suite\">" + escape(s.name) + "</span> " + badge(to_string(s.status));
  if (sv != nullptr) summary += " " + badge(gate::to_string(sv->verdict));
  if (s.contaminated) summary += " " + badge("contaminated");
  char facts[128];
  std::snprintf(facts, sizeof facts, " %zu cases, %d runs, %.1f s", s.cases.size(), s.runs,
                s.duration_s);
  summary += "<span class=\"dim\">" + escape(facts) + "</span>";

  std::string body;
  if (!s.reason.empty()) body += "<p class=\"reason\">" + escape(s.reason) + "</p>";
  if (sv != nullptr) {
    if (!sv->reason.empty()) body += "<p class=\"reason\">Gate: " + escape(sv->reason) + "</p>";
    if (!sv->notes.empty())
      body += "<div class=\"warn\">Gate notes:" + list_items(sv->notes) + "</div>";
  }
  if (base == nullptr && sv != nullptr) body += "<p>The baseline has no such suite.</p>";
  std::string params;
  for (const auto& [k, v] : s.params)
    params += (params.empty() ? "" : ", ") + k + "=" + param_text(v);
  if (!params.empty()) body += "<p class=\"params\">Parameters: " + escape(params) + "</p>";
  body += hygiene_html(s) + loads_html(s);
  body += metric_table(s, base, verdicts, cpus);
  body += sweep_charts(s, base);
  if (const std::string trace = render_trace(s); !trace.empty()) {
    body += "<h3>Trace analysis</h3><pre>" + escape(trace) + "</pre>";
  }
  std::size_t sections = 0;
  for (const Case& c : s.cases) sections += has_case_section(c) ? 1 : 0;
  const bool small = sections <= 4;
  const CaseIndex base_cases(base);
  for (const Case& c : s.cases) {
    if (has_case_section(c)) body += case_section(s, c, base_cases, verdicts, small);
  }
  return "<section id=\"" + suite_anchor(s.name) + "\">" + details(summary, body, open, "suite-d") +
         "</section>";
}

}  // namespace rtgate::html
