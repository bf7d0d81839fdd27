#include "npu/tools/progress.h"

#include <unistd.h>

#include <cstdio>

namespace npu::tools {
namespace {
bool quiet_ = false;
}  // namespace

void set_progress_quiet(bool quiet) { quiet_ = quiet; }

bool progress_enabled() { return !quiet_ && ::isatty(STDERR_FILENO) == 1; }

Progress::Progress(std::string label, uint32_t total) : label_(std::move(label)), total_(total) {}

Progress::~Progress() {
  if (shown_) std::fputs("\r\033[K", stderr);  // clear the line: the result follows on stdout
}

void Progress::step(uint32_t done, const std::string& what) {
  if (!progress_enabled()) return;
  std::fprintf(stderr, "\r\033[Knpusim: %s [%u/%u]%s%s", label_.c_str(), done, total_,
               what.empty() ? "" : " ", what.c_str());
  std::fflush(stderr);
  shown_ = true;
}

}  // namespace npu::tools
