// What a history or a gate read from Prometheus needs of a session: rtgate_history_point, its
// variance and its runs' spread per statistic the gate judges, equal to what the file readers
// take of the same result, and the boot as a number.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "exporters/prometheus/report_series.h"
#include "gate/history/history.h"
#include "gate/noise/session_noise.h"
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
  std::vector<const prometheus::MetricFamily*> parts;
  for (const char* name : {"rtgate_history_point", "rtgate_history_point_variance",
                           "rtgate_history_point_spread", "rtgate_history_point_spread_df"}) {
    parts.push_back(family(fams, name));
    ASSERT_NE(parts.back(), nullptr) << name;
    ASSERT_EQ(parts.back()->metric.size(), parts[0]->metric.size()) << name;
  }
  std::map<std::string, gate::SessionPoint> got;
  for (std::size_t i = 0; i < parts[0]->metric.size(); ++i) {
    const auto& m = parts[0]->metric[i];
    std::string key = label(m, "suite");
    for (const char* l : {"case", "metric", "statistic"}) key += '\x1f' + label(m, l);
    EXPECT_FALSE(label(m, "metric_kind").empty());
    EXPECT_FALSE(label(m, "better").empty());
    for (const auto* part : parts)
      EXPECT_EQ(label(part->metric[i], "statistic"), label(m, "statistic"));
    got[key] = {.mean = m.gauge.value,
                .mean_var = parts[1]->metric[i].gauge.value,
                .spread_ss = parts[2]->metric[i].gauge.value,
                .spread_df = parts[3]->metric[i].gauge.value};
  }
  // The history's reader, under the default policy: each of its values.
  gate::HistoryBuilder b(gate::Policy{});
  const gate::SessionValues history = b.reduce(r, kSession);
  ASSERT_FALSE(history.values.empty());
  for (const gate::SessionValues::Value& v : history.values) {
    ASSERT_TRUE(got.contains(v.key)) << v.key;
    EXPECT_DOUBLE_EQ(got[v.key].mean, v.value) << v.key;
    EXPECT_DOUBLE_EQ(got[v.key].mean_var, v.within_var) << v.key;
  }
  // The gate's noise model: exactly its points, reported-only metrics included.
  gate::NoiseModel::Points gate_points;
  gate::add_session_points(r, 0, gate::Policy{}, gate_points);
  EXPECT_EQ(got.size(), gate_points.size());
  EXPECT_GT(got.size(), history.values.size());
  for (const auto& [k, groups] : gate_points) {
    const auto& [suite, case_name, metric, statistic] = k;
    const std::string key = suite + '\x1f' + case_name + '\x1f' + metric + '\x1f' + statistic;
    ASSERT_TRUE(got.contains(key)) << key;
    const gate::SessionPoint& p = groups.at(0).front();
    EXPECT_DOUBLE_EQ(got[key].mean, p.mean) << key;
    EXPECT_DOUBLE_EQ(got[key].mean_var, p.mean_var) << key;
    EXPECT_DOUBLE_EQ(got[key].spread_ss, p.spread_ss) << key;
    EXPECT_DOUBLE_EQ(got[key].spread_df, p.spread_df) << key;
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
