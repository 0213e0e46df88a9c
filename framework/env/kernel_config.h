// The running kernel's build configuration, where the system keeps it.
#pragma once

#include <string>
#include <string_view>

namespace rtgate {

// Plain in /boot/config-<release>, or gzipped in /proc/config.gz; "" when neither is readable.
std::string read_kernel_config(const std::string& release);
// `option` is built in ("CONFIG_X=y").
bool config_set(std::string_view config, std::string_view option);

}  // namespace rtgate
