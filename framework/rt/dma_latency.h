// Holds /dev/cpu_dma_latency at a target (0 us: no deep C-states) while the object lives. The
// kernel keeps the request only while the file stays open, and drops it when it is closed.
#pragma once

#include <cstdint>
#include <string>

namespace rtgate::rt {

class DmaLatencyHold {
 public:
  explicit DmaLatencyHold(std::int32_t target_us = 0);
  ~DmaLatencyHold();
  DmaLatencyHold(const DmaLatencyHold&) = delete;
  DmaLatencyHold& operator=(const DmaLatencyHold&) = delete;

  bool held() const { return fd_ >= 0; }
  const std::string& reason() const { return reason_; }  // why not held

 private:
  int fd_ = -1;
  std::string reason_;
};

}  // namespace rtgate::rt
