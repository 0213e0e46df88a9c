// A result's Prometheus exposition text, written a series at a time as the series are built
// (build_series), for --textfile and --push. The series never exist as objects all at once: at
// lab scale (--prom-cases all on thousands of cases) they are several times larger as
// prometheus-cpp data than as text (build/bench_scale measures both).
//
// The text format needs each family's series together, and the builder visits a case's families
// in turn, so each family keeps its own text, in chunks of about 1 MB: appending never copies
// what is already written, and the whole is handed out as pieces, never concatenated.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "exporters/prometheus/report_series.h"

namespace rtgate::prom {

class ReportText : public SeriesSink {
 public:
  void family(const prometheus::MetricFamily& f) override;
  void series(std::size_t family, prometheus::ClientMetric&& m) override;

  // The text as pieces in exposition order (views into this object): each family that has
  // series, its header and then its series.
  std::vector<std::string_view> pieces() const;
  std::size_t size() const;  // bytes of all pieces
  std::string str() const;   // the pieces joined (tests)

 private:
  struct Text {
    prometheus::MetricFamily family;  // name, help and type; no series
    std::string header;
    std::vector<std::string> chunks;
    std::size_t series = 0;
  };
  std::vector<Text> families_;
  std::string line_;  // the series being written, reused
};

// build_series() into a ReportText.
ReportText build_text(const RunReport& report, const gate::GateVerdict* gate = nullptr,
                      const std::string& only_suite = "", const SeriesOptions& options = {});

}  // namespace rtgate::prom
