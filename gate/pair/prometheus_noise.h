// The session noise of a gate whose history is in Prometheus (`rtgate gate --prometheus URL`):
// what NoiseModel::from_sessions learns from result files, learned from the points a farm
// exported instead (rtgate_history_point and its variance and spread). The history's sessions
// on the baseline's host join the gate's own baselines; a session that is one of the gate's
// files (its host and finish time) is taken from the file, and the current session is left out.
// They are grouped by boot in time order, as files are.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gate/prometheus/prometheus_source.h"
#include "gate/noise/session_noise.h"

namespace rtgate::gate {

class PrometheusNoise {
 public:
  // Reads the sessions of `src`: the statistics `policy` follows that `base` has. Returns "" or
  // the reader's one-line error.
  std::string read(const PrometheusSource& src, const Policy& policy, const RunReport& base);
  // The noise for judging `cur` against `baselines` (the first is the baseline).
  NoiseModel model(const std::vector<const RunReport*>& baselines, const RunReport& cur,
                   const Policy& policy) const;
  // " (--prometheus: 41 of 43 sessions on the baseline's host)" for the gate's noise line.
  std::string describe() const;

  // What read does, in parts (for tests): what to keep of the sessions, then each session.
  void expect(const Policy& policy, const RunReport& base);
  void take(const PrometheusSession& s, const PrometheusSeriesSet& set);

 private:
  struct Session {
    std::string host, boot;
    double finished = 0;
    std::vector<std::pair<int, SessionPoint>> points;  // by index into keys_
  };
  std::string host_;                  // the baseline's
  std::set<NoiseModel::Key> wanted_;  // the baseline's statistics
  std::vector<int> key_of_;           // the reader's series index -> keys_ index; -1: not wanted
  std::vector<NoiseModel::Key> keys_;
  std::vector<Session> sessions_;
  int other_hosts_ = 0;
};

}  // namespace rtgate::gate
