// The registered exporters' options on a command (run, serve, export), their checks before
// anything runs, and writing every exporter the user asked for (exporters/export_registry.h).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "exporters/export_registry.h"

namespace rtgate::cli {

// Each of these works on the exporters that write `document` (ExporterSpec::documents).

// Adds the exporters' options to `cmd`, bound to `values` (which must outlive the app; an option
// not given stays ""), and --format when formats (ExporterSpec::format) write `document`.
void add_export_options(CLI::App* cmd, ExportValues& values, Document document = kResultDocument);

// Runs the exporters' checks on `values` (defaults filled in). Returns kExitOk, or prints the
// first refusal as one line and returns kExitUsage.
int check_exports(const ExportValues& values, Document document = kResultDocument);

// True when the values ask for at least one exporter.
bool any_export(const ExportValues& values, Document document = kResultDocument);

// Writes the format --format chose (to in.out), then every exporter the values ask for, in
// registration order. Prints each failure (an
// error) or warning as one line. Returns kExitOk, kExitFailed (a write failed) or
// kExitEnvironment (a required push failed), the worst of them.
int write_exports(const ExportValues& values, const ExportInput& in,
                  Document document = kResultDocument);

// Writes `document` in the format named `format` (an exporter registered with it), as
// write_exports does.
int print_format(const std::string& format, const ExportInput& in, Document document);

// The values the user gave, as "FLAG VALUE" pairs (for --dry-run's plan).
std::vector<std::pair<std::string, std::string>> given_exports(const ExportValues& values);

// The values the user gave, as the arguments that give them again: "--junit", "F",
// "--push-required".
std::vector<std::string> export_arguments(const ExportValues& values);

}  // namespace rtgate::cli
