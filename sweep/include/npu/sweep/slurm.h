// The Slurm backend of a sweep: the runs are submitted as one job array (`sbatch --array`), each array
// task runs a chunk of them (the same `npusim measure` children as the local backend, on the node's
// allotted CPUs) and appends its rows, one JSON line each, to its own file in the work folder;
// collect_rows() merges those files into the database. Slurm does the placement, retries and accounting:
// this only writes the task list and the batch script, calls sbatch, shows squeue/sacct state while it
// waits, and scancels the array on Ctrl-C. The work folder must be visible from the compute nodes.
#pragma once

#include <string>
#include <vector>

#include "npu/common/result.h"
#include "npu/sweep/database.h"
#include "npu/sweep/runner.h"

namespace npu::sweep {

struct SlurmOptions {
  std::string partition, time, mem;
  std::vector<std::string> extra;  // further sbatch arguments
  unsigned chunk = 8;              // runs per array task
  bool wait = true;                // wait for the array to end (else return after sbatch)
  bool progress = false;           // squeue state on stderr while waiting
};

// Writes <work>/tasks.json and <work>/sweep.sbatch, submits the array and (options.wait) waits for it.
// Returns the job id.
Result<std::string> submit_slurm(const SweepSpec& spec, const std::vector<Task>& tasks,
                                 const std::string& work_dir, const std::string& sweep_file,
                                 const SlurmOptions& options, const std::string& exe);

// tasks.json as submit_slurm writes it: {"sweep", "metrics": [names], "chunk": N >= 1, "tasks": [{"args":
// [strings], "row": Row}, ...] (at least one)}. Anything else is one error naming `path` and the field.
struct TaskList {
  std::vector<Task> tasks;
  std::vector<std::string> metrics;
  unsigned chunk = 1;
};
Result<TaskList> parse_task_list(const nlohmann::json& j, const std::string& path);

// One array task: runs chunk `index` of <work>/tasks.json, appending rows to <work>/rows/task-<index>.jsonl
// (a requeued task skips the rows its file already holds). Returns the exit status.
int run_slurm_task(const std::string& work_dir, unsigned index, const std::string& exe);

// Merges every <work>/rows/*.jsonl into `db`; returns the rows merged. A torn last line (a task killed
// while writing) is skipped.
Result<unsigned> collect_rows(const std::string& work_dir, Database& db);

}  // namespace npu::sweep
