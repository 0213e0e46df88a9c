// Points a floor up: include_layers.py must reject this tree.
#pragma once

#include "results/report.h"
