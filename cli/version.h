// What `rtgate --version` prints: the release and the git revision the binary was built from,
// e.g. "rtgate 0.1.0 (git 1a2b3c4d5e6f)"; "(git unknown)" for a build outside a git tree.
#pragma once

#include <string>

namespace rtgate::cli {

std::string version_text();

}  // namespace rtgate::cli
