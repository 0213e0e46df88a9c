#include "exporters/prometheus/text_format.h"

#include <charconv>
#include <cmath>

#include "base/text/utf8.h"

namespace rtgate::prom {
namespace {

void append_number(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
  } else if (std::isinf(v)) {
    out += v < 0 ? "-Inf" : "+Inf";
  } else {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
  }
}

void append_number(std::string& out, std::uint64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// Backslash and line feed escaped, and in a label value (quoted) the double quote too: the
// format's two escapings, of HELP text and of label values.
// Bytes that are not UTF-8 (the exposition format is UTF-8) come out as \xNN, whose backslash
// is then escaped like any other.
void append_escaped(std::string& out, const std::string& raw, bool quoted) {
  for (const char c : text::to_valid_utf8(raw)) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quoted) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
}

// An le or quantile label's value as prometheus-cpp spells it (16 significant digits, %g):
// Prometheus 2 takes label values as strings, so a textfile bucket and a pushed one must agree.
void append_label_number(std::string& out, double v) {
  if (std::isinf(v)) {
    out += v < 0 ? "-Inf" : "+Inf";
    return;
  }
  char buf[40];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 16);
  out.append(buf, r.ptr);
}

// name{labels[,extra="value"]} value
template <class V>
void append_sample(std::string& out, const std::string& name, const char* suffix,
                   const prometheus::ClientMetric& m, const char* extra_name, double extra_value,
                   V value) {
  out += name;
  out += suffix;
  if (!m.label.empty() || extra_name != nullptr) {
    out += '{';
    bool first = true;
    for (const auto& l : m.label) {
      if (!first) out += ',';
      first = false;
      out += l.name;
      out += "=\"";
      append_escaped(out, l.value, /*quoted=*/true);
      out += '"';
    }
    if (extra_name != nullptr) {
      if (!first) out += ',';
      out += extra_name;
      out += "=\"";
      append_label_number(out, extra_value);
      out += '"';
    }
    out += '}';
  }
  out += ' ';
  append_number(out, value);
  if (m.timestamp_ms != 0) {
    out += ' ';
    append_number(out, static_cast<std::uint64_t>(m.timestamp_ms));
  }
  out += '\n';
}

const char* type_name(prometheus::MetricType t) {
  switch (t) {
    case prometheus::MetricType::Counter:
      return "counter";
    case prometheus::MetricType::Gauge:
      return "gauge";
    case prometheus::MetricType::Summary:
      return "summary";
    case prometheus::MetricType::Histogram:
      return "histogram";
    case prometheus::MetricType::Untyped:
      break;
  }
  return "untyped";
}

}  // namespace

void append_family_header(std::string& out, const prometheus::MetricFamily& f) {
  out += "# HELP ";
  out += f.name;
  out += ' ';
  append_escaped(out, f.help, /*quoted=*/false);
  out += "\n# TYPE ";
  out += f.name;
  out += ' ';
  out += type_name(f.type);
  out += '\n';
}

void append_series(std::string& out, const prometheus::MetricFamily& f,
                   const prometheus::ClientMetric& m) {
  switch (f.type) {
    case prometheus::MetricType::Counter:
      append_sample(out, f.name, "", m, nullptr, 0, m.counter.value);
      break;
    case prometheus::MetricType::Gauge:
      append_sample(out, f.name, "", m, nullptr, 0, m.gauge.value);
      break;
    case prometheus::MetricType::Untyped:
      append_sample(out, f.name, "", m, nullptr, 0, m.untyped.value);
      break;
    case prometheus::MetricType::Summary:
      append_sample(out, f.name, "_count", m, nullptr, 0, m.summary.sample_count);
      append_sample(out, f.name, "_sum", m, nullptr, 0, m.summary.sample_sum);
      for (const auto& q : m.summary.quantile) {
        append_sample(out, f.name, "", m, "quantile", q.quantile, q.value);
      }
      break;
    case prometheus::MetricType::Histogram:
      append_sample(out, f.name, "_count", m, nullptr, 0, m.histogram.sample_count);
      append_sample(out, f.name, "_sum", m, nullptr, 0, m.histogram.sample_sum);
      for (const auto& b : m.histogram.bucket) {
        append_sample(out, f.name, "_bucket", m, "le", b.upper_bound, b.cumulative_count);
      }
      break;
  }
}

std::string exposition_text(const std::vector<prometheus::MetricFamily>& families) {
  std::string out;
  for (const prometheus::MetricFamily& f : families) {
    if (f.metric.empty()) continue;
    append_family_header(out, f);
    for (const prometheus::ClientMetric& m : f.metric) append_series(out, f, m);
  }
  return out;
}

}  // namespace rtgate::prom
