// What a result costs at lab scale: results of 1,000 and 10,000 cases the way a 256-CPU
// board produces them, and for each size the wall time, peak RSS and output size of writing the
// JSON (-o, plain and .json.gz), loading it, compare, gate, JUnit, the Prometheus text, what serve
// holds, and a push; plus Prometheus series per case and per result. Figures, not a timed test.
//
// Each phase runs in a fresh process (this binary re-executed with --phase), so its peak RSS
// (wait4's ru_maxrss) is its own and not the generator's. A phase that loads reports its load
// time apart from the operation's.
//
//   bench_scale [--cases 1000,10000] [--runs 5] [--push http://127.0.0.1:9091]
//               [--from REAL.json] [--keep DIR]
//
// --from: REAL's cases copied round-robin (renamed "<case>#k") instead of the synthetic board.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "base/io/output_file.h"
#include "exporters/gate_table.h"
#include "exporters/junit_exporter.h"
#include "exporters/prometheus/pushgateway.h"
#include "exporters/prometheus/report_series.h"
#include "exporters/prometheus/report_text.h"
#include "exporters/prometheus/series_options.h"
#include "gate/pair/compare.h"
#include "results/result_json.h"
#include "tests/bench/scale_layout.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Lines a phase prints for the parent: "figure NAME VALUE".
void figure(const char* name, double value) { std::printf("figure %s %.6g\n", name, value); }

// This process's resident set now, from /proc/self/statm.
double resident_mb() {
  std::ifstream statm("/proc/self/statm");
  double size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024 * 1024);
}

rtgate::RunReport load_timed(const std::string& path, const char* name) {
  const auto t0 = Clock::now();
  rtgate::RunReport r = rtgate::read_report_file(path);
  figure(name, since(t0));
  return r;
}

// Prometheus series: the text's sample lines (each bucket and quantile is a series of its own).
// A piece holds whole lines.
std::size_t prom_series(const std::vector<std::string_view>& pieces) {
  std::size_t n = 0;
  for (const std::string_view p : pieces) {
    for (std::size_t at = 0; at < p.size();) {
      const std::size_t end = std::min(p.find('\n', at), p.size());
      if (p[at] != '#') ++n;
      at = end + 1;
    }
  }
  return n;
}

// "write": generate, then what `run -o` does with the result.
int write_phase(const std::vector<std::string>& a) {
  const std::size_t cases = std::stoul(a.at(2));
  const int runs = std::stoi(a.at(3));
  auto t0 = Clock::now();
  rtgate::RunReport r = a.size() > 4 ? rtgate::bench::widened(rtgate::read_report_file(a[4]), cases)
                                     : rtgate::bench::board(cases, runs);
  figure("generate_s", since(t0));
  t0 = Clock::now();
  const std::string w = rtgate::write_result_file(a.at(1), r);
  figure("op_s", since(t0));
  if (!w.empty()) return std::fprintf(stderr, "write: %s\n", w.c_str()), 1;
  return 0;
}

// "compare" or "gate": two loads, the comparison, and its output as the CLI writes it.
int gate_phase(const std::vector<std::string>& a, const std::string& phase) {
  const auto b = load_timed(a.at(1), "load_base_s");
  const auto c = load_timed(a.at(1), "load_cur_s");
  figure("resident_loaded_mb", resident_mb());
  const auto t0 = Clock::now();
  const rtgate::gate::GateVerdict g = rtgate::gate::compare(b, c);
  figure("gate_s", since(t0));
  figure("resident_gated_mb", resident_mb());
  const auto t1 = Clock::now();
  // compare --format json streams the JSON, gate its table, as the CLI does (to a temporary
  // file here, whose length is the output's size).
  std::FILE* out = std::tmpfile();
  if (phase == "compare") {
    rtgate::write_gate_json(g, out);
  } else {
    rtgate::write_gate_table(g, rtgate::TableFormat::kTable, out);
  }
  const auto bytes = static_cast<double>(std::ftell(out));
  std::fclose(out);
  figure("render_s", since(t1));
  figure("op_s", since(t0));
  figure("output_bytes", bytes);
  return 0;
}

