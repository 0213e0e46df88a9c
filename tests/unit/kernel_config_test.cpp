// read_kernel_config (framework/env/kernel_config.h) on this machine: the config the system keeps,
// /boot/config-<release> or /proc/config.gz inflated, is exactly what zcat or cat shows.
#include "framework/env/kernel_config.h"

#include <gtest/gtest.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace rtgate {
namespace {

std::string output_of(const std::string& command) {
  std::string out;
  if (FILE* p = popen(command.c_str(), "r")) {
    char buf[65536];
    for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    pclose(p);
  }
  return out;
}

TEST(KernelConfig, IsWhatTheSystemKeepsInflatedWhenGzipped) {
  utsname u{};
  ASSERT_EQ(uname(&u), 0);
  const std::string release = u.release;
  const std::string boot = "/boot/config-" + release;
  std::string expected;
  if (access(boot.c_str(), R_OK) == 0) {
    expected = output_of("cat " + boot);
  } else if (access("/proc/config.gz", R_OK) == 0) {
    expected = output_of("gzip -dc /proc/config.gz");
  } else {
    EXPECT_EQ(read_kernel_config(release), "");
    GTEST_SKIP() << "this kernel's config is nowhere to be read";
  }
  const std::string config = read_kernel_config(release);
  EXPECT_GT(config.size(), 10'000u);
  EXPECT_EQ(config, expected);
  EXPECT_TRUE(config_set(config, "CONFIG_SMP"));
  EXPECT_FALSE(config_set(config, "CONFIG_NO_SUCH_OPTION"));
  EXPECT_EQ(read_kernel_config("no-such-release"),
            access("/proc/config.gz", R_OK) == 0 ? output_of("gzip -dc /proc/config.gz") : "");
}

}  // namespace
}  // namespace rtgate
