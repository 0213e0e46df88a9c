#include "exporters/html/html_text.h"

#include <cctype>
#include <cstdio>

#include "exporters/markup_escape.h"

namespace rtgate::html {

std::string escape(std::string_view s) { return markup_escape(s); }

std::string anchor_id(std::string_view prefix, std::string_view name) {
  std::string out(prefix);
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '_') {
      out += c;
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "-%02X", u);
      out += buf;
    }
  }
  return out;
}

std::string table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows,
                  const std::vector<std::string>& row_classes) {
  std::string s = "<table><thead><tr>";
  for (const std::string& h : header) s += "<th>" + h + "</th>";
  s += "</tr></thead><tbody>";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const bool cls = i < row_classes.size() && !row_classes[i].empty();
    s += cls ? "<tr class=\"" + row_classes[i] + "\">" : "<tr>";
    for (const std::string& c : rows[i]) s += "<td>" + c + "</td>";
    s += "</tr>";
  }
  return s + "</tbody></table>";
}

std::string details(const std::string& summary, const std::string& body, bool open,
                    const std::string& css_class) {
  std::string s = "<details";
  if (!css_class.empty()) s += " class=\"" + css_class + "\"";
  if (open) s += " open";
  return s + "><summary>" + summary + "</summary>" + body + "</details>";
}

std::string badge(const std::string& word) {
  return "<span class=\"b b-" + escape(word) + "\">" + escape(word) + "</span>";
}

}  // namespace rtgate::html
