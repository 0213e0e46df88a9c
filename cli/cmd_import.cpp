// `rtgate import FILE... -o result.json`: other tools' output (rt-tests --json, rtla timerlat
// hist) as an rtgate result, so that gate, report, export and history read it (importers/).
// Prints what each file became and what the gate cannot judge of it. Exit 0 when written, 2 on
// an input that is none of the formats or malformed (one line), 1 when the write failed.
#include <cstdio>

#include "base/io/output_file.h"
#include "cli/commands.h"
#include "framework/env/environment.h"
#include "importers/import_files.h"
#include "results/result_json.h"

namespace rtgate::cli {
namespace {

std::string formats_text() {
  std::string out = "Formats, told from the content:\n";
  for (const importers::ImporterSpec& s : importers::ImporterRegistry::instance().all()) {
    out += "  " + s.name + ": " + s.description + "\n";
  }
  return out;
}

// One line per file, then each suite's notes and the statistics the gate cannot judge.
void print_summary(const importers::Imported& im, const std::string& out, std::FILE* to) {
  std::fprintf(to, "imported %zu file%s into %s\n", im.files.size(),
               im.files.size() == 1 ? "" : "s", out.c_str());
  for (const importers::ImportedFile& f : im.files) {
    std::fprintf(to, "  %s: %s -> suite %s\n", f.path.c_str(), f.format.c_str(), f.suite.c_str());
  }
  for (const SuiteResult& s : im.report.suites) {
    std::fprintf(to, "%s: %zu case%s, %d run%s%s\n", s.name.c_str(), s.cases.size(),
                 s.cases.size() == 1 ? "" : "s", s.runs, s.runs == 1 ? "" : "s",
                 s.status == SuiteStatus::kPassed
                     ? ""
                     : (", " + std::string(to_string(s.status)) + ": " + s.reason).c_str());
    if (s.imported) {
      for (const std::string& n : s.imported->notes) std::fprintf(to, "  note: %s\n", n.c_str());
    }
    for (const Case& c : s.cases) {
      for (const Metric& m : c.metrics) {
        if (m.unknown_quantiles.empty()) continue;
        std::string qs;
        for (const std::string& q : m.unknown_quantiles) qs += (qs.empty() ? "" : ", ") + q;
        std::fprintf(to,
                     "  %s %s: %s lie among the samples beyond the tool's histogram range in "
                     "some run: the gate does not judge them\n",
                     c.name.c_str(), m.name.c_str(), qs.c_str());
      }
    }
  }
}

}  // namespace

void add_import(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "import",
      "other tools' output (rt-tests --json, rtla timerlat hist) as an rtgate result, for gate, "
      "report, export and history; files of one tool become runs of one suite");
  struct Opts {
    std::vector<std::string> files;
    std::string out;
    importers::ImportOptions options;
    bool host_env = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("FILE", o->files, "the tools' output files, one run each, of one session")
      ->required();
  cmd->add_option("-o,--output", o->out, "result JSON to write ('.gz' for gzip, '-' for stdout)")
      ->required();
  cmd->add_option("--cmdline", o->options.cmdline,
                  "the command that wrote a file whose format does not record it (rtla's text), "
                  "e.g. \"rtla timerlat hist -p 1000 -c 0-1 -d 60\"");
  cmd->add_flag("--host-env", o->host_env,
                "take what the files do not record (CPU model, isolation, throttling, ...) from "
                "this machine, after checking they name it: for an import where the tool ran");
  cmd->footer(formats_text());
  cmd->callback([o, &exit_code] {
    exit_code = kExitUsage;
    if (const std::string why = check_output(o->out); !why.empty()) {
      print_error("-o: " + why);
      return;
    }
    importers::Imported im;
    const Environment here = o->host_env ? capture_environment() : Environment{};
    o->options.host = o->host_env ? &here : nullptr;
    try {
      im = importers::import_files(o->files, o->options);
    } catch (const importers::ImportError& e) {
      print_error(e.what());
      return;
    }
    if (const std::string w = write_result_file(o->out, im.report); !w.empty()) {
      print_error(w);
      exit_code = kExitFailed;
      return;
    }
    print_summary(im, o->out, output_is_stdout(o->out) ? stderr : stdout);
    exit_code = kExitOk;
  });
}

}  // namespace rtgate::cli
