#include "npu/sweep/runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "npu/common/interrupt.h"
#include "npu/common/shell_quote.h"
#include "npu/common/version.h"

namespace npu::sweep {
namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string duration_text(double s) {
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%dh%02dm", static_cast<int>(s / 3600), static_cast<int>(s / 60) % 60);
  else if (s >= 60)
    std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s / 60), static_cast<int>(s) % 60);
  else
    std::snprintf(buf, sizeof buf, "%ds", static_cast<int>(s));
  return buf;
}

// The last non-empty line of a child's stderr, without the "npusim: " prefix: the one-line error.
std::string error_line(const std::string& err) {
  std::istringstream in(err);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  if (last.rfind("npusim: ", 0) == 0) last = last.substr(8);
  return last;
}

}  // namespace

// The process-wide stop flag of npu/common/interrupt.h, shared with scenario, bench and stress.
void install_stop_handlers() { npu::install_stop_handlers(); }

bool stop_requested() { return npu::stop_requested(); }

std::string simulator_version() { return std::string(npu::git_hash()); }

std::vector<Task> make_tasks(const SweepSpec& spec, const Expansion& e,
                             const std::set<std::pair<uint32_t, std::string>>& skip) {
  std::vector<Task> tasks;
  for (const auto& p : e.points) {
    for (const auto& w : spec.workloads) {
      if (skip.count({p.index, w.name})) continue;
      Task t;
      t.point = p.index;
      t.workload = w.name;
      t.args = {"measure", "--hw", spec.base};
      for (const auto& s : spec.base_set) t.args.insert(t.args.end(), {"--set", s});
      for (const auto& s : p.sets()) t.args.insert(t.args.end(), {"--set", s});
      if (!w.model.empty()) {
        t.args.insert(t.args.end(), {"--model", w.model, "--iterations", std::to_string(w.iterations),
                                     "--seed", std::to_string(w.seed)});
        if (w.timing_only) t.args.push_back("--timing-only");
      } else {
        std::ostringstream scale;
        scale.precision(12);
        scale << w.scale;
        t.args.insert(t.args.end(), {"--scenario", w.scenario, "--scale", scale.str()});
        if (!w.policy.empty()) t.args.insert(t.args.end(), {"--policy", w.policy});
        if (w.isolated) t.args.push_back("--isolated");
      }
      t.args.push_back("--json");
      t.command = "npusim";
      for (const auto& a : t.args) t.command += " " + shell_quote(a);
      t.row.point = p.index;
      t.row.workload = w.name;
      for (const auto& [param, value] : p.values) t.row.params[param] = value;
      t.row.simulator_version = simulator_version();
      t.row.config_digest = p.config_digest;
      t.row.command = t.command;
      tasks.push_back(std::move(t));
    }
  }
  return tasks;
}

Row finish_row(const Task& task, const std::vector<std::string>& metrics, int status, const std::string& out,
               const std::string& err) {
  Row r = task.row;
  for (const auto& m : metrics) r.metrics[m] = nullptr;
  auto fail = [&](const std::string& why) {
    r.status = "failed";
    r.error = why;
    return r;
  };
  if (WIFSIGNALED(status))
    return fail("killed by signal " + std::to_string(WTERMSIG(status)) +
                (err.empty() ? "" : ": " + error_line(err)));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return fail(error_line(err).empty() ? "exit status " + std::to_string(WEXITSTATUS(status))
                                        : error_line(err));
  auto j = nlohmann::json::parse(out, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("metrics") || !j["metrics"].is_object())
    return fail("npusim measure printed no metrics JSON");
  for (const auto& m : metrics)
    if (j["metrics"].contains(m) && j["metrics"][m].is_number()) r.metrics[m] = j["metrics"][m];
  r.status = "ok";
  r.error.clear();
  return r;
}

