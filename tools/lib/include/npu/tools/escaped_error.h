// The last line of defence of the CLI and the Python module: an exception that escaped a command, or a
// SystemC process (SystemC rethrows it from sc_start() as an sc_report, whose what() spans several
// lines), turned into one line for stderr, and the exit status that tells it apart from a bad input.
#pragma once

#include <exception>
#include <string>

namespace npu::tools {

// `npusim` exits with this when an exception or SystemC error escaped (README, "Exit status"): a
// simulator bug, or the host out of memory. 1 is a bad input, 2 a bad command line.
inline constexpr int kExitEscapedError = 5;

// One line (no newline, at most a few hundred bytes) saying what `e` was and where it escaped:
// "out of host memory (in SystemC process host_app)", "internal error: map::at (in SystemC process
// host_app)", "internal error: <what()>".
std::string escaped_error_line(const std::exception_ptr& e);

}  // namespace npu::tools
