#include "importers/tool_histogram.h"

#include <cmath>
#include <limits>

#include "importers/importer.h"

namespace rtgate::importers {
namespace {

constexpr std::uint64_t kMaxNs = std::numeric_limits<std::uint64_t>::max() / 4;

std::uint64_t to_ns(std::uint64_t v, std::uint64_t unit_ns, const std::string& where) {
  if (v > kMaxNs / unit_ns) throw ImportError(where + ": " + std::to_string(v) + " is too large");
  return v * unit_ns;
}

void check_extremes(std::uint64_t count, std::uint64_t min, double mean, std::uint64_t max,
                    const std::string& where) {
  if (count == 0) return;
  if (min > max) {
    throw ImportError(where + ": min " + std::to_string(min) + " above max " + std::to_string(max));
  }
  // The tool prints its average rounded (2 or 3 decimals, or truncated to a whole unit).
  if (!std::isfinite(mean) || mean < static_cast<double>(min) - 1 ||
      mean > static_cast<double>(max) + 1) {
    throw ImportError(where + ": average " + std::to_string(mean) + " outside [min, max]");
  }
}

// Keeps the rounded average inside [min, max], where a histogram's mean must lie.
double clamped(double mean, std::uint64_t min, std::uint64_t max) {
  return std::fmin(std::fmax(mean, static_cast<double>(min)), static_cast<double>(max));
}

}  // namespace

Metric histogram_metric(const std::string& name, const ToolHistogram& h, const std::string& where) {
  check_extremes(h.count, h.min, h.mean, h.max, where);
  std::uint64_t in_buckets = 0;
  for (const auto& [v, c] : h.buckets) {
    if (c > h.count - in_buckets) {
      throw ImportError(where + ": the histogram holds more samples than the count of " +
                        std::to_string(h.count));
    }
    in_buckets += c;
    if (c > 0 && (v < h.min || v > h.max)) {
      throw ImportError(where + ": histogram bucket " + std::to_string(v) + " outside [min " +
                        std::to_string(h.min) + ", max " + std::to_string(h.max) + "]");
    }
  }
  if (in_buckets + h.overflow != h.count) {
    throw ImportError(where + ": histogram " + std::to_string(in_buckets) + " + overflow " +
                      std::to_string(h.overflow) + " is not the count of " +
                      std::to_string(h.count));
  }
  const std::uint64_t min_ns = to_ns(h.min, h.unit_ns, where);
  const std::uint64_t max_ns = to_ns(h.max, h.unit_ns, where);
  const double mean_ns = clamped(h.mean, h.min, h.max) * static_cast<double>(h.unit_ns);
  std::vector<Bucket> buckets;
  long double sum = 0, sq = 0;  // about the tool's mean, in ns
  const auto add = [&](std::uint64_t value_ns, std::uint64_t c) {
    const std::size_t i = LatencyHistogram::bucket_index(value_ns);
    buckets.push_back({LatencyHistogram::bucket_lower(i), LatencyHistogram::bucket_upper(i), c});
    const long double d = static_cast<long double>(value_ns) - mean_ns;
    sum += d * c;
    sq += d * d * c;
  };
  for (const auto& [v, c] : h.buckets) {
    if (c > 0) add(to_ns(v, h.unit_ns, where), c);
  }
  if (h.overflow > 0) {
    // Placed at the max in the histogram; for the stddev at the mean the average leaves them.
    const std::size_t i = LatencyHistogram::bucket_index(max_ns);
    buckets.push_back(
        {LatencyHistogram::bucket_lower(i), LatencyHistogram::bucket_upper(i), h.overflow});
    const long double d = -sum / static_cast<long double>(h.overflow);
    sq += d * d * h.overflow;
  }
  const double var = h.count > 0 ? static_cast<double>(sq / h.count) : 0;
  LatencyHistogram hist = LatencyHistogram::empty_compact();
  // Overflowed samples sit in the max's bucket (below 2^34 ns): none is LatencyHistogram's own
  // overflow, which holds only samples beyond its range.
  if (max_ns >= LatencyHistogram::kRangeEnd) {
    throw ImportError(where + ": max " + std::to_string(h.max) + " beyond rtgate's 17 s range");
  }
  if (!hist.restore(buckets, h.count, min_ns, max_ns, mean_ns, std::sqrt(std::fmax(var, 0)), 0)) {
    throw ImportError(where + ": the histogram does not fit its count, min and max");
  }
  Metric m = Metric::latency(name, std::move(hist), {});
  LatencySummary& run = m.runs.front();
  // The quantiles whose rank lies among the overflowed samples are only bounded: unknown. (The
  // top rank is the exact max, known however many overflowed.)
  const std::uint64_t known = h.count - h.overflow;
  const auto unknown_above = [&](double q, const char* quantile, std::uint64_t& field) {
    const auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(h.count)));
    if (rank <= known || rank >= h.count) return;
    field = 0;
    m.unknown_quantiles.push_back(quantile);
  };
  unknown_above(0.5, "p50", run.p50);
  unknown_above(0.9, "p90", run.p90);
  unknown_above(0.99, "p99", run.p99);
  unknown_above(0.999, "p999", run.p999);
  unknown_above(0.9999, "p9999", run.p9999);
  return m;
}

Metric summary_metric(const std::string& name, std::uint64_t count, std::uint64_t min, double mean,
                      std::uint64_t max, std::uint64_t unit_ns, const std::string& where) {
  check_extremes(count, min, mean, max, where);
  Metric m;
  m.name = name;
  m.kind = MetricKind::kLatency;
  m.unit = "ns";
  m.better = Better::kLower;
  m.summary_only = true;
  LatencySummary s;
  s.count = count;
  if (count > 0) {
    s.min = to_ns(min, unit_ns, where);
    s.max = to_ns(max, unit_ns, where);
    s.mean = clamped(mean, min, max) * static_cast<double>(unit_ns);
  }
  m.runs.push_back(s);
  return m;
}

}  // namespace rtgate::importers
