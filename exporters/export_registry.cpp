#include "exporters/export_registry.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "base/io/output_file.h"

namespace rtgate {

ExporterRegistry& ExporterRegistry::instance() {
  static ExporterRegistry registry;
  return registry;
}

void ExporterRegistry::add(ExporterSpec spec) {
  for (const ExporterSpec& s : specs_) {
    bool clash = s.name == spec.name ||
                 (!spec.format.empty() && s.format == spec.format && (s.documents & spec.documents));
    for (const ExportOption& a : s.options) {
      for (const ExportOption& b : spec.options) clash = clash || a.flag == b.flag;
    }
    if (clash) {
      std::fprintf(stderr, "rtgate: exporter '%s' clashes with '%s' (name or flag)\n",
                   spec.name.c_str(), s.name.c_str());
      std::abort();
    }
  }
  const auto at = std::upper_bound(
      specs_.begin(), specs_.end(), spec,
      [](const ExporterSpec& a, const ExporterSpec& b) { return a.order < b.order; });
  specs_.insert(at, std::move(spec));
}

ExportValues with_defaults(ExportValues values) {
  for (const ExporterSpec& s : ExporterRegistry::instance().all()) {
    for (const ExportOption& o : s.options) {
      std::string& v = values[o.flag];
      if (v.empty()) v = o.default_value;
    }
  }
  return values;
}

std::string check_output_option(const ExportValues& values, const std::string& flag) {
  const auto it = values.find(flag);
  if (it == values.end() || it->second.empty()) return "";
  const std::string why = check_output(it->second);
  return why.empty() ? why : flag + ": " + why;
}

}  // namespace rtgate
