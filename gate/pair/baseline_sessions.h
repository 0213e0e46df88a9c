// The sessions a gate judges with besides the one baseline: further baseline results (each its
// own session) and the host's history (`--history DIR` or `--prometheus URL`), from which the
// session noise is learned (gate/noise/session_noise.h). Loaded once; any current result can then
// be compared, which `run --until-decided` does after every run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gate/model/policy.h"
#include "gate/model/verdict.h"
#include "gate/pair/prometheus_noise.h"
#include "results/report.h"

namespace rtgate::gate {

class BaselineSessions {
 public:
  // Reads the further baselines and every result file under the history directory
  // (results/result_folder.h; a file that is not a result is skipped and counted). On bad input
  // (a named file that cannot be read, a directory that does not exist): nullopt and a one-line
  // *error naming the option. `base` must outlive the object.
  static std::optional<BaselineSessions> load(const RunReport& base,
                                              const std::vector<std::string>& more_baselines,
                                              const std::string& history_dir, std::string* error);

  // The gate of `cur`: the baseline's sessions, and the noise of the history's sessions that
  // measured what the baseline measured on its host (history_mismatch), with the baselines.
  GateVerdict compare(const RunReport& cur, const Policy& policy) const;

  // The history from Prometheus instead of a directory (gate/pair/prometheus_noise.h).
  void set_prometheus(PrometheusNoise noise) { prometheus_ = std::move(noise); }

 private:
  const RunReport* base_ = nullptr;
  std::vector<RunReport> more_, history_;
  int unreadable_ = 0;
  std::optional<PrometheusNoise> prometheus_;
};

}  // namespace rtgate::gate
