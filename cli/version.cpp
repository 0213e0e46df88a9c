#include "cli/version.h"

#include "git_revision.h"

namespace rtgate::cli {

std::string version_text() {
  return std::string("rtgate ") + RTGATE_VERSION + " (git " + RTGATE_GIT_REVISION + ")";
}

}  // namespace rtgate::cli
