// A board's history's verdicts as Prometheus series (`rtgate history --push`, `--textfile`): the
// outcome, per followed statistic the newest kernel's test, and each change point that counts,
// so that Grafana shows a regression where the data is and the alert rules fire on the judge's
// verdicts (METRICS.md, "The history's verdicts").
#pragma once

#include "exporters/exporter.h"
#include "exporters/prometheus/report_series.h"

namespace rtgate::prom {

// The host the history is of ("unknown" when its sessions do not say).
std::string history_host(const HistoryDocument& doc);

void build_history_series(const HistoryDocument& doc, SeriesSink& sink);

}  // namespace rtgate::prom
