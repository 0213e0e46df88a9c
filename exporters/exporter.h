// An exporter consumes a RunReport and knows no suite.
#pragma once

#include "framework/report/report.h"

namespace rtgate {

class Exporter {
 public:
  virtual ~Exporter() = default;
  // Returns "" on success, else a one-line reason.
  virtual std::string write(const RunReport& report) = 0;
};

}  // namespace rtgate
