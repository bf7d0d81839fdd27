// Progress of a long command on stderr ("npusim: scenario runs [3/12] default: camera alone"), one line
// rewritten in place, so stdout stays the result. Shown only when stderr is a terminal and the user did
// not ask for --quiet; otherwise it prints nothing. Simulated results never depend on it.
#pragma once

#include <cstdint>
#include <string>

namespace npu::tools {

// --quiet: no progress from any Progress in this process.
void set_progress_quiet(bool quiet);
// Whether progress lines are printed: stderr is a terminal and not quiet.
bool progress_enabled();

class Progress {
 public:
  Progress(std::string label, uint32_t total);
  ~Progress();  // ends the line when anything was shown
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  // Step `done` of total (1-based) has started; `what` says what it is.
  void step(uint32_t done, const std::string& what = "");

 private:
  std::string label_;
  uint32_t total_;
  bool shown_ = false;
};

}  // namespace npu::tools
