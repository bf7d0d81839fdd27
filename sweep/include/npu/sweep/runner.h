// Running a sweep's points x workloads: each task is one `npusim measure` child process (one SystemC
// simulation per process), the local backend runs up to N at a time and turns each child's JSON (or its
// error) into a database row. SIGINT/SIGTERM stop it cleanly: running children are killed and reaped,
// no row is written for them, every row already written stays whole. The same task gives the same row
// whichever backend ran it (slurm.h runs the same children on cluster nodes).
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "npu/common/result.h"
#include "npu/sweep/database.h"
#include "npu/sweep/spec.h"

namespace npu::sweep {

struct Task {
  uint32_t point = 0;
  std::string workload;
  std::vector<std::string> args;  // after the executable: measure ...
  std::string command;            // the reproducing command line, as a user would type it
  Row row;                        // the row's key, params, digest, version, command; filled by the run
};

// The simulator version recorded in every row (git hash of the build, "+dirty" when it had local edits).
std::string simulator_version();

// Every point x workload of the expansion, in order, except the (point, workload) pairs in `skip`.
std::vector<Task> make_tasks(const SweepSpec& spec, const Expansion& expansion,
                             const std::set<std::pair<uint32_t, std::string>>& skip = {});

// The row of a finished child: its exit status (waitpid status), stdout (measure's JSON) and stderr.
Row finish_row(const Task& task, const std::vector<std::string>& metrics, int wait_status,
               const std::string& out, const std::string& err);

struct LocalOptions {
  std::string exe;             // the npusim executable the children run
  unsigned jobs = 1;           // children at a time
  bool progress = false;       // a progress line on stderr
  double point_timeout_s = 0;  // > 0: a child running longer is killed and its point fails
};

struct RunSummary {
  uint32_t ok = 0, failed = 0;
  bool interrupted = false;  // SIGINT / SIGTERM: stopped before every task ran
};

// Runs `tasks`; `on_row` stores each row as soon as its child ends (its error stops the run).
Result<RunSummary> run_local(const std::vector<Task>& tasks, const std::vector<std::string>& metrics,
                             const LocalOptions& options,
                             const std::function<Result<void>(const Row&)>& on_row);

// Whether SIGINT or SIGTERM arrived since install_stop_handlers().
void install_stop_handlers();
bool stop_requested();

}  // namespace npu::sweep