// One phase, in this process. Returns the exit code.
int run_phase(const std::vector<std::string>& a) {
  const std::string& phase = a.at(0);
  if (phase == "write") return write_phase(a);
  if (phase == "load") {
    const auto r = load_timed(a.at(1), "load_s");
    // What the loaded report itself holds (the peak also counts the parser's transient buffers).
    figure("resident_mb", resident_mb());
    return r.suites.empty() ? 1 : 0;
  }
  if (phase == "compare" || phase == "gate") return gate_phase(a, phase);
  const auto r = load_timed(a.at(1), "load_s");
  const auto t0 = Clock::now();
  if (phase == "junit") {
    const std::string xml = rtgate::render_junit(rtgate::junit_from_run(r));
    figure("op_s", since(t0));
    figure("output_bytes", static_cast<double>(xml.size()));
    return 0;
  }
  if (phase == "prom") {
    // Optional: --prom-buckets and --prom-cases values.
    std::string why;
    const auto options = rtgate::prom::parse_series_options(a.size() > 2 ? a[2] : "",
                                                            a.size() > 3 ? a[3] : "", &why);
    if (!options) return std::fprintf(stderr, "prom: %s\n", why.c_str()), 2;
    // What --textfile writes and --push sends (a suite at a time): the text, built as written.
    const auto text = rtgate::prom::build_text(r, nullptr, "", *options);
    figure("op_s", since(t0));
    const auto pieces = text.pieces();
    figure("output_bytes", static_cast<double>(text.size()));
    figure("series", static_cast<double>(prom_series(pieces)));
    return 0;
  }
  if (phase == "serve") {
    // What `serve` holds for /metrics: the families as data, and the copy prometheus-cpp's
    // Collect() takes at each scrape.
    const auto metrics = rtgate::prom::build_metrics(r);
    figure("build_s", since(t0));
    const auto t1 = Clock::now();
    const auto families = metrics->Collect();
    figure("collect_s", since(t1));
    figure("op_s", since(t0));
    return families.empty() ? 1 : 0;
  }
  if (phase == "push") {
    std::string why;
    const auto target = rtgate::prom::parse_push_url(a.at(2), &why);
    if (!target) return std::fprintf(stderr, "push: %s\n", why.c_str()), 1;
    const std::string w = rtgate::prom::push_report(*target, r, nullptr, {.attempts = 1});
    figure("op_s", since(t0));
    if (!w.empty()) return std::fprintf(stderr, "push: %s\n", w.c_str()), 1;
    return 0;
  }
  std::fprintf(stderr, "unknown phase %s\n", phase.c_str());
  return 2;
}

struct Measured {
  double wall_s = 0, rss_mb = 0;
  std::vector<std::pair<std::string, double>> figures;
  bool ok = false;
  double get(const std::string& name) const {
    for (const auto& [k, v] : figures) {
      if (k == name) return v;
    }
    return -1;
  }
};

// Runs this binary with --phase ARGS, its stdout captured; wall time and peak RSS from wait4.
Measured measure(const std::vector<std::string>& args, const fs::path& dir) {
  const fs::path out = dir / "phase.out";
  std::vector<std::string> argv_s = {"/proc/self/exe", "--phase"};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : argv_s) argv.push_back(s.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  Measured m;
  const auto t0 = Clock::now();
  pid_t pid = 0;
  if (posix_spawn(&pid, "/proc/self/exe", &fa, nullptr, argv.data(), environ) != 0) return m;
  posix_spawn_file_actions_destroy(&fa);
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  m.wall_s = since(t0);
  m.rss_mb = static_cast<double>(ru.ru_maxrss) / 1024;
  m.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  std::ifstream in(out);
  for (std::string word, name; in >> word;) {
    double v = 0;
    if (word == "figure" && in >> name >> v) m.figures.emplace_back(name, v);
  }
  return m;
}

void row(const char* what, const Measured& m, double bytes = -1) {
  std::printf("  %-9s %8.2f s wall %8.0f MB peak RSS", what, m.wall_s, m.rss_mb);
  if (m.get("op_s") >= 0) std::printf("  op %.2f s", m.get("op_s"));
  if (const double l = m.get("load_s"); l >= 0) std::printf(", load %.2f s", l);
  if (const double r = m.get("resident_mb"); r >= 0) std::printf(" (%.0f MB resident after)", r);
  if (const double b = m.get("build_s"); b >= 0) {
    std::printf(" (build %.2f s, Collect() %.2f s)", b, m.get("collect_s"));
  }
  if (const double l = m.get("load_base_s"); l >= 0) {
    std::printf(", load %.2f + %.2f s, gate %.2f s, render %.2f s", l, m.get("load_cur_s"),
                m.get("gate_s"), m.get("render_s"));
  }
  if (bytes < 0) bytes = m.get("output_bytes");
  if (bytes >= 0) std::printf(", output %.1f MB", bytes / 1e6);
  std::printf("%s\n", m.ok ? "" : "  FAILED");
}

}  // namespace

