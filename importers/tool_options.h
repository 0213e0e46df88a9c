// A tool's command line, as an rt-tests JSON file records it ("cmdline:"), read back into
// options the way the tool's getopt_long read them: "-p95", "-p 95", "--prio=95", "--prio 95",
// bundled flags ("-mq"). The file joins argv with single spaces, so an argument that held a
// space is split: such command lines are read as well as they can be.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rtgate::importers {

struct OptionSpec {
  enum class Arg { kNone, kRequired, kOptional };
  char short_name = 0;    // 0 when the option has no short form
  std::string long_name;  // "" when it has no long form
  Arg arg = Arg::kNone;
  // The name the option is looked up by: its long name, or its short letter.
  std::string key() const { return long_name.empty() ? std::string(1, short_name) : long_name; }
};

class ToolOptions {
 public:
  // `args` without the program name. An option the specs do not list is kept in unknown() and
  // takes no argument (a newer tool's option; its value, if it had one, reads as positional).
  ToolOptions(const std::vector<std::string>& args, const std::vector<OptionSpec>& specs);

  bool has(std::string_view key) const;
  // The last value given (getopt's behaviour: a later option overrides); nullopt when absent or
  // given without a value.
  std::optional<std::string> value(std::string_view key) const;
  const std::vector<std::string>& positional() const { return positional_; }
  const std::vector<std::string>& unknown() const { return unknown_; }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> given_;
  std::vector<std::string> positional_, unknown_;
};

// Splits a recorded command line on whitespace.
std::vector<std::string> split_command(std::string_view cmdline);

// rt-tests' duration syntax (-D/--duration): a number of seconds with an optional suffix
// s, m, h or d. nullopt when it is not one.
std::optional<double> parse_tool_duration(std::string_view text);

// A whole non-negative number (an option's value); nullopt otherwise.
std::optional<long long> parse_whole(std::string_view text);

}  // namespace rtgate::importers
