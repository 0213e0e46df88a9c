#include "importers/import_files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "base/io/input_limit.h"
#include "importers/bounded_json.h"
#include "importers/rt_tests_json.h"

namespace rtgate::importers {
namespace {

std::string read_input(const std::string& path) {
  std::string why;
  bool too_big = false;
  std::optional<std::string> text = io::read_bounded(path, io::max_input_bytes(), &why, &too_big);
  if (!text) {
    throw ImportError(path + (too_big ? ": " + why + ", the input limit (--max-input)"
                                      : ": cannot read: " + why));
  }
  return std::move(*text);
}

std::string known_formats() {
  std::string out;
  for (const ImporterSpec& s : ImporterRegistry::instance().all()) {
    out += (out.empty() ? "" : ", ") + s.name;
  }
  return out;
}

std::string shown(const ParamValue& v) {
  struct Show {
    std::string operator()(std::int64_t x) const { return std::to_string(x); }
    std::string operator()(double x) const { return std::to_string(x); }
    std::string operator()(bool x) const { return x ? "true" : "false"; }
    std::string operator()(const std::string& x) const { return "'" + x + "'"; }
  };
  return std::visit(Show{}, v);
}

// The first parameter that differs, as "name: a -> b"; "" when none does.
std::string param_difference(const SuiteResult& a, const SuiteResult& b) {
  for (const auto& [k, v] : a.params) {
    const auto it = b.params.find(k);
    if (it == b.params.end()) return k + ": " + shown(v) + " -> (absent)";
    if (!(it->second == v)) return k + ": " + shown(v) + " -> " + shown(it->second);
  }
  for (const auto& [k, v] : b.params) {
    if (!a.params.count(k)) return k + ": (absent) -> " + shown(v);
  }
  return "";
}

// A metric with a histogram in one run and none in another has no meaning merged.
std::string measure_difference(const SuiteResult& a, const SuiteResult& b) {
  for (const Case& bc : b.cases) {
    const Case* ac = a.find(bc.name);
    if (ac == nullptr) continue;
    for (const Metric& bm : bc.metrics) {
      const Metric* am = ac->find(bm.name);
      if (am != nullptr && am->summary_only != bm.summary_only) {
        return bc.name + " " + bm.name + " has a histogram in one file and not in the other";
      }
    }
  }
  return "";
}

void same_machine(const Environment& a, const Environment& b, const std::string& a_name,
                  const std::string& b_name) {
  const auto check = [&](const char* what, const std::string& x, const std::string& y) {
    if (x.empty() || y.empty() || x == y) return;
    throw ImportError(b_name + ": " + what + " '" + y + "', but " + a_name + " '" + x +
                      "': one result is one session of one machine; import them apart");
  };
  check("host", a.hostname, b.hostname);
  check("kernel", a.kernel_release, b.kernel_release);
  check("kernel version", a.kernel_version, b.kernel_version);
}

void merge_environment(Environment& into, const Environment& e) {
  if (into.hostname.empty()) {
    const auto extra = into.extra;
    into = e;
    for (const auto& [k, v] : extra) into.extra.emplace(k, v);
    return;
  }
  // Memory not locked in any run: the result says so.
  if (const auto it = e.extra.find("mlockall"); it != e.extra.end()) {
    into.extra.emplace("mlockall", it->second);
  }
  // A hold requested in one run and not in another is not a fact of the result.
  const auto a = into.extra.find("cpu_dma_latency_hold");
  const auto b = e.extra.find("cpu_dma_latency_hold");
  if (a != into.extra.end() && (b == e.extra.end() || a->second != b->second)) {
    into.extra.erase(a);
  }
}

}  // namespace

std::pair<const ImporterSpec*, RunReport> import_text(std::string_view text,
                                                      const std::string& name,
                                                      const std::string& cmdline) {
  const nlohmann::json parsed = parse_bounded(text, name);
  ImportInput in{.text = text,
                 .json = parsed.is_discarded() ? nullptr : &parsed,
                 .name = name,
                 .cmdline = cmdline};
  const ImporterSpec* found = nullptr;
  for (const ImporterSpec& s : ImporterRegistry::instance().all()) {
    if (!s.detect(in)) continue;
    if (found != nullptr) {
      throw ImportError(name + ": both " + found->name + " and " + s.name + " claim it");
    }
    found = &s;
  }
  if (found == nullptr) {
    if (in.json != nullptr && in.json->is_object() && in.json->contains("schema")) {
      throw ImportError(name + ": already an rtgate result; nothing to import");
    }
    if (is_rt_tests_json(in.json) && !rt_tests_program(parsed).empty()) {
      throw ImportError(name + ": rt-tests JSON of " + rt_tests_program(parsed) +
                        ", which rtgate import does not read (it reads " + known_formats() + ")");
    }
    throw ImportError(name + ": not a format rtgate import reads (" + known_formats() + ")");
  }
  try {
    return {found, found->parse(in)};
  } catch (const nlohmann::json::exception& e) {
    throw ImportError(name + ": " + e.what());
  }
}

RunReport combine_runs(std::vector<RunReport> runs, const std::vector<std::string>& names) {
  RunReport out;
  out.tool_version = RTGATE_VERSION;
  std::vector<std::string> durations_of;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    RunReport& r = runs[i];
    const std::string& name = names.at(i);
    same_machine(out.environment, r.environment, names.front(), name);
    merge_environment(out.environment, r.environment);
    if (!r.started_at.empty() && (out.started_at.empty() || r.started_at < out.started_at)) {
      out.started_at = r.started_at;
    }
    if (r.finished_at > out.finished_at) out.finished_at = r.finished_at;
    if (i == 0) {
      out.options = r.options;
    } else if (out.options.recorded &&
               (!r.options.recorded || r.options.duration_s != out.options.duration_s)) {
      // rtgate's duration is one for every suite of a result; these files' are not.
      out.options.recorded = false;
      out.options.duration_s = 0;
    }
    for (SuiteResult& s : r.suites) {
      SuiteResult* mine = out.find(s.name);
      if (mine == nullptr) {
        out.suites.push_back(std::move(s));
        continue;
      }
      const std::string first = mine->imported ? mine->imported->files.front() : "";
      if (mine->imported && s.imported && mine->imported->format != s.imported->format) {
        throw ImportError(name + ": " + s.imported->format + ", but " + first + " " +
                          mine->imported->format + " for suite " + s.name);
      }
      if (const std::string d = param_difference(*mine, s); !d.empty()) {
        throw ImportError(name + ": " + s.name + " with other parameters than " + first + " (" + d +
                          "): import them apart");
      }
      if (const std::string d = measure_difference(*mine, s); !d.empty()) {
        throw ImportError(name + ": " + d + " (" + first + "): import them apart");
      }
      mine->absorb(s);
      if (mine->imported && s.imported) {
        ImportRecord& rec = *mine->imported;
        rec.files.insert(rec.files.end(), s.imported->files.begin(), s.imported->files.end());
        rec.commands.insert(rec.commands.end(), s.imported->commands.begin(),
                            s.imported->commands.end());
        add_unique(rec.notes, s.imported->notes);
        if (rec.version != s.imported->version) {
          add_unique(rec.notes, {"versions differ between files: " + rec.version + ", " +
                                 s.imported->version});
        }
      }
    }
  }
  int most_runs = 0;
  for (const SuiteResult& s : out.suites) most_runs = std::max(most_runs, s.runs);
  out.options.runs = most_runs;
  return out;
}

