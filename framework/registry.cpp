#include "framework/registry.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace rtgate {

namespace detail {
void invalid_suite_name(const char* why) { throw std::invalid_argument(why); }
}  // namespace detail

bool SuiteDescriptor::has_tag(const std::string& tag) const {
  return std::find(tags.begin(), tags.end(), tag) != tags.end();
}

const ParamSpec* SuiteDescriptor::find_param(const std::string& param) const {
  for (const ParamSpec& p : params) {
    if (p.name == param) return &p;
  }
  return nullptr;
}

Registry& Registry::instance() {
  static Registry registry;
  return registry;
}

void Registry::add(SuiteDescriptor descriptor) {
  if (find(descriptor.name.value) != nullptr) {
    std::fprintf(stderr, "rtgate: suite '%s' is registered twice\n", descriptor.name.value);
    std::abort();
  }
  const auto pos = std::lower_bound(
      suites_.begin(), suites_.end(), descriptor, [](const auto& a, const auto& b) {
        return std::string_view(a.name.value) < std::string_view(b.name.value);
      });
  suites_.insert(pos, std::move(descriptor));
}

const SuiteDescriptor* Registry::find(const std::string& name) const {
  for (const SuiteDescriptor& s : suites_) {
    if (name == s.name.value) return &s;
  }
  return nullptr;
}

}  // namespace rtgate
