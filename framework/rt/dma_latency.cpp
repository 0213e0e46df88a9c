#include "framework/rt/dma_latency.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rtgate::rt {

DmaLatencyHold::DmaLatencyHold(std::int32_t target_us) {
  fd_ = ::open("/dev/cpu_dma_latency", O_RDWR | O_CLOEXEC);
  if (fd_ < 0) {
    reason_ = std::string("/dev/cpu_dma_latency: ") + std::strerror(errno);
    return;
  }
  if (::write(fd_, &target_us, sizeof target_us) != static_cast<ssize_t>(sizeof target_us)) {
    reason_ = std::string("/dev/cpu_dma_latency write: ") + std::strerror(errno);
    ::close(fd_);
    fd_ = -1;
  }
}

DmaLatencyHold::~DmaLatencyHold() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace rtgate::rt
