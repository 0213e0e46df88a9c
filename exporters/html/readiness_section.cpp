#include "exporters/html/readiness_section.h"

#include "exporters/html/html_text.h"

namespace rtgate::html {
namespace {

const ReadinessItem* find(const RunReport* r, const std::string& item) {
  if (r == nullptr) return nullptr;
  for (const ReadinessItem& i : r->environment.readiness) {
    if (i.item == item) return &i;
  }
  return nullptr;
}

}  // namespace

std::string readiness_section(const RunReport& cur, const RunReport* base) {
  if (cur.environment.readiness.empty() &&
      (base == nullptr || base->environment.readiness.empty())) {
    return "";
  }
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> classes;
  int bad = 0, warn = 0;
  for (const ReadinessItem& i : cur.environment.readiness) {
    bad += i.level == "bad";
    warn += i.level == "warn";
    std::vector<std::string> row = {escape(i.item), badge(i.level)};
    const ReadinessItem* b = find(base, i.item);
    if (base != nullptr) row.push_back(b != nullptr ? badge(b->level) : "-");
    row.push_back(escape(i.why));
    row.push_back(i.fix.empty() ? "" : "<code>" + escape(i.fix) + "</code>");
    rows.push_back(std::move(row));
    classes.push_back(b != nullptr && b->level != i.level ? "diff" : "");
  }
  std::string s = "<section id=\"readiness\"><h2>Readiness for RT measurement</h2><p>";
  s += bad > 0 ? "Not ready when the run started: " + std::to_string(bad) + " bad, " +
                     std::to_string(warn) + " warn."
               : "Ready when the run started" +
                     (warn > 0 ? ", with " + std::to_string(warn) + " warnings." : ".");
  s += " <span class=\"dim\">rtgate env judges the machine again and says how to fix each "
       "item.</span></p>";
  const std::vector<std::string> head =
      base != nullptr ? std::vector<std::string>{"item", "current", "baseline", "why", "fix"}
                      : std::vector<std::string>{"item", "level", "why", "fix"};
  return s + table(head, rows, classes) + "</section>";
}

}  // namespace rtgate::html
