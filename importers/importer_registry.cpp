#include <cstdio>
#include <cstdlib>

#include "importers/importer.h"

namespace rtgate::importers {

ImporterRegistry& ImporterRegistry::instance() {
  static ImporterRegistry registry;
  return registry;
}

void ImporterRegistry::add(ImporterSpec spec) {
  for (const ImporterSpec& s : specs_) {
    if (s.name == spec.name) {
      std::fprintf(stderr, "rtgate: importer '%s' registered twice\n", spec.name.c_str());
      std::abort();
    }
  }
  auto at = specs_.begin();
  while (at != specs_.end() && at->name < spec.name) ++at;
  specs_.insert(at, std::move(spec));
}

}  // namespace rtgate::importers