// Every phase on a result of `n` cases, each in a process of its own, one row each.
void bench_size(std::size_t n, int runs, const std::string& from, const std::string& push,
                const fs::path& dir) {
  const fs::path file = dir / ("result-" + std::to_string(n) + ".json");
  std::vector<std::string> write_args = {"write", file.string(), std::to_string(n),
                                         std::to_string(runs)};
  if (!from.empty()) write_args.push_back(from);
  if (from.empty()) {
    std::printf("%zu cases (synthetic 256-CPU board, %d runs):\n", n, runs);
  } else {
    std::printf("%zu cases (copies of %s's cases):\n", n, from.c_str());
  }
  const Measured w = measure(write_args, dir);
  const double bytes = fs::exists(file) ? static_cast<double>(fs::file_size(file)) : -1;
  std::printf("  (generated in %.2f s)\n", w.get("generate_s"));
  row("write -o", w, bytes);
  // The same result as -o NAME.json.gz, and the gate reading that.
  const fs::path packed = dir / ("result-" + std::to_string(n) + ".json.gz");
  std::vector<std::string> gz_args = write_args;
  gz_args[1] = packed.string();
  const Measured wz = measure(gz_args, dir);
  row("write .gz", wz, fs::exists(packed) ? static_cast<double>(fs::file_size(packed)) : -1);
  row("load", measure({"load", file.string()}, dir));
  row("gate .gz", measure({"gate", packed.string()}, dir));
  row("compare", measure({"compare", file.string()}, dir));
  row("gate", measure({"gate", file.string()}, dir));
  row("junit", measure({"junit", file.string()}, dir));
  const Measured p = measure({"prom", file.string()}, dir);
  row("prom text", p);
  row("serve", measure({"serve", file.string()}, dir));
  if (!push.empty()) {
    row("push", measure({"push", file.string(), push}, dir));
  } else {
    std::printf("  push      skipped (no --push URL)\n");
  }
  if (p.get("series") >= 0) {
    std::printf(
        "  Prometheus series (--prom-buckets coarse, the default): %.0f in the result, "
        "%.1f per case\n",
        p.get("series"), p.get("series") / static_cast<double>(n));
  }
  for (const auto& [buckets, cases] : {std::pair{"standard", "all"}, std::pair{"fine", "all"},
                                       std::pair{"none", "all"}, std::pair{"coarse", "suite"}}) {
    const Measured o = measure({"prom", file.string(), buckets, cases}, dir);
    std::printf(
        "  --prom-buckets %-8s --prom-cases %-5s: %8.0f series, %5.1f per case, "
        "exposition %.2f s, %.1f MB\n",
        buckets, cases, o.get("series"), o.get("series") / static_cast<double>(n), o.get("op_s"),
        o.get("output_bytes") / 1e6);
  }
}

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "--phase") {
    std::vector<std::string> rest(args.begin() + 1, args.end());
    const int rc = run_phase(rest);
    std::fflush(stdout);
    return rc;
  }
  std::vector<std::size_t> sizes = {1000, 10000};
  int runs = 5;
  std::string push, from, keep;
  for (std::size_t i = 0; i + 1 < args.size(); i += 2) {
    if (args[i] == "--cases") {
      sizes.clear();
      std::stringstream ss(args[i + 1]);
      for (std::string n; std::getline(ss, n, ',');) sizes.push_back(std::stoul(n));
    } else if (args[i] == "--runs") {
      runs = std::stoi(args[i + 1]);
    } else if (args[i] == "--push") {
      push = args[i + 1];
    } else if (args[i] == "--from") {
      from = args[i + 1];
    } else if (args[i] == "--keep") {
      keep = args[i + 1];
    } else {
      std::fprintf(stderr, "bench_scale: unknown option %s\n", args[i].c_str());
      return 2;
    }
  }
  const fs::path dir =
      keep.empty() ? fs::temp_directory_path() / ("rtgate-bench-scale-" + std::to_string(getpid()))
                   : fs::path(keep);
  fs::create_directories(dir);
  for (std::size_t n : sizes) bench_size(n, runs, from, push, dir);
  if (keep.empty()) fs::remove_all(dir);
  return 0;
}
