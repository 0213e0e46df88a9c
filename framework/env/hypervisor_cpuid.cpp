#include "framework/env/hypervisor_cpuid.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <cstring>

namespace rtgate::cpuid {

HypervisorLeaf hypervisor_leaf() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  __cpuid(0x40000000U, a, b, c, d);
  char raw[13] = {};
  std::memcpy(raw, &b, 4);
  std::memcpy(raw + 4, &c, 4);
  std::memcpy(raw + 8, &d, 4);
  return {raw, a};
#else
  return {};
#endif
}

unsigned kvm_features() {
#if defined(__x86_64__) || defined(__i386__)
  const HypervisorLeaf leaf = hypervisor_leaf();
  if (leaf.signature.rfind("KVMKVMKVM", 0) != 0 || leaf.max_leaf < 0x40000001U) return 0;
  unsigned a = 0, b = 0, c = 0, d = 0;
  __cpuid(0x40000001U, a, b, c, d);
  return a;
#else
  return 0;
#endif
}

}  // namespace rtgate::cpuid
