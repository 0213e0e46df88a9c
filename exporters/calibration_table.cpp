#include "exporters/calibration_table.h"

#include <algorithm>
#include <cmath>

#include "base/text/strings.h"
#include "gate/model/format.h"
#include "gate/noise/run_values.h"

namespace rtgate {
namespace {

using text::printf_string;

std::string ratio_pct(double ratio) {
  return std::isfinite(ratio) ? printf_string("+%.1f%%", 100 * (ratio - 1)) : "n/a";
}

std::vector<std::string> row_of(const gate::MetricNoise& m, const gate::StatisticNoise& s) {
  std::vector<std::string> row = {m.suite, m.case_name, m.metric};
  if (m.event_count) {
    row.push_back("rate");
    row.push_back(printf_string("%.3g/run", m.rate_per_run) +
                  (m.phi >= 1.05 ? printf_string(" phi %.1f", m.phi) : ""));
    for (double d : s.detectable) row.push_back(printf_string("+%.2g/run", d));
    row.push_back(printf_string("%.1f/run", s.supported_floor_pct));
  } else {
    row.push_back(gate::statistic_label(s.statistic));
    row.push_back(printf_string("%.1f%%", 100 * (std::exp(s.sd) - 1)));
    for (double d : s.detectable) row.push_back(ratio_pct(d));
    row.push_back(printf_string("%.0f%%", s.supported_floor_pct));
  }
  return row;
}

std::string render_table(const std::vector<gate::MetricNoise>& noise, int plan_runs) {
  std::vector<std::vector<std::string>> rows = {{"suite", "case", "metric", "statistic",
                                                 "per-run SD", "detect@5", "detect@10", "detect@20",
                                                 "floor@" + std::to_string(plan_runs)}};
  for (const gate::MetricNoise& m : noise) {
    for (const gate::StatisticNoise& s : m.stats) rows.push_back(row_of(m, s));
  }
  std::vector<std::size_t> width(rows.front().size(), 0);
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i) {
      // Names left-aligned, figures right-aligned so their digits line up.
      const std::string pad(width[i] - r[i].size(), ' ');
      line += (i == 0 ? "" : "  ") + (i < 4 ? r[i] + pad : pad + r[i]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace

std::string render_calibration(const std::vector<gate::MetricNoise>& noise,
                               const gate::Policy& defaults, const gate::CalibrationOptions& o) {
  const std::string n = std::to_string(o.plan_runs);
  return render_table(noise, o.plan_runs) +
         "per-run SD: between-run spread; detect@N: the change a gate detects with 90% power at "
         "N\nruns a side; floor@" +
         n +
         ": the smallest noise floor with which the whole A/A gate of these\nstatistics is "
         "unchanged 9 times in 10 at " +
         n +
         " runs a side. Event counts (rate): mean per\nrun, its overdispersion phi when above 1, "
         "and changes in events per run.\npredicted: with these floors (never below the "
         "defaults), an A/A gate of one session at " +
         n + "\nruns a side exits 0 with probability " +
         printf_string("%.0f%%", 100 * gate::predicted_aa_unchanged(noise, defaults, o)) +
         "; between boots, less (the session spread:\nrtgate calibrate --sessions N).\n";
}

std::string render_session_noise(const gate::NoiseModel& model, int sessions,
                                 const std::string& dir) {
  // Columns of at least these widths, names left-aligned, figures right-aligned; a longer name
  // (they come from results) widens its cell rather than being cut.
  auto line = [](const std::string& a, const std::string& b, const std::string& c,
                 const std::string& d, const std::string& e, const std::string& f,
                 const std::string& g) {
    const auto left = [](const std::string& s, std::size_t w) {
      return s + std::string(w > s.size() ? w - s.size() : 0, ' ');
    };
    const auto right = [](const std::string& s, std::size_t w) {
      return std::string(w > s.size() ? w - s.size() : 0, ' ') + s;
    };
    return left(a, 14) + " " + left(b, 14) + " " + left(c, 18) + " " + left(d, 9) + " " +
           right(e, 10) + " " + right(f, 6) + " " + right(g, 12) + "\n";
  };
  std::string out = line("suite", "case", "metric", "statistic", "session SD", "df", "run SD");
  for (const auto& [key, n] : model.known()) {
    const auto& [suite, case_name, metric, statistic] = key;
    const bool rate = statistic == "rate";
    const double tau = std::sqrt(std::max(0.0, n.tau_sq));
    out += line(suite, case_name, metric, statistic,
                rate ? gate::fmt::num(tau) : gate::fmt::num(100 * std::expm1(tau)) + "%",
                gate::fmt::num(n.tau_df),
                n.run_df > 0 ? (rate ? "phi " + gate::fmt::num(n.run_var)
                                     : gate::fmt::num(100 * std::sqrt(n.run_var)) + "%")
                             : "-");
  }
  out += "session SD: how far a session's mean moves between sessions beyond what its runs "
         "explain (rate: of the log rate); df: how well " +
         std::to_string(sessions) + " sessions know it.\nuse: rtgate gate BASE CUR --history " +
         dir + "\n";
  if (model.one_boot()) {
    out += "WARNING: all " + std::to_string(sessions) +
           " sessions ran in one boot. They measure the spread between processes of this boot, "
           "which only gates within one boot use. What moves between boots (memory layout, IRQ "
           "placement, a VM's placement on its host) is not learned: a gate across boots takes "
           "the default prior, until a history of at least " +
           std::to_string(gate::kMinHistory) +
           " boots (ci/gate-kernel.sh keeps one) replaces it.\n";
  }
  return out;
}

}  // namespace rtgate