void apply_host_environment(RunReport& report, const Environment& host) {
  Environment& e = report.environment;
  const auto check = [&](const char* what, const std::string& file, const std::string& here) {
    if (file.empty() || file == here) return;
    throw ImportError(std::string("--host-env: the files name ") + what + " '" + file +
                      "', this machine '" + here + "'");
  };
  check("host", e.hostname, host.hostname);
  check("kernel", e.kernel_release, host.kernel_release);
  check("kernel version", e.kernel_version, host.kernel_version);
  if (!e.kernel_release.empty() && e.realtime != host.realtime) {
    throw ImportError(std::string("--host-env: the files say PREEMPT_RT ") +
                      (e.realtime ? "on" : "off") + ", this machine " +
                      (host.realtime ? "on" : "off"));
  }
  // The session is the files' (their host and start time), not this process's boot.
  Environment filled = host;
  filled.boot_id.clear();
  filled.pid = 0;
  filled.extra.erase("mlockall");
  filled.extra.erase("cpu_dma_latency_hold");
  for (const auto& [k, v] : e.extra) {
    if (k != "preempt_source") filled.extra[k] = v;
  }
  filled.extra["environment_source"] = "this machine at import (--host-env)";
  e = std::move(filled);
}

Imported import_files(const std::vector<std::string>& paths, const ImportOptions& options) {
  if (paths.empty()) throw ImportError("no files to import");
  Imported out;
  std::vector<RunReport> runs;
  for (const std::string& p : paths) {
    const std::string text = read_input(p);
    auto [spec, run] = import_text(text, p, options.cmdline);
    for (const SuiteResult& s : run.suites) out.files.push_back({p, spec->name, s.name});
    runs.push_back(std::move(run));
  }
  out.report = combine_runs(std::move(runs), paths);
  if (options.host != nullptr) apply_host_environment(out.report, *options.host);
  return out;
}

}  // namespace rtgate::importers
