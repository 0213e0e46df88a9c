#include "gate/history/change_points.h"

#include <algorithm>
#include <map>

#include "gate/noise/change_estimate.h"

namespace rtgate::gate {
namespace {

double median_of(std::vector<double> xs) {
  const auto mid = xs.begin() + static_cast<std::ptrdiff_t>(xs.size() / 2);
  std::nth_element(xs.begin(), mid, xs.end());
  if (xs.size() % 2 == 1) return *mid;
  return (*mid + *std::max_element(xs.begin(), mid)) / 2;
}

// Prefix sums of a centred series: any segment's mean and sum of squares in O(1).
class Segments {
 public:
  explicit Segments(const std::vector<double>& y) : s1_(y.size() + 1), s2_(y.size() + 1) {
    double centre = 0;
    for (double v : y) centre += v / static_cast<double>(y.size());
    for (std::size_t i = 0; i < y.size(); ++i) {
      const double v = y[i] - centre;
      s1_[i + 1] = s1_[i] + v;
      s2_[i + 1] = s2_[i] + v * v;
    }
  }
  double mean(int lo, int hi) const { return (s1_[hi] - s1_[lo]) / (hi - lo); }
  double ss(int lo, int hi) const {
    const double m = mean(lo, hi);
    return std::max(0.0, s2_[hi] - s2_[lo] - (hi - lo) * m * m);
  }

 private:
  std::vector<double> s1_, s2_;
};

struct Split {
  double t = 0, se = NAN, size = NAN, df = 0;
};

// The pooled two-sample t of [lo, s) against [s, hi).
Split split_at(const Segments& seg, int lo, int s, int hi, double resolution) {
  Split out;
  const double n1 = s - lo, n2 = hi - s;
  out.df = n1 + n2 - 2;
  const double var = std::max((seg.ss(lo, s) + seg.ss(s, hi)) / out.df, resolution * resolution);
  out.se = std::sqrt(var * (1 / n1 + 1 / n2));
  out.size = seg.mean(s, hi) - seg.mean(lo, s);
  out.t = out.size / out.se;
  return out;
}

void search(const Segments& seg, int lo, int hi, const ChangePointTest& test,
            std::vector<Shift>& found) {
  const int m = test.min_segment;
  if (hi - lo < 2 * m || hi - lo < 3) return;
  int best = -1;
  Split top;
  for (int s = lo + m; s <= hi - m; ++s) {
    const Split sp = split_at(seg, lo, s, hi, test.resolution);
    if (best < 0 || std::abs(sp.t) > std::abs(top.t)) {
      best = s;
      top = sp;
    }
  }
  top.df = std::min(top.df, test.split_tail_df);
  const int splits = hi - lo - 2 * m + 1;
  const double p = std::min(1.0, 2 * upper_tail(std::abs(top.t), top.df) * splits);
  if (!(p <= test.alpha)) return;
  const double half = t_critical(0.05, top.df) * top.se;
  found.push_back({.at = best,
                   .before = best - lo,
                   .after = hi - best,
                   .size = top.size,
                   .lo = top.size - half,
                   .hi = top.size + half,
                   .se = top.se,
                   .df = top.df,
                   .p = p,
                   .found = true});
  search(seg, lo, best, test, found);
  search(seg, best, hi, test, found);
}

}  // namespace

Shift test_newest(const std::vector<double>& raw, const std::vector<int>& kernel,
                  const SeriesFindings& f, const ChangePointTest& test) {
  const std::vector<double>& cleaned = f.cleaned;
  const std::vector<Shift>& changes = f.changes;
  const int n = static_cast<int>(raw.size());
  int b = n - 1;
  while (b > 0 && kernel[static_cast<std::size_t>(b - 1)] == kernel.back()) --b;
  // The segment before: from the last change point before the newest kernel.
  int c = 0;
  for (const Shift& s : changes) {
    if (s.at < b) c = std::max(c, s.at);
  }
  Shift out;
  if (b == 0 || b - c < test.min_before) return out;
  const std::vector<double> before(cleaned.begin() + c, cleaned.begin() + b);
  const std::vector<double> after(raw.begin() + b, raw.end());
  const std::vector<double> raw_before(raw.begin() + c, raw.begin() + b);
  const double n1 = b - c, n2 = n - b;
  // The level before from the cleaned sessions (an outlier does not move it), the spread from
  // the raw ones: a new session is predicted with the tails the history really has.
  double m1 = 0, m2 = 0, raw_m1 = 0, ss = 0;
  if (raw.empty()) return out;
  for (double v : before) m1 += v / n1;
  for (double v : raw_before) raw_m1 += v / n1;
  for (double v : after) m2 += v / n2;
  for (double v : raw_before) ss += (v - raw_m1) * (v - raw_m1);
  for (double v : after) ss += (v - m2) * (v - m2);
  const double df = std::min(n1 + n2 - 2 > 0 ? n1 + n2 - 2 : n1 - 1, test.tail_df);
  const double var = std::max(ss / df, test.resolution * test.resolution);
  const double se = std::sqrt(var * (1 / n1 + 1 / n2));
  const double size = m2 - m1;
  const double half = t_critical(0.05, df) * se;
  out = {.at = b,
         .before = b - c,
         .after = n - b,
         .size = size,
         .lo = size - half,
         .hi = size + half,
         .se = se,
         .df = df,
         .p = upper_tail((test.higher_is_worse ? size : -size) / se, df),
         .detectable = (t_critical(test.newest_alpha, df) + t_critical(0.10, df)) * se};
  out.found = out.p <= test.newest_alpha;
  return out;
}

namespace {

Drift drift_of(const std::vector<double>& y, const std::vector<int>& kernel, int from) {
  Drift d;
  d.from = from;
  std::map<int, int> ordinal;
  std::vector<double> x;
  for (std::size_t i = static_cast<std::size_t>(from); i < y.size(); ++i) {
    const auto [it, added] = ordinal.emplace(kernel[i], static_cast<int>(ordinal.size()));
    x.push_back(it->second);
  }
  d.kernels = static_cast<int>(ordinal.size());
  const auto n = static_cast<double>(x.size());
  if (d.kernels < 3 || n < 4) return d;
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    mx += x[i] / n;
    my += y[static_cast<std::size_t>(from) + i] / n;
  }
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[static_cast<std::size_t>(from) + i] - my);
  }
  d.per_kernel = sxy / sxx;
  double sse = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double r = y[static_cast<std::size_t>(from) + i] - my - d.per_kernel * (x[i] - mx);
    sse += r * r;
  }
  const double half = t_critical(0.05, n - 2) * std::sqrt(sse / (n - 2) / sxx);
  d.lo = d.per_kernel - half;
  d.hi = d.per_kernel + half;
  return d;
}

}  // namespace

