// The hypervisor's own CPUID leaves (0x40000000 and up): who hosts this guest, and what it
// offers. One reader for the environment (which hypervisor) and the steal accounting (does KVM
// publish steal time).
#pragma once

#include <string>

namespace rtgate::cpuid {

// Leaf 0x40000000: the 12-byte signature ("KVMKVMKVM", "Microsoft Hv", "TCGTCGTCGTCG", ...)
// and the highest hypervisor leaf. Empty off x86. On bare metal the leaf holds whatever the
// CPU returns for an unknown leaf, so callers check the signature, never the leaf count alone.
struct HypervisorLeaf {
  std::string signature;
  unsigned max_leaf = 0;
};
HypervisorLeaf hypervisor_leaf();

// Leaf 0x40000001's EAX when the hypervisor is KVM (its feature bits,
// Documentation/virt/kvm/x86/cpuid.rst), else 0.
unsigned kvm_features();

}  // namespace rtgate::cpuid
