// The Prometheus text exposition format (0.0.4) of metric families.
//
// prometheus-cpp's TextSerializer writes through std::ostream a token at a time, which is slow
// for the hundreds of thousands of series of a lab-scale result (build/bench_scale). This writer
// appends to a string with std::to_chars; --textfile and --push write through it a series at a
// time (report_text.h), `serve`'s Exposer keeps the library's serializer. Numbers are the shortest
// text that reads back as the same double; NaN and infinities as the format spells them.
#pragma once

#include <prometheus/metric_family.h>

#include <string>
#include <vector>

namespace rtgate::prom {

// The "# HELP" and "# TYPE" lines that open a family.
void append_family_header(std::string& out, const prometheus::MetricFamily& f);
// The sample lines of one series of `f` (a histogram's _count, _sum and buckets; a summary's
// _count, _sum and quantiles; a gauge's value).
void append_series(std::string& out, const prometheus::MetricFamily& f,
                   const prometheus::ClientMetric& m);

// Every family that has series, each as its header and its series, in one string (the text of
// families built as data, which the tests hold to the library's serializer and to ReportText).
std::string exposition_text(const std::vector<prometheus::MetricFamily>& families);

}  // namespace rtgate::prom
