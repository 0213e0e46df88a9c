// What `rtgate report` costs at lab scale: a 1,000-case result with its baseline (the issue's
// bound: under 20 MB, under 5 s). Prints, per phase, wall time and the process's peak RSS, and
// the page's size. Figures, not a timed test.
//
//   bench_report                 # simulated: 200 cyclic CPUs + 800 lock.latency locks, 5 runs
//   bench_report REAL.json [N]   # REAL's cases copied round-robin to N cases (default 1000),
//                                # its own copy as the baseline
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>

#include "base/io/output_file.h"
#include "exporters/html/html_report.h"
#include "gate/pair/compare.h"
#include "results/result_json.h"
#include "tests/bench/scale_layout.h"
#include "tests/unit/gate_sim.h"

namespace {

using Clock = std::chrono::steady_clock;

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024;
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("rtgate-bench-report-" + std::to_string(getpid()));
  fs::create_directories(dir);
  rtgate::RunReport base, cur;
  if (argc > 1) {
    const std::size_t n = argc > 2 ? std::stoul(argv[2]) : 1000;
    base = cur = rtgate::bench::widened(rtgate::read_report_file(argv[1]), n);
  } else {
    std::mt19937_64 rng(7);
    rtgate::gate::sim::Layout l;
    l.cpus = 200;
    l.locks = 800;
    base = rtgate::gate::sim::side(rng, l, 5, {});
    cur = rtgate::gate::sim::side(rng, l, 5, {});
  }
  std::size_t cases = 0;
  for (const auto& s : cur.suites) cases += s.cases.size();
  rtgate::write_result_file((dir / "base.json").string(), base);
  rtgate::write_result_file((dir / "cur.json").string(), cur);
  base = cur = {};
  std::printf("%zu cases a side; JSON %.1f MB a side\n", cases,
              static_cast<double>(fs::file_size(dir / "cur.json")) / 1e6);

  // The phases `rtgate report CUR --baseline BASE -o F` runs.
  const auto t0 = Clock::now();
  const rtgate::RunReport b = rtgate::read_report_file((dir / "base.json").string());
  const rtgate::RunReport c = rtgate::read_report_file((dir / "cur.json").string());
  const auto t1 = Clock::now();
  const rtgate::gate::GateVerdict g = rtgate::gate::compare(b, c);
  const auto t2 = Clock::now();
  const std::string page = rtgate::html::render_report(c, &b, &g);
  const auto t3 = Clock::now();
  const std::string err = rtgate::write_output((dir / "report.html").string(), page);
  const auto t4 = Clock::now();
  auto s = [](auto a, auto z) { return std::chrono::duration<double>(z - a).count(); };
  std::printf("load both %.2f s, gate %.2f s, render %.2f s, write %.2f s: total %.2f s\n",
              s(t0, t1), s(t1, t2), s(t2, t3), s(t3, t4), s(t0, t4));
  std::printf("report %.2f MB, peak RSS %.0f MB%s\n", static_cast<double>(page.size()) / 1e6,
              peak_rss_mb(), err.empty() ? "" : (", write failed: " + err).c_str());
  fs::remove_all(dir);
  return err.empty() ? 0 : 1;
}
