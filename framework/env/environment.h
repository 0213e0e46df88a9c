// Environment capture: the facts about this machine that a latency figure depends on.
#pragma once

#include "results/environment.h"

namespace rtgate {

// Reads the environment of this machine. Never throws; unreadable facts stay empty/-1.
Environment capture_environment();

}  // namespace rtgate
