// `--prometheus URL` and its companions, for the commands that read a board's history: the
// options, and the history they name (gate/prometheus/prometheus_source.h).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "gate/history/history_reader.h"
#include "gate/prometheus/prometheus_source.h"

namespace rtgate::cli {

struct PrometheusOptions {
  std::string url, match, since = "90d", step = "1m", bearer_file, basic_file, ca_file;
};

void add_prometheus_options(CLI::App* cmd, PrometheusOptions& o);

// The source the options name, or nullopt with a one-line *error (exit 2).
std::optional<gate::PrometheusSource> prometheus_source(const PrometheusOptions& o,
                                                        std::string* error);

// The history the options name, or nullopt with a one-line *error (exit 2).
std::optional<gate::HistoryInputs> load_prometheus_history(const PrometheusOptions& o,
                                                           const gate::Policy& policy,
                                                           std::string* error);

}  // namespace rtgate::cli
