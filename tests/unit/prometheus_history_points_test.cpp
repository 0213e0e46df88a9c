// What a history read from Prometheus needs of a session: rtgate_history_point and its variance
// per statistic a history follows, equal to what the file reader takes of the same result, and
// the boot as a number.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "exporters/prometheus/report_series.h"
#include "gate/history/history.h"
#include "results/result_json.h"

namespace rtgate::prom {
namespace {

const std::string kSession =
    std::string(RTGATE_SOURCE_DIR) + "/tests/data/sessions/session-01.json.gz";

std::string label(const prometheus::ClientMetric& m, const std::string& name) {
  for (const auto& l : m.label) {
    if (l.name == name) return l.value;
  }
  return "";
}

const prometheus::MetricFamily* family(const std::vector<prometheus::MetricFamily>& fs,
                                       const std::string& name) {
  for (const auto& f : fs) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

TEST(PrometheusHistoryPoints, EveryStatisticAHistoryFollowsIsExportedWithTheFileReadersValue) {
  const RunReport r = read_report_file(kSession);
  const auto fams = build_metrics(r, nullptr, "", {})->Collect();
  const auto* points = family(fams, "rtgate_history_point");
  const auto* vars = family(fams, "rtgate_history_point_variance");
  ASSERT_NE(points, nullptr);
  ASSERT_NE(vars, nullptr);
  ASSERT_EQ(points->metric.size(), vars->metric.size());
  // The file reader's session values of the same result, under the default policy.
  gate::HistoryBuilder b(gate::Policy{});
  const gate::SessionValues want = b.reduce(r, kSession);
  ASSERT_FALSE(want.values.empty());
  std::map<std::string, std::pair<double, double>> got;
  for (std::size_t i = 0; i < points->metric.size(); ++i) {
    const auto& m = points->metric[i];
    std::string key = label(m, "suite");
    for (const char* l : {"case", "metric", "statistic"}) key += '\x1f' + label(m, l);
    EXPECT_FALSE(label(m, "metric_kind").empty());
    EXPECT_FALSE(label(m, "better").empty());
    EXPECT_EQ(label(vars->metric[i], "statistic"), label(m, "statistic"));
    got[key] = {m.gauge.value, vars->metric[i].gauge.value};
  }
  EXPECT_EQ(got.size(), want.values.size());
  for (const gate::SessionValues::Value& v : want.values) {
    ASSERT_TRUE(got.contains(v.key)) << v.key;
    EXPECT_DOUBLE_EQ(got[v.key].first, v.value) << v.key;
    EXPECT_DOUBLE_EQ(got[v.key].second, v.within_var) << v.key;
  }
  // The boot: one number, the same for every result of that boot.
  const auto* boot = family(fams, "rtgate_boot_key");
  ASSERT_NE(boot, nullptr);
  ASSERT_EQ(boot->metric.size(), 1u);
  EXPECT_GT(boot->metric[0].gauge.value, 0);
  EXPECT_LT(boot->metric[0].gauge.value, 0x1p52);
}

// The labels of a board's history series are bounded: nothing per run or per session, so one
// board's export has a fixed number of series whatever the number of sessions.
TEST(PrometheusHistoryPoints, NoLabelChangesFromSessionToSession) {
  const RunReport a = read_report_file(kSession);
  const RunReport b =
      read_report_file(std::string(RTGATE_SOURCE_DIR) + "/tests/data/sessions/session-02.json.gz");
  std::set<std::string> sa, sb;
  for (const auto& [r, out] : {std::pair{&a, &sa}, {&b, &sb}}) {
    for (const auto& f : build_metrics(*r, nullptr, "", {})->Collect()) {
      if (f.name.rfind("rtgate_history_point", 0) != 0 && f.name != "rtgate_boot_key") continue;
      for (const auto& m : f.metric) {
        std::string id = f.name;
        for (const auto& l : m.label) id += "," + l.name + "=" + l.value;
        out->insert(id);
      }
    }
  }
  EXPECT_FALSE(sa.empty());
  EXPECT_EQ(sa, sb);
}

}  // namespace
}  // namespace rtgate::prom
