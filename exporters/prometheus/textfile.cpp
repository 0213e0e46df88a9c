#include "exporters/prometheus/textfile.h"

#include <unistd.h>

#include <filesystem>

#include "base/io/output_file.h"
#include "exporters/prometheus/history_series.h"
#include "exporters/prometheus/report_text.h"

namespace rtgate::prom {

std::string check_textfile_dir(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return "'" + dir + "' is not a directory";
  if (access(dir.c_str(), W_OK) != 0) return "'" + dir + "' is not writable";
  return "";
}

std::string write_textfile(const std::string& dir, const RunReport& report,
                           const gate::GateVerdict* gate, const SeriesOptions& options) {
  const std::string path = (std::filesystem::path(dir) / kTextfileName).string();
  const ReportText text = build_text(report, gate, "", options);
  return write_output(path, text.pieces());
}

std::string write_history_textfile(const std::string& dir, const HistoryDocument& doc) {
  ReportText text;
  build_history_series(doc, text);
  return write_output((std::filesystem::path(dir) / kHistoryTextfileName).string(), text.pieces());
}

}  // namespace rtgate::prom
