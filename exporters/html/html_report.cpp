#include "exporters/html/html_report.h"

#include <algorithm>
#include <functional>
#include <map>

#include "exporters/gate_table.h"
#include "exporters/html/cause_section.h"
#include "exporters/html/html_text.h"
#include "exporters/html/page_shell.h"
#include "exporters/html/readiness_section.h"
#include "exporters/html/suite_section.h"
#include "gate/model/format.h"

namespace rtgate::html {
namespace {

std::string side_line(const char* role, const RunReport& r) {
  return "<p><b>" + std::string(role) + "</b>: " + escape(r.environment.hostname) + ", kernel " +
         escape(r.environment.kernel_release) + " (" + escape(r.environment.preempt_model) +
         "), finished " + escape(r.finished_at) + ", rtgate " + escape(r.tool_version) +
         (r.complete ? "" : " <span class=\"b b-missing\">incomplete</span>") + "</p>";
}

const char* banner_text(gate::Verdict v) {
  switch (v) {
    case gate::Verdict::kRegressed:
      return "Regressed (rtgate gate exits 1)";
    case gate::Verdict::kImproved:
      return "Improved (exit 0)";
    case gate::Verdict::kUnchanged:
      return "Unchanged within the noise floors (exit 0)";
    case gate::Verdict::kNotWorse:
      return "Not worse beyond the noise floors (exit 0)";
    case gate::Verdict::kInconclusive:
      return "Inconclusive: the data cannot tell (exit 3)";
    case gate::Verdict::kMissing:
      return "Missing: the baseline had what the current result lacks (exit 3)";
  }
  return "";
}

std::string link_to(const RunReport& cur, const gate::MetricVerdict& m) {
  const SuiteResult* s = cur.find(m.suite);
  const Case* c = s != nullptr ? s->find(m.case_name) : nullptr;
  const std::string target = c != nullptr && has_case_section(*c)
                                 ? case_anchor(m.suite, m.case_name)
                                 : suite_anchor(m.suite);
  return "<a href=\"#" + target + "\">" + escape(m.case_name) + "</a>";
}

std::string evidence_html(const gate::MetricVerdict& m) {
  std::string s = escape(m.reason);
  if (m.evidence.empty() && m.trace.empty()) return s;
  std::string body = "<ul>";
  for (const gate::Evidence& e : m.evidence) {
    body +=
        std::string("<li>") + (e.deciding ? "<b>deciding</b> " : "") + escape(e.detail) + "</li>";
  }
  for (const std::string& t : m.trace) body += "<li>trace: " + escape(t) + "</li>";
  return s + details("evidence", body + "</ul>", false);
}

std::vector<std::string> verdict_row(const RunReport& cur, const gate::MetricVerdict& m,
                                     bool with_evidence) {
  std::vector<std::string> cells;
  const std::vector<std::string> text = gate_row(m);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i == 1) {
      cells.push_back(link_to(cur, m));
    } else if (i + 1 == text.size()) {
      cells.push_back(badge(gate::to_string(m.verdict)) + (m.gated ? "" : " (not gated)"));
    } else {
      cells.push_back(escape(text[i]));
    }
  }
  if (with_evidence) cells.push_back(evidence_html(m));
  return cells;
}

