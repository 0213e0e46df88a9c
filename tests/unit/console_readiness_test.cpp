// The console's last line names what was bad for RT measurement during the run; a ready run, or
// a result from before readiness was recorded, adds nothing.
#include <gtest/gtest.h>

#include "exporters/console_table.h"

namespace rtgate {
namespace {

TEST(ConsoleReadiness, TheFooterNamesTheBadItems) {
  RunReport r;
  r.complete = true;
  EXPECT_EQ(render_console(r).find("not ready"), std::string::npos);
  r.environment.readiness = {
      {.item = "preempt model", .level = "bad", .why = "", .fix = "", .evidence = ""},
      {.item = "smt", .level = "warn", .why = "", .fix = "", .evidence = ""},
      {.item = "hypervisor", .level = "bad", .why = "", .fix = "", .evidence = ""}};
  const std::string out = render_console(r);
  EXPECT_NE(out.find("not ready for RT measurement: preempt model, hypervisor (rtgate env says "
                     "why and how to fix)\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("smt"), std::string::npos);
}

}  // namespace
}  // namespace rtgate
