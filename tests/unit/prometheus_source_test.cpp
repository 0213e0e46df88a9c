// What `history --prometheus` accepts before it asks anything, and how it says a server failed.
#include "gate/prometheus/prometheus_source.h"

#include <gtest/gtest.h>

#include "gate/history/prometheus_history.h"

namespace rtgate::gate {
namespace {

TEST(PrometheusSource, MatchersArePromqlLabelMatchersWithOrWithoutBraces) {
  std::string why;
  EXPECT_EQ(prometheus_matchers(R"({host="lab1"})", &why), R"(host="lab1")");
  EXPECT_EQ(prometheus_matchers(R"(host="lab1", suite=~"cyclic|lock\\..*",job!="x")", &why),
            R"(host="lab1", suite=~"cyclic|lock\\..*",job!="x")");
  EXPECT_EQ(prometheus_matchers("", &why), "");
  for (const char* bad : {R"(host="x"} or vector(1) {)", "host=lab1", R"({host="x")",
                          R"(host="x"}[5m])", R"(1host="x")", R"(host="unterminated)"}) {
    EXPECT_FALSE(prometheus_matchers(bad, &why).has_value()) << bad;
    EXPECT_NE(why.find("label matchers"), std::string::npos) << why;
  }
}

TEST(PrometheusSource, AnUnreachableServerOrABadUrlIsOneLine) {
  HistoryBuilder b(Policy{});
  int n = -1;
  PrometheusSource src{.url = "http://127.0.0.1:1", .match = R"(host="x")"};
  src.span_s = 3600;
  std::string e = read_prometheus_history(src, Policy{}, b, &n);
  EXPECT_NE(e.find("Prometheus at http://127.0.0.1:1: "), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos);
  EXPECT_EQ(n, 0);
  src.url = "file:///etc/passwd";
  e = read_prometheus_history(src, Policy{}, b, &n);
  EXPECT_NE(e.find("not an http:// or https:// URL"), std::string::npos) << e;
}

}  // namespace
}  // namespace rtgate::gate
