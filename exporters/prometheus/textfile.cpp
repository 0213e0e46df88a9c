#include "exporters/prometheus/textfile.h"

#include <unistd.h>

#include <filesystem>

#include "exporters/prometheus/prometheus_registry.h"
#include "framework/output_file.h"

namespace rtgate::prom {

std::string check_textfile_dir(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return "'" + dir + "' is not a directory";
  if (access(dir.c_str(), W_OK) != 0) return "'" + dir + "' is not writable";
  return "";
}

std::string write_textfile(const std::string& dir, const RunReport& report,
                           const gate::GateReport* gate, const SeriesOptions& options) {
  const std::string path = (std::filesystem::path(dir) / kTextfileName).string();
  return write_output(path, to_text(*build_metrics(report, gate, "", options)));
}

}  // namespace rtgate::prom
