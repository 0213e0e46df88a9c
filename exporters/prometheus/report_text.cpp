#include "exporters/prometheus/report_text.h"

#include <algorithm>

#include "exporters/prometheus/text_format.h"

namespace rtgate::prom {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

}  // namespace

void ReportText::family(const prometheus::MetricFamily& f) {
  Text& t = families_.emplace_back();
  t.family.name = f.name;
  t.family.help = f.help;
  t.family.type = f.type;
  append_family_header(t.header, f);
}

void ReportText::series(std::size_t family, prometheus::ClientMetric&& m) {
  Text& t = families_.at(family);
  line_.clear();
  append_series(line_, t.family, m);
  if (t.chunks.empty() || t.chunks.back().size() + line_.size() > t.chunks.back().capacity()) {
    t.chunks.emplace_back().reserve(std::max(kChunkBytes, line_.size()));
  }
  t.chunks.back() += line_;
  ++t.series;
}

std::vector<std::string_view> ReportText::pieces() const {
  std::vector<std::string_view> out;
  for (const Text& t : families_) {
    if (t.series == 0) continue;
    out.emplace_back(t.header);
    for (const std::string& c : t.chunks) out.emplace_back(c);
  }
  return out;
}

std::size_t ReportText::size() const {
  std::size_t n = 0;
  for (const std::string_view p : pieces()) n += p.size();
  return n;
}

std::string ReportText::str() const {
  std::string out;
  out.reserve(size());
  for (const std::string_view p : pieces()) out += p;
  return out;
}

ReportText build_text(const RunReport& report, const gate::GateVerdict* gate,
                      const std::string& only_suite, const SeriesOptions& options) {
  ReportText text;
  build_series(report, gate, only_suite, options, text);
  return text;
}

}  // namespace rtgate::prom
