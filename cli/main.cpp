// rtgate: CLI11 wiring only. The work happens in framework/ and exporters/.
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string_view>

#include "base/io/input_limit.h"
#include "base/text/utf8.h"
#include "cli/commands.h"
#include "cli/version.h"
#include "framework/selection.h"
#include "framework/signals.h"

namespace rtgate::cli {

void print_error(const std::string& message) {
  std::fprintf(stderr, "rtgate: error: %s\n", text::for_terminal(message).c_str());
}

int finish_stdout(int rc) {
  // A failed write leaves the stream's error flag; the flush retries what is still buffered
  // and gives the errno (EPIPE, ENOSPC) when that fails too.
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  int e = flushed ? 0 : errno;
  if (flushed && !std::ferror(stdout)) return rc;
  if (e == 0) {
    // The failure was earlier and stdio dropped what it could not write. A pipe whose reader
    // has gone polls as POLLERR: name that case; others stay a generic "write error".
    pollfd p{.fd = STDOUT_FILENO, .events = POLLOUT, .revents = 0};
    if (poll(&p, 1, 0) == 1 && (p.revents & POLLERR) != 0) e = EPIPE;
  }
  print_error(std::string("cannot write to stdout: ") +
              (e != 0 ? std::strerror(e) : "write error"));
  std::clearerr(stdout);
  return rc == kExitOk ? kExitFailed : rc;
}

std::vector<std::string> rewrite_exclusions(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const std::string& a : args) {
    // "-10" is a negative number, "-x.y" a selector: only a letter or a glob starts one.
    const bool short_form = a.size() > 2 && a[0] == '-' &&
                            (std::isalpha(static_cast<unsigned char>(a[1])) ||
                             std::string_view("*?[").find(a[1]) != std::string_view::npos);
    const bool attached_param = a.rfind("-p", 0) == 0 && a.find('=') != std::string::npos;
    if (short_form && !attached_param) {
      out.push_back("--exclude=" + a.substr(1));
    } else {
      out.push_back(a);
    }
  }
  return out;
}

}  // namespace rtgate::cli

int main(int argc, char** argv) {
  using namespace rtgate::cli;
  using namespace rtgate;
  rtgate::survive_sigpipe();
  CLI::App app{"rtgate: real-time latency regression tests for Linux", "rtgate"};
  app.set_version_flag("--version", version_text());
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 ok, 1 regression or failed suite, 2 usage or input error, 3 inconclusive,\n"
      "4 environment cannot run what was required, 130 interrupted.");
  app.add_option_function<std::size_t>(
         "--max-input", [](std::size_t mib) { rtgate::io::set_max_input_mib(mib); },
         "The most read from one result or imported file, in MiB (default 256, or "
         "RTGATE_MAX_INPUT_MB): past it the file is refused (exit 2), naming it")
      ->type_name("MB")
      ->check(CLI::Range(std::size_t{1}, rtgate::io::kMaxInputMiB));
  // Global options may follow the command too (rtgate history DIR --max-input 1024).
  app.fallthrough();
  int exit_code = kExitOk;
  add_list(app, exit_code);
  add_describe(app, exit_code);
  add_env(app, exit_code);
  add_run(app, exit_code);
  add_locks(app, exit_code);
  add_compare(app, exit_code);
  add_gate(app, exit_code);
  add_history(app, exit_code);
  add_calibrate(app, exit_code);
  add_serve(app, exit_code);
  add_report(app, exit_code);
  add_export(app, exit_code);
  add_import(app, exit_code);

  std::vector<std::string> args(argv + 1, argv + argc);
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  if (!args.empty() && !args[0].empty() && args[0][0] != '-' &&
      std::find(names.begin(), names.end(), args[0]) == names.end()) {
    std::string msg = "unknown command '" + args[0] + "'";
    const auto near = rtgate::closest_names(names, args[0], 1);
    msg += near.empty() ? " (see rtgate --help)" : "; did you mean " + near.front() + "?";
    print_error(msg);
    return kExitUsage;
  }
  args = rewrite_exclusions(args);
  std::reverse(args.begin(), args.end());  // CLI11 takes the vector form back to front
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return finish_stdout(app.exit(e));  // --help, --version
    print_error(std::string(e.what()) + " (see rtgate --help)");
    return kExitUsage;
  } catch (const std::exception& e) {
    print_error(e.what());
    return kExitFailed;
  }
  return finish_stdout(exit_code);
}
