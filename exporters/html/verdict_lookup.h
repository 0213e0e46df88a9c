// The gate's verdicts on the metrics of one suite, by case and metric, for the report's tables
// and case sections (a suite of a thousand cases has thousands of metrics: a map, not a scan).
#pragma once

#include <string>
#include <unordered_map>

#include "gate/model/verdict.h"

namespace rtgate::html {

class VerdictIndex {
 public:
  explicit VerdictIndex(const gate::SuiteVerdict* v) : suite_(v) {
    if (v == nullptr) return;
    for (const gate::MetricVerdict& m : v->metrics) by_name_[key(m.case_name, m.metric)] = &m;
  }
  // null when the suite has no verdicts or none for this metric.
  const gate::MetricVerdict* find(const std::string& case_name, const std::string& metric) const {
    const auto it = by_name_.find(key(case_name, metric));
    return it == by_name_.end() ? nullptr : it->second;
  }
  const gate::SuiteVerdict* suite() const { return suite_; }

 private:
  static std::string key(const std::string& c, const std::string& m) { return c + '\0' + m; }
  const gate::SuiteVerdict* suite_;
  std::unordered_map<std::string, const gate::MetricVerdict*> by_name_;
};

}  // namespace rtgate::html
