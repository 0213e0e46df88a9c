// --prom-buckets and --prom-cases: which series the Prometheus exporters (--textfile, --push and
// serve's /metrics) make of a result. Options only: this spec makes no exporter of its own.
#include "exporters/export_registry.h"
#include "exporters/prometheus/series_options.h"

RTGATE_EXPORTER(
    {.name = "prometheus-series",
     .options = {{rtgate::prom::kBucketsFlag, "SET",
                  "latency histogram buckets for Prometheus: coarse (10us..10ms, 8 series), "
                  "standard (1-2-5 from 1us to 100ms, 17), fine (ten a decade, 52), none, or "
                  "bounds such as 20us,100us,1ms",
                  rtgate::prom::kDefaultBuckets},
                 {rtgate::prom::kCasesFlag, "all|suite",
                  "Prometheus series per case and metric (all), or only each suite's worst case "
                  "per metric (suite: for very large selections)",
                  "all"}},
     .check = [](const rtgate::ExportValues& v) -> std::string {
       std::string why;
       return rtgate::prom::parse_series_options(v.at(rtgate::prom::kBucketsFlag),
                                                 v.at(rtgate::prom::kCasesFlag), &why)
                  ? ""
                  : why;
     },
     .order = 0})
