// The report's readiness table: each item's level on both sides, a difference marked, the fix
// as code, every text escaped; no table for results that recorded none.
#include <gtest/gtest.h>

#include "exporters/html/readiness_section.h"

namespace rtgate::html {
namespace {

TEST(HtmlReadiness, EachItemWithBothSidesLevelsAndItsFix) {
  RunReport cur, base;
  EXPECT_EQ(readiness_section(cur, &base), "");
  cur.environment.readiness = {
      {.item = "cpu isolation",
       .level = "bad",
       .why = "outside <isolcpus>",
       .fix = "isolcpus=2-3",
       .evidence = ""},
      {.item = "smt", .level = "ok", .why = "no sibling", .fix = "", .evidence = ""}};
  base.environment.readiness = {
      {.item = "cpu isolation", .level = "ok", .why = "", .fix = "", .evidence = ""},
      {.item = "smt", .level = "ok", .why = "", .fix = "", .evidence = ""}};
  const std::string s = readiness_section(cur, &base);
  EXPECT_NE(s.find("Not ready when the run started: 1 bad, 0 warn."), std::string::npos) << s;
  EXPECT_NE(s.find("<tr class=\"diff\"><td>cpu isolation</td><td><span class=\"b b-bad\">bad"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("outside &lt;isolcpus&gt;"), std::string::npos);
  EXPECT_NE(s.find("<code>isolcpus=2-3</code>"), std::string::npos);
  EXPECT_EQ(s.find("<isolcpus>"), std::string::npos);
  const std::string alone = readiness_section(base, nullptr);
  EXPECT_NE(alone.find("Ready when the run started."), std::string::npos) << alone;
  EXPECT_NE(alone.find("<th>level</th>"), std::string::npos) << alone;
}

}  // namespace
}  // namespace rtgate::html
