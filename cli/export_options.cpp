#include "cli/export_options.h"

#include <cstdio>

#include "cli/commands.h"

namespace rtgate::cli {

namespace {

// The registered exporters that write `document`, in write order: with options of their own, or
// (`formats`) chosen by --format.
std::vector<const ExporterSpec*> writing(Document document, bool formats = false) {
  std::vector<const ExporterSpec*> out;
  for (const ExporterSpec& spec : ExporterRegistry::instance().all()) {
    if ((spec.documents & document) != 0 && spec.format.empty() != formats) out.push_back(&spec);
  }
  return out;
}

// --format NAME, the first registered format the default, when any format writes `document`.
void add_format_option(CLI::App* cmd, ExportValues& values, Document document) {
  std::vector<std::string> names;
  for (const ExporterSpec* f : writing(document, true)) names.push_back(f->format);
  if (names.empty()) return;
  std::string help = "what to print:";
  for (const std::string& n : names) help += " " + n;
  std::string& value = values[kFormatFlag];
  value = names.front();
  cmd->add_option(kFormatFlag, value, help)->check(CLI::IsMember(names))->capture_default_str();
}

// The exporter chosen by `values`, or nullptr.
std::unique_ptr<Exporter> make_exporter(const ExporterSpec& spec, const ExportValues& values) {
  if (spec.make == nullptr) return nullptr;
  if (!spec.format.empty()) {
    const auto it = values.find(kFormatFlag);
    if (it == values.end() || it->second != spec.format) return nullptr;
  }
  return spec.make(values);
}

}  // namespace

void add_export_options(CLI::App* cmd, ExportValues& values, Document document) {
  for (const ExporterSpec* s : writing(document)) {
    const ExporterSpec& spec = *s;
    for (const ExportOption& o : spec.options) {
      std::string& value = values[o.flag];
      if (o.value_name.empty()) {
        cmd->add_flag_callback(
            o.flag, [&value] { value = "true"; }, o.help);
      } else {
        auto* opt = cmd->add_option(o.flag, value, o.help)->type_name(o.value_name);
        if (!o.default_value.empty()) opt->default_str(o.default_value);
      }
    }
  }
  add_format_option(cmd, values, document);
}

int check_exports(const ExportValues& values, Document document) {
  const ExportValues v = with_defaults(values);
  for (const ExporterSpec* spec : writing(document)) {
    if (spec->check == nullptr) continue;
    if (const std::string why = spec->check(v); !why.empty()) {
      print_error(why);
      return kExitUsage;
    }
  }
  return kExitOk;
}

bool any_export(const ExportValues& values, Document document) {
  const ExportValues v = with_defaults(values);
  for (const ExporterSpec* spec : writing(document)) {
    if (make_exporter(*spec, v) != nullptr) return true;
  }
  return false;
}

int write_exports(const ExportValues& values, const ExportInput& input, Document document) {
  const ExportValues v = with_defaults(values);
  ExportInput in = input;
  in.document = document;
  std::vector<const ExporterSpec*> specs = writing(document, true);
  for (const ExporterSpec* s : writing(document)) specs.push_back(s);
  int rc = kExitOk;
  for (const ExporterSpec* spec : specs) {
    const std::unique_ptr<Exporter> exporter = make_exporter(*spec, v);
    if (!exporter) continue;
    const ExportStatus s = exporter->write(in);
    switch (s.level) {
      case ExportStatus::Level::kOk:
        break;
      case ExportStatus::Level::kWarning:
        std::fprintf(stderr, "rtgate: warning: %s\n", s.message.c_str());
        break;
      case ExportStatus::Level::kFailed:
        print_error(s.message);
        if (rc == kExitOk) rc = kExitFailed;
        break;
      case ExportStatus::Level::kEnvironment:
        print_error(s.message);
        rc = kExitEnvironment;
        break;
    }
  }
  return rc;
}

int print_format(const std::string& format, const ExportInput& in, Document document) {
  return write_exports({{kFormatFlag, format}}, in, document);
}

std::vector<std::pair<std::string, std::string>> given_exports(const ExportValues& values) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const ExporterSpec& spec : ExporterRegistry::instance().all()) {
    for (const ExportOption& o : spec.options) {
      const auto it = values.find(o.flag);
      if (it != values.end() && !it->second.empty()) out.emplace_back(o.flag, it->second);
    }
  }
  return out;
}

std::vector<std::string> export_arguments(const ExportValues& values) {
  std::vector<std::string> out;
  for (const ExporterSpec& spec : ExporterRegistry::instance().all()) {
    for (const ExportOption& o : spec.options) {
      const auto it = values.find(o.flag);
      if (it == values.end() || it->second.empty()) continue;
      out.push_back(o.flag);
      if (!o.value_name.empty()) out.push_back(it->second);
    }
  }
  return out;
}

}  // namespace rtgate::cli
