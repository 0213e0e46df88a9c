// `rtgate serve`: runs the selection every DURATION and serves the latest result, plus live
// gauges while a run is in progress, at http://LISTEN/metrics (prometheus-cpp's Exposer).
//
// The HTTP threads are created from a thread that is SCHED_OTHER and, when the machine has CPUs
// the suites do not measure on, pinned to those: the server threads inherit both, so a scrape
// competes with the RT threads only as an ordinary task.
#include <prometheus/exposer.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "cli/commands.h"
#include "cli/run_common.h"
#include "exporters/console_table.h"
#include "exporters/prometheus/report_series.h"
#include "exporters/prometheus/serve_collectable.h"
#include "framework/env/environment.h"
#include "framework/measure/clock.h"
#include "framework/rt/cpu_list.h"
#include "framework/signals.h"

namespace rtgate::cli {
namespace {

struct ServeArgs {
  RunArgs run;
  std::string listen = "127.0.0.1:9105";
  std::string every = "10m";
};

// HOST:PORT with a numeric port (0: any free one).
bool valid_listen(const std::string& s) {
  const std::size_t colon = s.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  const std::string port = s.substr(colon + 1);
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
    return false;
  return std::stoi(port) <= 65535;
}

// Starts the exposer from a thread pinned to the CPUs nobody measures on (if any), so the
// server's threads inherit that affinity and SCHED_OTHER. Throws what the exposer throws.
std::unique_ptr<prometheus::Exposer> start_exposer(const std::string& listen,
                                                   const std::vector<int>& measured) {
  std::vector<int> housekeeping;
  for (int cpu : rt::allowed_cpus()) {
    if (std::find(measured.begin(), measured.end(), cpu) == measured.end()) {
      housekeeping.push_back(cpu);
    }
  }
  std::unique_ptr<prometheus::Exposer> exposer;
  std::exception_ptr error;
  std::thread starter([&] {
    if (!housekeeping.empty()) {
      cpu_set_t set;
      CPU_ZERO(&set);
      for (int cpu : housekeeping) CPU_SET(cpu, &set);
      sched_setaffinity(0, sizeof set, &set);
    }
    try {
      exposer = std::make_unique<prometheus::Exposer>(listen, 2);
    } catch (...) {
      error = std::current_exception();
    }
  });
  starter.join();
  if (error) std::rethrow_exception(error);
  return exposer;
}

int serve_command(const ServeArgs& args) {
  const RunArgs& a = args.run;
  const std::optional<double> every_s = parse_duration(args.every);
  if (!every_s) {
    print_error("--every '" + args.every + "' is not a duration (e.g. 90s, 10m, 2h)");
    return kExitUsage;
  }
  if (!valid_listen(args.listen)) {
    print_error("--listen '" + args.listen + "' is not HOST:PORT");
    return kExitUsage;
  }
  Prepared p;
  if (int rc = prepare(a, &p); rc != kExitOk) return rc;
  // prepare() checked them: /metrics carries the series the exporters' options choose.
  const prom::SeriesOptions series = prom::series_options(a.exports);
  RunOptions& opt = p.options;
  opt.progress = false;  // serve is a daemon: its live view is /metrics

  auto collectable = std::make_shared<prom::ServeCollectable>(capture_environment());
  std::unique_ptr<prometheus::Exposer> exposer;
  try {
    exposer = start_exposer(args.listen, opt.cpus.empty() ? rt::allowed_cpus() : opt.cpus);
  } catch (const std::exception&) {
    print_error("--listen: cannot listen on " + args.listen +
                " (address in use, or not an address of this host)");
    return kExitUsage;
  }
  exposer->RegisterCollectable(collectable);
  const std::vector<int> ports = exposer->GetListeningPorts();
  const std::string host = args.listen.substr(0, args.listen.rfind(':'));
  std::printf("rtgate: serving http://%s:%d/metrics, running every %gs\n", host.c_str(),
              ports.empty() ? 0 : ports.front(), *every_s);
  std::fflush(stdout);

  opt.on_run = [collectable](const std::string& suite, RunContext* ctx) {
    collectable->on_run(suite, ctx);
  };
  const std::atomic<bool>& interrupt = install_interrupt_handler();
  int rc = kExitOk;
  while (!interrupt.load()) {
    const std::int64_t started = monotonic_ns();
    RunOutcome out = run_suites(p.selection, opt, interrupt);
    if (!out.trace_unavailable.empty()) {
      print_error("--trace is not available here: " + out.trace_unavailable);
      if (opt.require_rt) return kExitEnvironment;
    }
    for (const std::string& w : save_result(a, out.report, true)) print_error(w);
    collectable->set_result(prom::build_metrics(out.report, nullptr, "", series));
    collectable->count_run();
    ConsoleExporter(stdout).write(out.report);
    std::fflush(stdout);
    if (const int export_rc = write_exports(a.exports, {.report = &out.report});
        export_rc != kExitOk) {
      rc = export_rc;
    }
    if (out.abandoned) {
      const int final_rc = finish_stdout(kExitFailed);
      std::fflush(nullptr);
      _exit(final_rc);
    }
    const std::int64_t next = started + static_cast<std::int64_t>(*every_s * 1e9);
    while (!interrupt.load() && monotonic_ns() < next) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  return interrupt.load() ? kExitInterrupted : rc;
}

}  // namespace

void add_serve(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "serve", "run suites every --every and serve the latest results at /metrics");
  auto a = std::make_shared<ServeArgs>();
  add_run_options(cmd, a->run);
  cmd->add_option("--listen", a->listen, "HOST:PORT for /metrics (port 0: any free port)")
      ->capture_default_str();
  cmd->add_option("--every", a->every, "start a run this often: 90s, 10m, 2h, 1d")
      ->capture_default_str();
  cmd->callback([a, &exit_code] { exit_code = serve_command(*a); });
}

}  // namespace rtgate::cli