std::string verdict_section(const RunReport& cur, const gate::GateVerdict& g) {
  std::map<gate::Verdict, int> counts;
  std::vector<const gate::MetricVerdict*> open, all;
  for (const gate::SuiteVerdict& s : g.suites) {
    for (const gate::MetricVerdict& m : s.metrics) {
      all.push_back(&m);
      if (!m.gated) continue;
      ++counts[m.verdict];
      if (m.verdict != gate::Verdict::kUnchanged) open.push_back(&m);
    }
  }
  std::stable_sort(open.begin(), open.end(), [](const auto* a, const auto* b) {
    return gate::severity(a->verdict) > gate::severity(b->verdict);
  });
  std::string s = "<section id=\"verdict\"><h2>Verdict</h2>";
  s += "<div class=\"banner " + std::string(gate::to_string(g.overall)) + "\">" +
       banner_text(g.overall) + "</div><p>";
  for (const auto& [v, n] : counts) {
    s += badge(gate::to_string(v)) + " " + std::to_string(n) + " &nbsp; ";
  }
  s += "<span class=\"dim\">gated metrics; alpha " + gate::fmt::num(g.alpha) + ", this look " +
       gate::fmt::num(g.look_alpha) + ", " + std::to_string(g.judged_metrics) +
       " judged in a family of " + std::to_string(g.family) + "</span></p>";
  if (!g.noise.empty()) s += "<p class=\"dim\">Sessions: " + escape(g.noise) + "</p>";
  if (!g.incomparable.empty()) {
    s += "<div class=\"warn\">Not comparable:<ul>";
    for (const std::string& i : g.incomparable) s += "<li>" + escape(i) + "</li>";
    s += "</ul></div>";
  }
  std::vector<std::string> head;
  for (const std::string& h : gate_table_header()) head.push_back(escape(h));
  // The reason and evidence of every metric that is not unchanged; the full list (thousands of
  // rows at lab scale) has the figures, the change with its interval and the verdict of each.
  auto rows_of = [&](const std::vector<const gate::MetricVerdict*>& ms, bool with_evidence) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> classes;
    for (const auto* m : ms) {
      rows.push_back(verdict_row(cur, *m, with_evidence));
      classes.push_back(m->gated ? "v-" + std::string(gate::to_string(m->verdict)) : "");
    }
    std::vector<std::string> h = head;
    if (with_evidence) h.push_back("why");
    return "<div class=\"scroll\">" + table(h, rows, classes) + "</div>";
  };
  // Every regressed, missing and improved metric with its evidence; inconclusive ones too, up
  // to kOpenShown (a gate of thousands of metrics that cannot tell would list them all twice).
  constexpr std::size_t kOpenShown = 100;
  std::size_t more = 0;
  if (open.size() > kOpenShown) {
    const auto first_inconclusive = std::find_if(
        open.begin(), open.end(),
        [](const gate::MetricVerdict* m) { return m->verdict == gate::Verdict::kInconclusive; });
    const std::size_t keep = std::max<std::size_t>(
        kOpenShown, static_cast<std::size_t>(first_inconclusive - open.begin()));
    more = open.size() - std::min(keep, open.size());
    open.resize(std::min(keep, open.size()));
  }
  if (!open.empty()) {
    s += "<h3>Metrics that are not unchanged</h3>" + rows_of(open, true);
    if (more > 0) {
      s += "<p>and " + std::to_string(more) +
           " more inconclusive metrics, in the full list below (figures, change and interval; "
           "the reasons are in rtgate gate's output).</p>";
    }
  } else {
    s += "<p>Every gated metric is unchanged.</p>";
  }
  s += details("All " + std::to_string(all.size()) + " compared metrics", rows_of(all, false),
               false);
  return s + "</section>";
}

struct EnvField {
  const char* name;
  std::function<std::string(const RunReport&)> get;
};

const std::vector<EnvField>& env_fields() {
  static const std::vector<EnvField> fields = {
      {"hostname", [](const RunReport& r) { return r.environment.hostname; }},
      {"kernel_release", [](const RunReport& r) { return r.environment.kernel_release; }},
      {"kernel_version", [](const RunReport& r) { return r.environment.kernel_version; }},
      {"machine", [](const RunReport& r) { return r.environment.machine; }},
      {"preempt_model", [](const RunReport& r) { return r.environment.preempt_model; }},
      {"realtime",
       [](const RunReport& r) { return std::string(r.environment.realtime ? "yes" : "no"); }},
      {"cmdline", [](const RunReport& r) { return r.environment.cmdline; }},
      {"cpu_model", [](const RunReport& r) { return r.environment.cpu_model; }},
      {"online_cpus", [](const RunReport& r) { return std::to_string(r.environment.online_cpus); }},
      {"online_cpu_list", [](const RunReport& r) { return r.environment.online_cpu_list; }},
      {"isolated_cpus", [](const RunReport& r) { return r.environment.isolated_cpus; }},
      {"nohz_full", [](const RunReport& r) { return r.environment.nohz_full; }},
      {"rt_runtime_us",
       [](const RunReport& r) { return std::to_string(r.environment.rt_runtime_us); }},
      {"rt_period_us",
       [](const RunReport& r) { return std::to_string(r.environment.rt_period_us); }},
      {"cpu_dma_latency_us",
       [](const RunReport& r) { return std::to_string(r.environment.cpu_dma_latency_us); }},
      {"clocksource", [](const RunReport& r) { return r.environment.clocksource; }},
      {"governors", [](const RunReport& r) { return r.environment.governors; }},
      {"smt", [](const RunReport& r) { return r.environment.smt; }},
      {"hypervisor", [](const RunReport& r) { return r.environment.hypervisor; }},
      {"memory_total_kb",
       [](const RunReport& r) { return std::to_string(r.environment.memory_total_kb); }},
      {"run: duration_s", [](const RunReport& r) { return gate::fmt::num(r.options.duration_s); }},
      {"run: runs", [](const RunReport& r) { return std::to_string(r.options.runs); }},
      {"run: cpus", [](const RunReport& r) { return r.options.cpus; }},
      {"run: load", [](const RunReport& r) { return r.options.load; }},
  };
  return fields;
}

