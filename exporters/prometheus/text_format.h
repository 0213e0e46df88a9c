// The Prometheus text exposition format (0.0.4) of metric families, written into one string.
//
// prometheus-cpp's TextSerializer writes through std::ostream a token at a time: 52 MB/s here,
// 3.6 s for the 850,000 series of a 10,000-case result (issue 16's bench_scale). This writer
// appends to one reserved string with std::to_chars and is what --textfile and bench_scale use;
// the library's Exposer and Gateway keep their own serializer. Numbers are the shortest text that
// reads back as the same double; NaN and infinities as the format spells them.
#pragma once

#include <prometheus/metric_family.h>

#include <string>
#include <vector>

namespace rtgate::prom {

std::string exposition_text(const std::vector<prometheus::MetricFamily>& families);
// The same without copying the families (ReportMetrics hands its own over).
std::string exposition_text(const std::vector<const prometheus::MetricFamily*>& families);

}  // namespace rtgate::prom
