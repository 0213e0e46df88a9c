// The human summary printed after a run: one block per suite, one row per case and metric.
#pragma once

#include <cstdio>
#include <string>

#include "exporters/exporter.h"

namespace rtgate {

std::string render_console(const RunReport& report);

class ConsoleExporter : public Exporter {
 public:
  explicit ConsoleExporter(std::FILE* out) : out_(out) {}
  ExportStatus write(const ExportInput& in) override {
    return in.report == nullptr ? ExportStatus::ok() : ExportStatus::from(write(*in.report));
  }
  std::string write(const RunReport& report);

 private:
  std::FILE* out_;
};

}  // namespace rtgate
