// Text for the HTML report: escaping, ids, and the small elements every section builds with.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rtgate::html {

// markup_escape (exporters/markup_escape.h): safe in element content and quoted attributes.
std::string escape(std::string_view s);

// An id for an anchor: letters, digits, '-' and '_' kept, every other byte as "-XX" (hex), so two
// different names never share an id.
std::string anchor_id(std::string_view prefix, std::string_view name);

// <table> with a header row and body rows; cells are HTML already (escape what is text).
// `row_classes`, when given, holds one class per body row ("" for none).
std::string table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows,
                  const std::vector<std::string>& row_classes = {});

// <details> with a summary line (HTML) and a body (HTML).
std::string details(const std::string& summary, const std::string& body, bool open,
                    const std::string& css_class = "");

// A colored badge for a verdict or status word ("regressed", "passed", ...).
std::string badge(const std::string& word);

}  // namespace rtgate::html