Result<RunSummary> run_local(const std::vector<Task>& tasks, const std::vector<std::string>& metrics,
                             const LocalOptions& o, const std::function<Result<void>(const Row&)>& on_row) {
  RunSummary sum;
  char tmpl[] = "/tmp/npusim-sweep-XXXXXX";
  if (!mkdtemp(tmpl)) return make_error("cannot create a temporary folder for the children's output");
  const std::string tmp = tmpl;
  struct Running {
    size_t task;
    std::chrono::steady_clock::time_point start;
    bool timed_out = false;
  };
  std::map<pid_t, Running> running;
  const auto t0 = std::chrono::steady_clock::now();
  size_t next = 0, finished = 0;
  std::string error;
  auto out_path = [&](size_t i, const char* what) { return tmp + "/" + std::to_string(i) + "." + what; };
  auto progress = [&](bool final_line) {
    if (!o.progress) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::string eta = "--";
    if (finished > 0 && finished < tasks.size())
      eta = duration_text(elapsed / static_cast<double>(finished) *
                          static_cast<double>(tasks.size() - finished));
    std::fprintf(stderr, "\r\033[Ksweep: %zu/%zu done, %u failed, %zu running, %s elapsed, ETA %s", finished,
                 tasks.size(), sum.failed, running.size(), duration_text(elapsed).c_str(), eta.c_str());
    if (final_line) std::fputc('\n', stderr);
    std::fflush(stderr);
  };
  auto last_progress = std::chrono::steady_clock::now();
  progress(false);
  while ((next < tasks.size() || !running.empty()) && error.empty()) {
    if (stop_requested()) break;
    while (next < tasks.size() && running.size() < std::max(1u, o.jobs) && !stop_requested()) {
      const size_t i = next++;
      const std::string out = out_path(i, "out"), err = out_path(i, "err");
      std::vector<char*> argv;
      argv.push_back(const_cast<char*>(o.exe.c_str()));
      for (const auto& a : tasks[i].args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      const pid_t parent = getpid();
      const pid_t pid = fork();
      if (pid < 0) {
        error = "fork failed";
        break;
      }
      if (pid == 0) {
        // Its own process group (the terminal's Ctrl-C reaches only the sweep, which kills the children)
        // and dead with the sweep if the sweep is killed outright.
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(127);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        const int fo = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int fe = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0) _exit(126);
        dup2(fo, 1);
        dup2(fe, 2);
        execv(o.exe.c_str(), argv.data());
        _exit(127);
      }
      running[pid] = {i, std::chrono::steady_clock::now(), false};
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0 && running.count(pid)) {
      const size_t i = running[pid].task;
      running.erase(pid);
      if (stop_requested()) break;
      Row row =
          finish_row(tasks[i], metrics, status, read_all(out_path(i, "out")), read_all(out_path(i, "err")));
      std::remove(out_path(i, "out").c_str());
      std::remove(out_path(i, "err").c_str());
      if (row.status == "ok")
        ++sum.ok;
      else
        ++sum.failed;
      ++finished;
      if (auto r = on_row(row); !r) error = r.error();
      progress(false);
      continue;
    }
    if (o.point_timeout_s > 0) {
      for (auto& [p, r] : running) {
        if (!r.timed_out &&
            std::chrono::duration<double>(std::chrono::steady_clock::now() - r.start).count() >
                o.point_timeout_s) {
          r.timed_out = true;
          kill(p, SIGKILL);
          std::ofstream(out_path(r.task, "err"), std::ios::app)
              << "npusim: point timeout: ran longer than " << o.point_timeout_s << " s\n";
        }
      }
    }
    usleep(20000);
    if (std::chrono::steady_clock::now() - last_progress > std::chrono::milliseconds(500)) {
      last_progress = std::chrono::steady_clock::now();
      progress(false);
    }
  }
  // Stopped (signal or error): kill what still runs and reap it; no rows for those.
  for (const auto& [pid, r] : running) {
    (void)r;
    kill(pid, SIGKILL);
  }
  for (const auto& [pid, r] : running) {
    (void)r;
    int status = 0;
    waitpid(pid, &status, 0);
  }
  sum.interrupted = stop_requested() || next < tasks.size() || finished < tasks.size();
  progress(true);
  for (size_t i = 0; i < tasks.size(); ++i) {
    std::remove(out_path(i, "out").c_str());
    std::remove(out_path(i, "err").c_str());
  }
  rmdir(tmp.c_str());
  if (!error.empty()) return make_error(error);
  return sum;
}

}  // namespace npu::sweep