std::string environment_section(const RunReport& cur, const RunReport* base,
                                const gate::GateVerdict* g) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> classes;
  for (const EnvField& f : env_fields()) {
    const std::string c = f.get(cur);
    std::vector<std::string> row = {escape(f.name), escape(c)};
    bool differs = false;
    if (base != nullptr) {
      const std::string b = f.get(*base);
      row.push_back(escape(b));
      differs = b != c;
    }
    rows.push_back(std::move(row));
    classes.push_back(differs ? "diff" : "");
  }
  std::string s = "<section id=\"environment\"><h2>Environment</h2>";
  if (g != nullptr && !g->environment_differences.empty()) {
    s += std::string("<div class=\"warn\">") +
         (g->environment_mismatch ? "The environments differ in a field that decides "
                                    "comparability (the gate is inconclusive):"
                                  : "Differences the gate reports:") +
         "<ul>";
    for (const std::string& d : g->environment_differences) s += "<li>" + escape(d) + "</li>";
    s += "</ul></div>";
  }
  const std::vector<std::string> head =
      base != nullptr ? std::vector<std::string>{"field", "current", "baseline"}
                      : std::vector<std::string>{"field", "value"};
  return s + table(head, rows, classes) + "</section>";
}

const gate::SuiteVerdict* suite_verdict(const gate::GateVerdict* g, const std::string& suite) {
  if (g == nullptr) return nullptr;
  for (const gate::SuiteVerdict& v : g->suites) {
    if (v.suite == suite) return &v;
  }
  return nullptr;
}

std::string toc(const RunReport& cur, const gate::GateVerdict* g, bool history) {
  std::string s = "<nav><h2>Contents</h2>" + expand_buttons() + "<ul>";
  if (g != nullptr) s += "<li><a href=\"#verdict\">Verdict</a></li>";
  if (g != nullptr && !g->causes.empty()) {
    s += std::string("<li><a href=\"#") + kCausesAnchor + "\">Causes</a></li>";
  }
  if (history) s += "<li><a href=\"#history\">History</a></li>";
  s += "<li><a href=\"#environment\">Environment</a></li>";
  if (!cur.environment.readiness.empty()) s += "<li><a href=\"#readiness\">Readiness</a></li>";
  for (const SuiteResult& r : cur.suites) {
    const gate::SuiteVerdict* sv = suite_verdict(g, r.name);
    const std::string verdict = sv != nullptr ? " " + badge(gate::to_string(sv->verdict)) : "";
    s += "<li><a href=\"#" + suite_anchor(r.name) + "\">" + escape(r.name) + "</a> " +
         badge(to_string(r.status)) + verdict + " <span class=\"dim\">" +
         std::to_string(r.cases.size()) + " cases</span></li>";
  }
  return s + "</ul></nav>";
}

}  // namespace

std::string render_report(const RunReport& cur, const RunReport* base, const gate::GateVerdict* g,
                          const std::string& trend_html) {
  std::string s = page_head("rtgate report: " + cur.environment.hostname + " " +
                            cur.environment.kernel_release);
  s += "<h1>rtgate report</h1>" + side_line("Current", cur);
  if (base != nullptr) s += side_line("Baseline", *base);
  if (g == nullptr) {
    s += "<div class=\"banner none\">No baseline: the figures of one result, no verdict.</div>";
  }
  if (!cur.complete) {
    s += "<div class=\"warn\">The current result is incomplete (the run was interrupted): it "
         "holds what was measured until then.</div>";
  }
  s += toc(cur, g, !trend_html.empty());
  if (g != nullptr) s += verdict_section(cur, *g) + cause_section(*g);
  s += trend_html;
  s += environment_section(cur, base, g);
  s += readiness_section(cur, base);
  s += "<h2>Suites</h2>";
  std::size_t cases = 0;
  for (const SuiteResult& r : cur.suites) cases += r.cases.size();
  const bool open = cur.suites.size() <= 12 && cases <= 200;
  for (const SuiteResult& r : cur.suites) {
    const gate::SuiteVerdict* sv = suite_verdict(g, r.name);
    const bool bad = r.status == SuiteStatus::kFailed || r.status == SuiteStatus::kError ||
                     (sv != nullptr && sv->verdict == gate::Verdict::kRegressed);
    s += suite_section(r, base != nullptr ? base->find(r.name) : nullptr, VerdictIndex(sv),
                       cur.environment.online_cpus, open || bad);
  }
  if (base != nullptr) {
    std::vector<std::string> gone;
    for (const SuiteResult& b : base->suites) {
      if (cur.find(b.name) == nullptr) gone.push_back(b.name);
    }
    if (!gone.empty()) {
      s += "<div class=\"warn\">Suites only the baseline has:<ul>";
      for (const std::string& n : gone) s += "<li>" + escape(n) + "</li>";
      s += "</ul></div>";
    }
  }
  s += "<p class=\"dim\">Written by rtgate " + escape(cur.tool_version) + " at " +
       escape(rfc3339_now()) + ".</p>";
  return s + page_tail();
}

}  // namespace rtgate::html
