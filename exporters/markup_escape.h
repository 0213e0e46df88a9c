// Text in XML (JUnit) and HTML (the report): &, <, >, " and ' as references, so the result is
// safe in element content and in quoted attributes of both; control characters other than tab,
// newline and carriage return are dropped (XML 1.0 forbids them even escaped, HTML calls them
// parse errors), and so are U+FFFE and U+FFFF; bytes that are not UTF-8 come out as \xNN.
#pragma once

#include <string>
#include <string_view>

namespace rtgate {

std::string markup_escape(std::string_view s);

}  // namespace rtgate
