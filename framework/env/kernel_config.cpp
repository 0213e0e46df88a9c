#include "framework/env/kernel_config.h"

#include "base/io/proc_files.h"
#include "results/gzip_codec.h"

namespace rtgate {

namespace {
// A kernel's config is about 300 KB; anything past this is not one.
constexpr std::size_t kMaxConfigBytes = 8u << 20;
}  // namespace

std::string read_kernel_config(const std::string& release) {
  if (auto text = proc::read_file("/boot/config-" + release)) return *text;
  // Inflated here (zlib, as results are): spawning gzip cost a run more CPU than reading it.
  const auto packed = proc::read_file("/proc/config.gz");
  if (!packed) return "";
  std::string out, why;
  std::size_t len = 0;
  if (!gz::inflate_all(*packed, kMaxConfigBytes, 0, &out, &len, &why)) return "";
  out.resize(len);
  return out;
}

bool config_set(std::string_view config, std::string_view option) {
  return config.find(std::string("\n") + std::string(option) + "=y") != std::string_view::npos;
}

}  // namespace rtgate
