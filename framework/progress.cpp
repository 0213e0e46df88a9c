#include "framework/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>

#include "base/text/units.h"
#include "framework/measure/clock.h"

namespace rtgate {
namespace {

constexpr std::int64_t kRedrawNs = 250'000'000;

std::size_t terminal_width() {
  winsize ws{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20) return ws.ws_col;
  return 120;
}

}  // namespace

ProgressLine::ProgressLine(RunContext& ctx, std::string suite, double duration_s, int run_index,
                           int runs, bool enabled)
    : ctx_(ctx),
      suite_(std::move(suite)),
      duration_s_(duration_s),
      run_index_(run_index),
      runs_(runs),
      enabled_(enabled && duration_s > 2.0),
      start_ns_(monotonic_ns()) {}

ProgressLine::~ProgressLine() {
  if (drawn_) {
    std::fputs("\r\033[K", stdout);
    std::fflush(stdout);
  }
}

std::string ProgressLine::render(double elapsed_s) {
  char head[96];
  std::snprintf(head, sizeof head, "%s run %d/%d  %5.1f/%.0f s", suite_.c_str(), run_index_ + 1,
                runs_, elapsed_s, duration_s_);
  std::string line = head;
  std::uint64_t total = 0;
  std::string threads;
  ctx_.for_each_tracked([&](LiveStats& s) {
    total += s.samples.load(std::memory_order_relaxed);
    threads += "  " + s.label + " max " + text::compact(s.max_ns.load(std::memory_order_relaxed));
  });
  return line + "  samples " + std::to_string(total) + threads;
}

void ProgressLine::tick() {
  if (!enabled_) return;
  const std::int64_t now = monotonic_ns();
  if (now - last_draw_ns_ < kRedrawNs) return;
  last_draw_ns_ = now;
  std::string line = render(static_cast<double>(now - start_ns_) / 1e9);
  const std::size_t width = terminal_width() - 1;
  if (line.size() > width) line.resize(width);
  std::fprintf(stdout, "\r\033[K%s", line.c_str());
  std::fflush(stdout);
  drawn_ = true;
}

}  // namespace rtgate
