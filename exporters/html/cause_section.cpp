#include "exporters/html/cause_section.h"

#include <cmath>
#include <cstdio>

#include "exporters/html/html_text.h"
#include "gate/model/format.h"

namespace rtgate::html {
namespace {

std::string p_cell(double p) { return std::isnan(p) ? "-" : gate::fmt::p_value(p); }

std::vector<std::string> row(const char* change, const gate::CauseChange& c) {
  return {badge(change), escape(c.cause),
          gate::fmt::share(c.in_base) + " &rarr; " + gate::fmt::share(c.in_cur),
          gate::fmt::share(c.share_base) + " &rarr; " + gate::fmt::share(c.share_cur), p_cell(c.p)};
}

std::string comparison(const gate::CauseComparison& c) {
  std::string s = "<h3>" + escape(c.title()) + "</h3>";
  if (!c.case_name.empty() && !c.headline().empty()) {
    s += "<p><b>" + escape(c.headline()) + "</b></p>";
  }
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> classes;
  for (const gate::CauseChange& g : c.grew) {
    rows.push_back(row(g.is_new ? "new" : "grew", g));
    classes.push_back("v-regressed");
  }
  for (const gate::CauseChange& g : c.shrank) {
    rows.push_back(row(g.is_gone ? "gone" : "shrank", g));
    classes.push_back("v-improved");
  }
  if (!rows.empty()) {
    s += table(
        {"change", "cause", "in samples (baseline &rarr; current)", "share of the latency", "p"},
        rows, classes);
  }
  if (!c.locks.empty()) {
    std::vector<std::vector<std::string>> lrows;
    for (const gate::LockChange& l : c.locks) {
      char waits[64], ms[64];
      std::snprintf(waits, sizeof waits, "%.0f &rarr; %.0f", l.waits_base, l.waits_cur);
      std::snprintf(ms, sizeof ms, "%.2f &rarr; %.2f", l.wait_ms_base, l.wait_ms_cur);
      lrows.push_back({badge(l.is_new ? "new" : "grew"), escape(l.lock), waits, ms, p_cell(l.p)});
    }
    s += table({"change", "lock", "waits per run", "ms waited per run", "p"}, lrows);
  }
  if (!c.note.empty()) s += "<p class=\"dim\">" + escape(c.note) + "</p>";
  if (rows.empty() && c.locks.empty()) {
    s += "<p>" +
         std::string(c.case_name.empty() ? "No lock's contention grew."
                                         : "No cause grew or shrank.") +
         "</p>";
  }
  return s;
}

}  // namespace

std::string cause_section(const gate::GateVerdict& g) {
  if (g.causes.empty()) return "";
  std::string s = std::string("<section id=\"") + kCausesAnchor +
                  "\"><h2>Causes</h2><p class=\"dim\">What delayed the measuring threads over "
                  "the trace threshold, compared between the two traced results: evidence beside "
                  "the verdicts, never judged as a metric.</p>";
  for (const gate::CauseComparison& c : g.causes) s += comparison(c);
  return s + "</section>";
}

}  // namespace rtgate::html