double level_before(const SeriesFindings& f, const Shift& s) {
  double sum = 0;
  for (int i = s.at - s.before; i < s.at; ++i) sum += f.cleaned[static_cast<std::size_t>(i)];
  return sum / s.before;
}

std::vector<double> hampel_clean(const std::vector<double>& values, double k, double floor_sd) {
  const std::size_t n = values.size();
  if (n < 3) return values;
  std::vector<double> diffs;
  for (std::size_t i = 1; i < n; ++i) diffs.push_back(std::abs(values[i] - values[i - 1]));
  // median |d| = 0.6745 * sqrt(2) * sigma for normal successive differences.
  const double sd = std::max(median_of(diffs) / (0.67449 * std::sqrt(2.0)), floor_sd);
  std::vector<double> out(values);
  for (std::size_t i = 0; i < n; ++i) {
    // Three sessions, shifted inwards at the ends: a two-session window's median is its mean,
    // which an outlier at the end would drag along with it.
    const std::size_t first = std::min(i == 0 ? 0 : i - 1, n - 3);
    const double centre = median_of({values[first], values[first + 1], values[first + 2]});
    out[i] = std::clamp(values[i], centre - k * sd, centre + k * sd);
  }
  return out;
}

SeriesFindings find_changes(const std::vector<double>& values, const std::vector<int>& kernel,
                            const ChangePointTest& test) {
  SeriesFindings f;
  f.cleaned = hampel_clean(values, test.hampel_k, test.resolution);
  if (values.empty()) return f;
  const Segments seg(f.cleaned);
  search(seg, 0, static_cast<int>(values.size()), test, f.changes);
  std::sort(f.changes.begin(), f.changes.end(),
            [](const Shift& a, const Shift& b) { return a.at < b.at; });
  f.newest = test_newest(values, kernel, f, test);
  f.drift = drift_of(f.cleaned, kernel, f.changes.empty() ? 0 : f.changes.back().at);
  return f;
}

}  // namespace rtgate::gate
