// Names from the kernel are bytes: every format must still come out valid.
#include "base/text/utf8.h"

#include <gtest/gtest.h>
#include <prometheus/metric_family.h>

#include <nlohmann/json.hpp>
#include <string>

#include "exporters/markup_escape.h"
#include "exporters/prometheus/text_format.h"
#include "results/json_stream.h"

namespace rtgate {
namespace {

using text::is_valid_utf8;
using text::to_valid_utf8;

TEST(Utf8, ValidTextComesBackUnchanged) {
  for (const std::string s :
       {"", "cyclic", "ktimers/0", "h\xc3\xa9te", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "a\\xffb"}) {
    EXPECT_TRUE(is_valid_utf8(s)) << s;
    EXPECT_EQ(to_valid_utf8(s), s);
  }
}

TEST(Utf8, MalformedBytesComeOutAsHexEscapes) {
  EXPECT_EQ(to_valid_utf8("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(to_valid_utf8("a\xc0\x80z"), "a\\xc0\\x80z");                // overlong NUL
  EXPECT_EQ(to_valid_utf8("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(to_valid_utf8("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
  EXPECT_EQ(to_valid_utf8("ok\xe2\x82"), "ok\\xe2\\x82");                // cut short
  EXPECT_EQ(to_valid_utf8("\xe2\x82\xac\x80"), "\xe2\x82\xac\\x80");     // a stray continuation
  for (const std::string s : {"\xff", "\xc0\x80", "\xe0\x80\x80", "\xf5\x80\x80\x80"}) {
    EXPECT_FALSE(is_valid_utf8(s));
    EXPECT_TRUE(is_valid_utf8(to_valid_utf8(s)));
  }
}

TEST(Utf8, EveryByteStringBecomesValid) {
  std::string all;
  for (int i = 1; i < 256; ++i) all += static_cast<char>(i);
  for (std::size_t cut = 0; cut < all.size(); cut += 7) {
    EXPECT_TRUE(is_valid_utf8(to_valid_utf8(all.substr(cut))));
  }
}

// A file name or a comm printed on a terminal: no escape sequence, no second line.
TEST(Utf8, ATerminalGetsNoControlCharacter) {
  using text::for_terminal;
  EXPECT_EQ(for_terminal("a\x1b]0;owned\x07"
                         "b"),
            "a\\x1b]0;owned\\x07b");
  EXPECT_EQ(for_terminal("one\ntwo\r\x7f"), "one\\x0atwo\\x0d\\x7f");
  EXPECT_EQ(for_terminal("\xc2\x9b"
                         "31m"),
            "\\xc2\\x9b31m")
      << "C1's CSI";
  EXPECT_EQ(for_terminal("h\xc3\xa9te \xc2\xa0\xff"), "h\xc3\xa9te \xc2\xa0\\xff");
  EXPECT_EQ(for_terminal("a\tb\nc\x1b", true), "a\tb\nc\\x1b") << "a table keeps its lines";
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  for (const char c : for_terminal(all)) {
    EXPECT_TRUE(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) << int(c);
  }
}

TEST(Utf8, JsonOfAnInvalidStringIsStillWritten) {
  nlohmann::ordered_json j{{"comm", "\xff\xfe"}, {"host", "ok"}};
  EXPECT_THROW((void)j.dump(), nlohmann::json::type_error) << "what the result writer hit";
  const std::string text = json_stream::dump_valid(j);
  EXPECT_FALSE(nlohmann::json::parse(text, nullptr, false).is_discarded()) << text;
}

TEST(Utf8, MarkupGetsOnlyXmlCharacters) {
  EXPECT_EQ(markup_escape("a\xff<b>\xef\xbf\xbf\xef\xbf\xbe\x01z"), "a\\xff&lt;b&gt;z");
  EXPECT_EQ(markup_escape("\xef\xbf\xbd"), "\xef\xbf\xbd") << "U+FFFD is a Char";
}

TEST(Utf8, PrometheusLabelsAreValidText) {
  prometheus::MetricFamily f;
  f.name = "rtgate_test";
  f.help = "help \xff";
  f.type = prometheus::MetricType::Gauge;
  prometheus::ClientMetric m;
  m.label.push_back({"host", "b\xfe\"x"});
  m.gauge.value = 1;
  f.metric.push_back(m);
  const std::string text = prom::exposition_text({f});
  EXPECT_TRUE(is_valid_utf8(text)) << text;
  EXPECT_NE(text.find("host=\"b\\\\xfe\\\"x\""), std::string::npos) << text;
  EXPECT_NE(text.find("help \\\\xff"), std::string::npos) << text;
}

}  // namespace
}  // namespace rtgate
