// What the readiness checks share: the kernel command line, CPU sets, and a finding in one call.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "framework/readiness/readiness.h"

namespace rtgate::readiness {

// The value of `name=` on the kernel command line; nullopt when absent, "" for a bare `name`.
std::optional<std::string> cmdline_param(const SysRoot& root, const std::string& name);

// The CPUs of a kernel CPU list ("" and unparsable: none). isolcpus' flags ("managed_irq,domain,")
// are skipped.
std::vector<int> cpus_of(const std::string& list);

// The CPUs of `want` that are not in `have`.
std::vector<int> missing(const std::vector<int>& want, const std::vector<int>& have);

// A hexadecimal cpumask ("ff", "00000003,ffffffff") as CPUs.
std::vector<int> cpus_of_mask(const std::string& mask);

// The measured CPUs as a list ("2-3").
std::string list(const std::vector<int>& cpus);
// As words for a shell loop ("2 3").
std::string words(const std::vector<int>& cpus);

// "path: value" for the evidence, the value "(absent)" when unreadable.
std::string read_as_evidence(const SysRoot& root, const std::string& path);

void add(std::vector<Finding>& out, std::string item, Level level, std::string why, std::string fix,
         std::string evidence);

}  // namespace rtgate::readiness
