#include "exporters/markup_escape.h"

#include "base/text/utf8.h"

namespace rtgate {

std::string markup_escape(std::string_view raw) {
  const std::string s = text::to_valid_utf8(raw);
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    // U+FFFE and U+FFFF (EF BF BE, EF BF BF) are outside XML's Char range.
    if (c == '\xEF' && i + 2 < s.size() && s[i + 1] == '\xBF' &&
        (s[i + 2] == '\xBE' || s[i + 2] == '\xBF')) {
      i += 2;
      continue;
    }
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t' || c == '\r') {
          out += c;
        }
    }
  }
  return out;
}

}  // namespace rtgate
