// Ctrl-C (SIGINT) and SIGTERM for long commands (sweep, scenario, bench, stress): the handler only sets
// a flag; the command polls stop_requested() between its steps, removes what it had not finished and
// exits 130 after one line ("npusim: ...: interrupted"), so nothing is left half-written.
#pragma once

namespace npu {

void install_stop_handlers();
// Whether SIGINT or SIGTERM arrived since install_stop_handlers().
bool stop_requested();

}  // namespace npu
