// The Slurm backend on a real single-node Slurm (scripts/slurm-single-node: Debian's munged, slurmctld,
// slurmd, and slurmdbd over MariaDB for accounting, started as root): the small shipped sweep submitted
// as a job array and compared row for row with the local backend's database; sacct's account of a task
// that crashed, and a rerun submitting just its missing runs; a crashed task requeued, rerunning only
// the runs its row file lacks; Ctrl-C while waiting, which scancels the array. Skipped, with the reason,
// only where Slurm cannot start (not root, packages not installable, daemons refusing to run). Each case
// runs in a fresh temporary folder with a cluster of its own there (free ports; munged is the system's,
// shared), stopped and removed at its end, so two runs at once, or a rerun in the same build folder, do
// not collide.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "../support/run_npusim.h"
#include "npu/sweep/database.h"

namespace npu::sweep {
namespace {

using test::npusim;
namespace fs = std::filesystem;

const std::string kSmall = std::string(NPUSIM_SOURCE_DIR) + "/configs/sweeps/small.json";
const std::string kScript = std::string(NPUSIM_SOURCE_DIR) + "/scripts/slurm-single-node";

std::vector<std::string> rows_of(const std::string& path) {
  auto db = Database::open(path, {});
  if (!db) return {"cannot open " + path + ": " + db.error()};
  auto rows = db->rows();
  if (!rows) return {rows.error()};
  std::vector<std::string> out;
  for (const auto& r : *rows) out.push_back(r.to_json().dump());
  return out;
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string slurm(const std::string& command) { return npu::testing::run_shell(command).output; }

// Each case: a fresh temporary folder as the working directory, and a cluster of its own in it.
class SweepSlurm : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "Slurm cannot start: scripts/slurm-single-node needs root";
    std::string dir = ::testing::TempDir() + "npusim-slurm-XXXXXX";
    ASSERT_NE(mkdtemp(dir.data()), nullptr) << dir;
    dir_ = dir;
    old_cwd_ = fs::current_path();
    fs::current_path(dir_);
    cluster_ = dir_ + "/cluster";
    setenv("NPUSIM_SLURM_DIR", cluster_.c_str(), 1);
    started_ = true;
    auto up = npu::testing::run_shell(kScript + " start");
    if (up.status != 0) GTEST_SKIP() << "Slurm cannot start: " << up.output;
    auto value = [&](const std::string& key) {
      const auto at = up.output.find(key + "=");
      if (at == std::string::npos) return std::string();
      std::string v = up.output.substr(at + key.size() + 1);
      return v.substr(0, v.find('\n'));
    };
    setenv("SLURM_CONF", value("SLURM_CONF").c_str(), 1);
    accounting_ = value("ACCOUNTING");
  }
  void TearDown() override {
    if (started_) npu::testing::run_shell(kScript + " stop");
    if (!old_cwd_.empty()) fs::current_path(old_cwd_);
    // A failed case keeps its folder (the daemons' logs are in cluster/).
    if (!dir_.empty() && !HasFailure()) fs::remove_all(dir_);
    if (HasFailure()) std::printf("files of this case kept in %s\n", dir_.c_str());
  }
  std::string dir_, cluster_;
  fs::path old_cwd_;
  bool started_ = false;
  std::string accounting_;  // "slurmdbd", or "none: <why>"
};

// The local backend's rows: what every Slurm run must reproduce.
std::vector<std::string> local_rows() {
  auto local = npusim("sweep " + kSmall + " --db local.sqlite -j 2 --quiet");
  EXPECT_EQ(local.status, 0) << local.output;
  return rows_of("local.sqlite");
}

// `npusim args` in the background, stdout and stderr to `log`.
pid_t spawn_npusim(const std::string& args, const std::string& log) {
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string cmd = "exec " + std::string(NPUSIM_BIN) + " " + args + " > " + log + " 2>&1";
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid) {
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

// Polls `ready` every 100 ms for up to `seconds`.
template <class F>
bool wait_until(F ready, int seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return ready();
}

// The array's job id from npusim's "submitted Slurm job array ID: ..." line, once printed.
std::string submitted_job_from(const std::string& text) {
  const std::string key = "submitted Slurm job array ";
  const auto at = text.find(key);
  if (at == std::string::npos || text.find(':', at) == std::string::npos) return "";
  return text.substr(at + key.size(), text.find(':', at) - at - key.size());
}
std::string submitted_job(const std::string& log) { return submitted_job_from(read_file(log)); }

bool gone_from_squeue(const std::string& job) {
  return slurm("squeue -h -j " + job + " 2>/dev/null").empty();
}

TEST_F(SweepSlurm, SameDatabaseAsTheLocalBackend) {
  const auto want = local_rows();
  ASSERT_EQ(want.size(), 16u);
  const std::string work = fs::absolute("slurm-work").string();
  auto run = npusim("sweep " + kSmall + " --db slurm.sqlite --backend slurm --work-dir " + work +
                    " --chunk 3 --time 10 --mem 1000 --quiet");
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("submitted Slurm job array"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("6 tasks of up to 3 runs"), std::string::npos) << "16 runs in chunks of 3\n"
                                                                           << run.output;
  EXPECT_NE(run.output.find("collected 16 rows"), std::string::npos) << run.output;
  if (accounting_ == "slurmdbd") {
    EXPECT_NE(run.output.find(": 6 COMPLETED\n"), std::string::npos) << "sacct's final states\n"
                                                                     << run.output;
  }
  // Each array task wrote its own row file.
  size_t files = 0;
  for (const auto& f : fs::directory_iterator(work + "/rows")) files += f.path().extension() == ".jsonl";
  EXPECT_EQ(files, 6u);
  EXPECT_EQ(rows_of("slurm.sqlite"), want);
  // --collect again into a fresh database: the same rows from the same files.
  auto again = npusim("sweep " + kSmall + " --db collected.sqlite --collect --work-dir " + work);
  ASSERT_EQ(again.status, 0) << again.output;
  EXPECT_EQ(rows_of("collected.sqlite"), want);
}

// One array task of all 16 runs crashes (SIGKILL to its batch step) after writing some rows: the waiting
// sweep reports, from sacct, that the task FAILED and that its other runs are missing; the same command
// again submits just those and the database ends equal to the local one.
TEST_F(SweepSlurm, SacctReportsACrashedTaskAndARerunSubmitsItsMissingRuns) {
  ASSERT_EQ(accounting_, "slurmdbd") << "sacct needs the accounting daemon the script starts";
  const auto want = local_rows();
  ASSERT_EQ(want.size(), 16u);
  const std::string work = fs::absolute("crash-work").string();
  const std::string args =
      "sweep " + kSmall + " --db crash.sqlite --backend slurm --work-dir " + work + " --chunk 16 --quiet";
  const pid_t pid = spawn_npusim(args, "crash.log");
  std::string job;
  ASSERT_TRUE(wait_until([&] { return !(job = submitted_job("crash.log")).empty(); }, 60))
      << read_file("crash.log");
  const std::string rows = work + "/rows/task-0.jsonl";
  ASSERT_TRUE(wait_until([&] { return !lines_of(rows).empty(); }, 120)) << read_file("crash.log");
  slurm("scancel --batch --signal=KILL " + job + "_0");
  ASSERT_EQ(wait_exit(pid), 0) << read_file("crash.log");
  const std::string log = read_file("crash.log");
  EXPECT_NE(log.find("sacct " + job + ": 1 FAILED"), std::string::npos) << log;
  // sacct names a one-task array's only task "JOB_0" or, at times, "JOB".
  EXPECT_TRUE(log.find("array task " + job + "_0 ended FAILED (exit 0:9)") != std::string::npos ||
              log.find("array task " + job + " ended FAILED (exit 0:9)") != std::string::npos)
      << log;
  const size_t written = rows_of("crash.sqlite").size();
  ASSERT_GE(written, 1u) << log;
  ASSERT_LT(written, 16u) << "the task was killed before its last run\n" << log;

  auto rerun = npusim(args);
  ASSERT_EQ(rerun.status, 0) << rerun.output;
  EXPECT_NE(rerun.output.find(std::to_string(written) + " already in crash.sqlite, " +
                              std::to_string(16 - written) + " to run"),
            std::string::npos)
      << rerun.output;
  EXPECT_EQ(rows_of("crash.sqlite"), want);
}

// A task that crashed and is requeued (as Slurm does for a preempted or node-failed task, here by
// `scontrol requeue`) runs only the runs its row file lacks: the file ends with each of the 16 rows
// once, and the collected database equals the local one.
TEST_F(SweepSlurm, RequeuedTaskRerunsOnlyTheRunsItsRowFileLacks) {
  const auto want = local_rows();
  ASSERT_EQ(want.size(), 16u);
  const std::string work = fs::absolute("requeue-work").string();
  auto sub = npusim("sweep " + kSmall + " --db requeue.sqlite --backend slurm --work-dir " + work +
                    " --chunk 16 --no-wait --quiet");
  ASSERT_EQ(sub.status, 0) << sub.output;
  const std::string job = submitted_job_from(sub.output);
  ASSERT_FALSE(job.empty()) << sub.output;
  const std::string rows = work + "/rows/task-0.jsonl";
  ASSERT_TRUE(wait_until([&] { return !lines_of(rows).empty(); }, 120)) << sub.output;
  slurm("scancel --batch --signal=KILL " + job + "_0");
  ASSERT_TRUE(wait_until([&] { return gone_from_squeue(job); }, 60));
  const size_t before = lines_of(rows).size();
  ASSERT_LT(before, 16u) << "the task was killed before its last run";
  // Requeued jobs wait two minutes before they are eligible again; start it now.
  slurm("scontrol requeue " + job + "_0");
  slurm("scontrol update jobid=" + job + "_0 StartTime=now");
  ASSERT_TRUE(wait_until([&] { return !gone_from_squeue(job); }, 10));
  ASSERT_TRUE(wait_until([&] { return gone_from_squeue(job); }, 240));
  EXPECT_NE(slurm("scontrol show job " + job + "_0").find("Restarts=1"), std::string::npos);
  const auto lines = lines_of(rows);
  std::set<std::string> keys;
  for (const auto& l : lines) {
    auto row = Row::from_json(nlohmann::json::parse(l, nullptr, false));
    ASSERT_TRUE(row.ok()) << l;
    keys.insert(std::to_string(row->point) + "/" + row->workload);
  }
  EXPECT_EQ(lines.size(), 16u) << before << " rows before the crash; every run once after the requeue";
  EXPECT_EQ(keys.size(), 16u);
  auto col = npusim("sweep " + kSmall + " --db requeue.sqlite --collect --work-dir " + work);
  ASSERT_EQ(col.status, 0) << col.output;
  EXPECT_EQ(rows_of("requeue.sqlite"), want);
}

// Ctrl-C while the sweep waits for its array: the array is scancelled (squeue no longer lists it, sacct
// says CANCELLED), the rows written so far are collected, each equal to the local backend's, and the
// sweep exits with status 130.
TEST_F(SweepSlurm, InterruptWhileWaitingScancelsTheArray) {
  const auto want = local_rows();
  ASSERT_EQ(want.size(), 16u);
  const std::string work = fs::absolute("stop-work").string();
  const pid_t pid = spawn_npusim(
      "sweep " + kSmall + " --db stop.sqlite --backend slurm --work-dir " + work + " --chunk 2 --quiet",
      "stop.log");
  std::string job;
  ASSERT_TRUE(wait_until([&] { return !(job = submitted_job("stop.log")).empty(); }, 60))
      << read_file("stop.log");
  ASSERT_TRUE(wait_until([&] { return !lines_of(work + "/rows/task-0.jsonl").empty(); }, 120))
      << read_file("stop.log");
  kill(pid, SIGINT);
  EXPECT_EQ(wait_exit(pid), 130) << read_file("stop.log");
  const std::string log = read_file("stop.log");
  EXPECT_NE(log.find("stopped: scancel " + job), std::string::npos) << log;
  EXPECT_TRUE(gone_from_squeue(job)) << slurm("squeue -j " + job);
  if (accounting_ == "slurmdbd") {
    EXPECT_TRUE(wait_until(
        [&] {
          return slurm("sacct -n -X -P -j " + job + " -o State").find("CANCELLED") != std::string::npos;
        },
        10))
        << slurm("sacct -n -X -P -j " + job + " -o JobID,State");
  }
  const auto got = rows_of("stop.sqlite");
  EXPECT_GE(got.size(), 1u) << log;
  EXPECT_LT(got.size(), 16u) << "stopped before the end\n" << log;
  for (const auto& r : got) EXPECT_NE(std::find(want.begin(), want.end(), r), want.end()) << r;
}

}  // namespace
}  // namespace npu::sweep
