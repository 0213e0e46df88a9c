// Points a room up inside gate/: include_layers.py must reject this tree.
#pragma once

#include "gate/pair/compare.h"
