// The rtgate subcommands. Each add_* wires one subcommand into the CLI11 app; its callback
// stores the process exit code in `exit_code`.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "base/exit_codes.h"

namespace rtgate::cli {

void add_list(CLI::App& app, int& exit_code);
void add_describe(CLI::App& app, int& exit_code);
void add_env(CLI::App& app, int& exit_code);
void add_run(CLI::App& app, int& exit_code);
void add_locks(CLI::App& app, int& exit_code);
void add_compare(CLI::App& app, int& exit_code);
void add_gate(CLI::App& app, int& exit_code);
void add_calibrate(CLI::App& app, int& exit_code);
void add_serve(CLI::App& app, int& exit_code);
void add_report(CLI::App& app, int& exit_code);
void add_export(CLI::App& app, int& exit_code);
void add_history(CLI::App& app, int& exit_code);
void add_import(CLI::App& app, int& exit_code);

// A one-line error on stderr, "rtgate: error: ...".
void print_error(const std::string& message);

// Flushes stdout and reports, as one line on stderr, a write to it that failed (a closed pipe,
// a full disk). Returns `rc`, or kExitFailed for an rc of 0 when stdout failed. Every exit path
// goes through it, _exit ones included.
int finish_stdout(int rc);

// Rewrites selector exclusions ("-lock.*") that CLI11 would take for short options into
// "--exclude=lock.*". "-p..." with '=' stays a parameter, and known short options stay as they are.
std::vector<std::string> rewrite_exclusions(const std::vector<std::string>& args);

}  // namespace rtgate::cli
