// What every rt-tests 2.x --json file shares (rt-utils' rt_write_json): the command line, the
// version, start and end times, the return code and the machine's uname and realtime flag, and
// the checked reading of the tool's own fields.
//
// The files spell two keys with a trailing colon ("cmdline:", "rt_test_version:"); both
// spellings are read.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "importers/importer.h"
#include "results/report.h"

namespace rtgate::importers {

struct RtTestsHeader {
  std::string cmdline;                  // as recorded; "" when absent
  std::string program;                  // basename of the command's first word ("cyclictest")
  std::vector<std::string> args;        // the words after it
  std::string version;                  // "2.40"; "" when absent
  std::string started_at, finished_at;  // RFC 3339 UTC; "" when absent or unreadable
  double wall_s = 0;                    // finished - started (1 s resolution); 0 when unknown
  int return_code = 0;
  Environment environment;  // uname and realtime from "sysinfo"; everything else unknown
};

// An object with rt_write_json's header: "file_version" and "sysinfo".
bool is_rt_tests_json(const nlohmann::json* j);
// The program the file names in its command line ("" when it records none).
std::string rt_tests_program(const nlohmann::json& j);

// Throws ImportError naming `file` when the header's fields have the wrong types.
RtTestsHeader read_rt_tests_header(const nlohmann::json& j, const std::string& file);

// "Fri, 04 Dec 2026 13:52:12 +0000" (strftime's "%a, %d %b %Y %T %z") as RFC 3339 UTC, and its
// Unix time; nullopt when it is not one.
std::optional<std::pair<std::string, std::int64_t>> rfc2822_to_rfc3339(const std::string& text);

// Checked field reads: `where` names the field in the ImportError ("thread.0.max").
const nlohmann::json& member(const nlohmann::json& obj, const char* key, const std::string& where);
const nlohmann::json* optional_member(const nlohmann::json& obj, const char* key);
std::uint64_t whole(const nlohmann::json& v, const std::string& where);
std::int64_t integer(const nlohmann::json& v, const std::string& where);
double number(const nlohmann::json& v, const std::string& where);
const nlohmann::json& object(const nlohmann::json& v, const std::string& where);

// The file's "thread" object in index order ("0", "1", ..., "10"), whatever order the object
// keeps; `what` names an entry in errors ("thread", "pair"). Throws ImportError on a key that is
// not a number, or when there is none.
std::map<std::uint64_t, const nlohmann::json*> threads_by_index(const nlohmann::json& j,
                                                                const std::string& file,
                                                                const std::string& what);

// The run's report: environment, times, run options (duration from the command line when it
// gives one, `recorded` then), one suite named `suite` with `params`, its status from the
// return code, and its ImportRecord. The caller adds the cases.
RunReport rt_tests_report(const RtTestsHeader& h, const ImportInput& in, const std::string& suite,
                          const std::string& format, std::optional<double> duration_s);

}  // namespace rtgate::importers
