#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "base/text/cpu_list.h"
#include "base/text/utf8.h"
#include "cli/commands.h"
#include "cli/env_readiness.h"
#include "framework/env/environment.h"
#include "framework/rt/debugfs_mount.h"
#include "framework/rt/rt_checks.h"
#include "framework/signals.h"
#include "framework/trace/hwlat_check.h"
#include "results/json_stream.h"
#include "results/result_json.h"

namespace rtgate::cli {
namespace {

std::string limit(std::int64_t v) { return v < 0 ? "unlimited" : std::to_string(v); }

nlohmann::ordered_json readiness_json(const rt::Readiness& r) {
  return {{"sched_fifo", r.sched_fifo},
          {"reason", r.reason},
          {"is_root", r.is_root},
          {"cap_sys_nice", r.cap_sys_nice},
          {"cap_ipc_lock", r.cap_ipc_lock},
          {"rlimit_rtprio", r.rlimit_rtprio},
          {"rlimit_memlock", r.rlimit_memlock},
          {"rt_runtime_us", r.rt_runtime_us},
          {"rt_period_us", r.rt_period_us},
          {"throttling", r.throttling},
          {"cpu_dma_latency_writable", r.cpu_dma_latency_writable}};
}

// The machine's facts and this process's RT privileges, a row each.
void print_machine(const Environment& e, const rt::Readiness& r) {
  const auto row = [](const char* k, const std::string& v) {
    std::printf("  %-20s %s\n", k, v.empty() ? "-" : text::for_terminal(v).c_str());
  };
  std::printf("machine\n");
  row("hostname", e.hostname);
  row("kernel", e.kernel_release + " " + e.kernel_version);
  row("preempt model", e.preempt_model + (e.realtime ? " (PREEMPT_RT)" : ""));
  row("cpu", e.cpu_model);
  row("online cpus", std::to_string(e.online_cpus) + " (" + e.online_cpu_list + ")");
  row("isolcpus", e.isolated_cpus);
  row("nohz_full", e.nohz_full);
  row("smt", e.smt);
  row("governors", e.governors);
  row("clocksource", e.clocksource);
  row("hypervisor", e.hypervisor.empty() ? "none (bare metal)" : e.hypervisor);
  row("cmdline", e.cmdline);
  std::printf("rt readiness\n");
  row("SCHED_FIFO", r.sched_fifo ? "yes" : "no: " + r.reason);
  row("root", r.is_root ? "yes" : "no");
  row("CAP_SYS_NICE", r.cap_sys_nice ? "yes" : "no");
  row("CAP_IPC_LOCK", r.cap_ipc_lock ? "yes" : "no");
  row("RLIMIT_RTPRIO", limit(r.rlimit_rtprio));
  row("RLIMIT_MEMLOCK", limit(r.rlimit_memlock));
  row("rt throttling", r.throttling ? std::to_string(r.rt_runtime_us) + " of " +
                                          std::to_string(r.rt_period_us) + " us per period"
                                    : "off");
  row("cpu_dma_latency",
      (e.cpu_dma_latency_us < 0 ? std::string("unreadable")
                                : std::to_string(e.cpu_dma_latency_us) + " us") +
          (r.cpu_dma_latency_writable ? " (rtgate holds it at 0 during runs)" : " (read-only)"));
}

struct EnvOptions {
  bool json = false, require_ready = false;
  std::string cpus, root = "/";
  double hwlat_seconds = 0;
  std::int64_t hwlat_threshold_us = 0;
};

// The optional hwlat run, its item added to `findings`. The exit code it asks for: 4 when the
// tracer cannot run here, 130 when a signal cut it short, else 0.
int add_hwlat(const EnvOptions& o, const readiness::Context& ctx,
              std::vector<readiness::Finding>& findings) {
  const std::atomic<bool>& interrupt = install_interrupt_handler();
  const trace::HwlatOptions h{
      .seconds = o.hwlat_seconds,
      .cpus = ctx.cpus,
      .threshold_us = o.hwlat_threshold_us,
      // The clock check has judged it already: anything but ok is a VM.
      .hypervisor = std::any_of(findings.begin(), findings.end(), [](const readiness::Finding& f) {
        return f.item == "hypervisor" && f.level != readiness::Level::kOk;
      })};
  std::fprintf(stderr, "rtgate env: hwlat for %g s on CPUs %s (CPUs spin with interrupts off)\n",
               h.seconds, text::format_cpu_list(h.cpus).c_str());
  bool unavailable = false;
  findings.push_back(trace::run_hwlat(
      h, [&] { return interrupt.load(); }, &unavailable));
  if (unavailable) return kExitEnvironment;
  return interrupt.load() ? kExitInterrupted : kExitOk;
}

void print_env(const EnvOptions& o, const std::vector<readiness::Finding>& findings) {
  if (o.root != "/") {  // another machine's files: only what they tell
    if (o.json) {
      std::printf("%s\n",
                  json_stream::dump_valid({{"verdicts", findings_json(findings)}}, 2).c_str());
    } else {
      print_findings(findings);
    }
    return;
  }
  RunReport probe;
  probe.environment = capture_environment();
  const rt::Readiness r = rt::check_readiness();
  if (o.json) {
    auto out = to_json(probe)["environment"];
    out["readiness"] = readiness_json(r);
    out["verdicts"] = findings_json(findings);
    std::printf("%s\n", json_stream::dump_valid(out, 2).c_str());
    return;
  }
  print_machine(probe.environment, r);
  print_findings(findings);
}

// The command's work; its exit code.
int run_env(const EnvOptions& o) {
  const readiness::SysRoot root(o.root);
  readiness::Context ctx{.root = root, .cpus = readiness::online_cpus(root)};
  if (!o.cpus.empty()) {
    const auto cpus = text::parse_cpu_list(o.cpus);
    if (!cpus || cpus->empty()) {
      print_error("--cpus '" + o.cpus + "' is not a CPU list (e.g. 1-3)");
      return kExitUsage;
    }
    ctx.cpus = *cpus;
  }
  if (o.hwlat_seconds > 0 && o.root != "/") {
    print_error("--hwlat measures this machine: it cannot be used with --root");
    return kExitUsage;
  }
  // The scheduler's debug files (a dynamic kernel's preemption mode, the fair server), as a
  // run reads them; unmounted again when mounted here.
  std::optional<rt::DebugfsMount> debugfs;
  if (o.root == "/") debugfs.emplace();
  std::vector<readiness::Finding> findings = readiness::assess(ctx);
  const int hwlat_rc = o.hwlat_seconds > 0 ? add_hwlat(o, ctx, findings) : kExitOk;
  print_env(o, findings);
  if (hwlat_rc != kExitOk) return hwlat_rc;
  return o.require_ready && readiness::count(findings, readiness::Level::kBad) > 0
             ? kExitEnvironment
             : kExitOk;
}

}  // namespace

void add_env(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "env", "is this machine ready for RT measurement: each item ok, warn or bad, with its fix");
  auto o = std::make_shared<EnvOptions>();
  cmd->add_flag("--json", o->json, "machine-readable output");
  cmd->add_flag("--require-ready", o->require_ready,
                "exit 4 when an item is bad (not ready for RT measurement)");
  cmd->add_option("--cpus", o->cpus,
                  "the CPUs the measurement will use (default: all online), as for run");
  cmd->add_option("--root", o->root,
                  "judge the /proc and /sys under this directory (a copy of another machine's)");
  cmd->add_option("--hwlat", o->hwlat_seconds,
                  "also run the kernel's hwlat tracer this long on those CPUs (SMIs, firmware and "
                  "host stalls); exit 4 when it cannot run here")
      ->check(CLI::Range(1.0, 3600.0));
  cmd->add_option("--hwlat-threshold", o->hwlat_threshold_us,
                  "the smallest gap hwlat records, in us (default: the kernel's, 10)")
      ->check(CLI::Range(1, 1000000));
  cmd->callback([o, &exit_code] { exit_code = run_env(*o); });
}

}  // namespace rtgate::cli
