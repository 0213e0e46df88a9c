// The older encodings of a result document, made from what rtgate writes now (/3), for the tests
// that check they still load (and a one-case report to write): /2 (the layout in every histogram,
// "spans" of consecutive buckets, per-run columns always) and /1 (buckets as [lower, upper, count],
// runs as summary objects). And the lab result those tests write and read.
#pragma once

#include <nlohmann/json.hpp>
#include <random>
#include <utility>
#include <vector>

#include "results/latency_histogram.h"
#include "results/report.h"
#include "tests/unit/gate_sim.h"

namespace rtgate::test {

// A small board's result: cyclic on 4 CPUs and lock.latency over 3 locks, 5 runs (seeded).
inline RunReport lab_result() {
  std::mt19937_64 rng(3);
  gate::sim::Layout l;
  l.cpus = 4;
  l.locks = 3;
  return gate::sim::side(rng, l, 5, {});
}

// A report of one suite ("cyclic") with one case ("cpu0") holding `metrics`.
inline RunReport one_case(std::vector<Metric> metrics) {
  Case c;
  c.name = "cpu0";
  c.metrics = std::move(metrics);
  SuiteResult s;
  s.name = "cyclic";
  s.cases.push_back(std::move(c));
  RunReport r;
  r.suites.push_back(std::move(s));
  return r;
}

inline nlohmann::json as_v2(nlohmann::json doc) {
  using json = nlohmann::json;
  doc["schema"] = "rtgate.result/2";
  const json layout = doc["histogram_layout"];
  doc.erase("histogram_layout");
  for (auto& s : doc["suites"]) {
    for (auto& c : s["cases"]) {
      for (auto& m : c["metrics"]) {
        if (!m.contains("histogram")) continue;
        json spans = json::array();
        std::int64_t next = 0, end = -1;
        for (const auto& x : m["histogram"]["counts"]) {
          const auto v = x.get<std::int64_t>();
          if (v < 0) {
            next -= v;
            continue;
          }
          if (next != end) spans.push_back(json::array({next}));
          spans.back().push_back(v);
          end = ++next;
        }
        m["histogram"] = layout;
        m["histogram"]["spans"] = spans;
        if (!m.contains("runs")) {  // /3 leaves out the one run that is the summary
          json cols;
          for (const auto& [k, v] : m["summary"].items()) cols[k] = json::array({v});
          m["runs"] = cols;
        }
      }
    }
  }
  return doc;
}

inline nlohmann::json as_v1(nlohmann::json doc) {
  using json = nlohmann::json;
  doc = as_v2(std::move(doc));
  doc["schema"] = "rtgate.result/1";
  for (auto& s : doc["suites"]) {
    for (auto& c : s["cases"]) {
      for (auto& m : c["metrics"]) {
        if (!m.contains("histogram")) continue;
        json buckets = json::array();
        for (const auto& span : m["histogram"]["spans"]) {
          for (std::size_t k = 1; k < span.size(); ++k) {
            const std::size_t i = span[0].get<std::size_t>() + k - 1;
            buckets.push_back(
                {LatencyHistogram::bucket_lower(i), LatencyHistogram::bucket_upper(i), span[k]});
          }
        }
        m["histogram"].erase("spans");
        m["histogram"]["buckets"] = buckets;
        json runs = json::array();
        const json cols = m["runs"];
        for (std::size_t r = 0; r < cols["count"].size(); ++r) {
          json one;
          for (const auto& [k, v] : cols.items()) one[k] = v[r];
          runs.push_back(one);
        }
        m["runs"] = runs;
      }
    }
  }
  return doc;
}

}  // namespace rtgate::test
