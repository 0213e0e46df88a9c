// A board's history read from Prometheus (`rtgate history --prometheus`): the sessions of
// gate/prometheus/prometheus_source.h into the same HistoryBuilder as files.
#pragma once

#include <string>

#include "gate/history/history.h"
#include "gate/prometheus/prometheus_source.h"

namespace rtgate::gate {

// Adds every session of `src` to `b` (whose policy is `policy`); "" or the reader's one-line
// error. *sessions counts the sessions read.
std::string read_prometheus_history(const PrometheusSource& src, const Policy& policy,
                                    HistoryBuilder& b, int* sessions);

}  // namespace rtgate::gate
