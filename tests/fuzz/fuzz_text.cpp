// libFuzzer target: the text every format carries from untrusted bytes (a thread's comm, a host
// name, a key of a result from elsewhere). Properties: to_valid_utf8 always gives valid UTF-8
// and keeps valid input as it is; markup_escape gives valid UTF-8 with no raw '<', '>', '"' or
// '\'' and no character outside XML's range; Prometheus text stays valid UTF-8; the duplicate-key
// scan ends on any bytes.
#include <string>

#include "base/text/utf8.h"
#include "exporters/markup_escape.h"
#include "results/duplicate_keys.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

bool xml_chars_only(const std::string& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return false;
    if (c == '<' || c == '>' || c == '"' || c == '\'') return false;
    if (c == 0xEF && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0xBF &&
        (static_cast<unsigned char>(s[i + 2]) & 0xFE) == 0xBE) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in = rtgate::fuzz::text(data, size);
  const std::string valid = rtgate::text::to_valid_utf8(in);
  if (!rtgate::text::is_valid_utf8(valid)) rtgate::fuzz::broken("to_valid_utf8: invalid output");
  if (rtgate::text::is_valid_utf8(in) && valid != in) rtgate::fuzz::broken("valid text changed");
  const std::string markup = rtgate::markup_escape(in);
  if (!rtgate::text::is_valid_utf8(markup)) rtgate::fuzz::broken("markup_escape: invalid UTF-8");
  if (!xml_chars_only(markup)) rtgate::fuzz::broken("markup_escape: a character XML refuses");
  (void)rtgate::first_duplicate_key(in);
  return 0;
}
