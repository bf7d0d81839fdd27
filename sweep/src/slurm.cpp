#include "npu/sweep/slurm.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "npu/common/file_io.h"

namespace npu::sweep {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Runs argv (no shell), returns its exit status and stdout.
struct Output {
  int status = -1;
  std::string out;
};

// quiet: its stderr goes to /dev/null (sacct says "accounting storage is disabled" on clusters without it).
Output capture(const std::vector<std::string>& argv, bool quiet = false) {
  Output o;
  int fd[2];
  if (pipe(fd) != 0) return o;
  const pid_t pid = fork();
  if (pid < 0) return o;
  if (pid == 0) {
    dup2(fd[1], 1);
    if (quiet) {
      const int null = open("/dev/null", O_WRONLY);
      if (null >= 0) dup2(null, 2);
    }
    close(fd[0]);
    close(fd[1]);
    std::vector<char*> a;
    for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    execvp(a[0], a.data());
    std::fprintf(stderr, "npusim: cannot run %s (is Slurm installed?)\n", argv[0].c_str());
    _exit(127);
  }
  close(fd[1]);
  char buf[4096];
  ssize_t n;
  while ((n = read(fd[0], buf, sizeof buf)) > 0) o.out.append(buf, static_cast<size_t>(n));
  close(fd[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  o.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
  return o;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Only a regular file is read (a FIFO would block for ever), nested at most io::kMaxJsonDepth.
Result<json> read_json(const std::string& path) {
  auto text = io::read_file(path);
  if (!text) return make_error(text.error());
  if (auto n = io::check_json_nesting(*text); !n) return make_error(path + ": not valid JSON: " + n.error());
  json j = json::parse(*text, nullptr, false);
  if (j.is_discarded()) return make_error(path + ": not valid JSON");
  return j;
}

struct TaskState {
  std::string id, state, exit_code;  // "31_4", "FAILED", "0:9"
};

// Each array task's state from the accounting database (sacct), empty where accounting is disabled.
// Pending tasks may show as one "31_[3-5]" entry; "CANCELLED by 0" is reported as CANCELLED.
std::vector<TaskState> sacct_states(const std::string& job) {
  const Output acct = capture({"sacct", "-n", "-X", "-P", "-j", job, "-o", "JobID,State,ExitCode"}, true);
  std::vector<TaskState> out;
  if (acct.status != 0) return out;
  std::istringstream in(acct.out);
  std::string line;
  while (std::getline(in, line)) {
    const auto a = line.find('|'), b = line.rfind('|');
    if (a == std::string::npos || b <= a) continue;
    TaskState t{line.substr(0, a), line.substr(a + 1, b - a - 1), trim(line.substr(b + 1))};
    if (const auto sp = t.state.find(' '); sp != std::string::npos) t.state.resize(sp);
    out.push_back(std::move(t));
  }
  return out;
}

std::map<std::string, unsigned> count_states(const std::vector<TaskState>& tasks) {
  std::map<std::string, unsigned> n;
  for (const auto& t : tasks) ++n[t.state];
  return n;
}

}  // namespace

Result<TaskList> parse_task_list(const json& j, const std::string& path) {
  auto bad = [&](const std::string& field, const std::string& want, const json& got) {
    return make_error(path + ": " + field + ": expected " + want + ", got " + io::json_for_message(got, 60));
  };
  if (!j.is_object()) return bad("$", "an object", j);
  TaskList list;
  const json metrics = j.contains("metrics") ? j["metrics"] : json();
  if (!metrics.is_array()) return bad("$.metrics", "a list of metric names", metrics);
  for (size_t i = 0; i < metrics.size(); ++i) {
    if (!metrics[i].is_string())
      return bad("$.metrics[" + std::to_string(i) + "]", "a metric name", metrics[i]);
    list.metrics.push_back(metrics[i].get<std::string>());
  }
  const json chunk = j.contains("chunk") ? j["chunk"] : json();
  if (!chunk.is_number_unsigned() || chunk.get<uint64_t>() < 1 || chunk.get<uint64_t>() > 1'000'000)
    return bad("$.chunk", "a whole number of runs per array task in [1, 1000000]", chunk);
  list.chunk = chunk.get<unsigned>();
  const json tasks = j.contains("tasks") ? j["tasks"] : json();
  if (!tasks.is_array() || tasks.empty()) return bad("$.tasks", "a non-empty list of tasks", tasks);
  for (size_t i = 0; i < tasks.size(); ++i) {
    const std::string at = "$.tasks[" + std::to_string(i) + "]";
    const json& t = tasks[i];
    if (!t.is_object()) return bad(at, "an object {\"args\", \"row\"}", t);
    const json args = t.contains("args") ? t["args"] : json();
    bool strings = args.is_array() && !args.empty();
    for (const auto& a : args) strings = strings && a.is_string();
    if (!strings) return bad(at + ".args", "a non-empty list of strings", args);
    auto row = Row::from_json(t.contains("row") ? t["row"] : json());
    if (!row) return make_error(path + ": " + at + ".row: " + row.error());
    Task task;
    task.args = args.get<std::vector<std::string>>();
    task.row = *row;
    task.point = row->point;
    task.workload = row->workload;
    task.command = row->command;
    list.tasks.push_back(std::move(task));
  }
  return list;
}

Result<std::string> submit_slurm(const SweepSpec& spec, const std::vector<Task>& tasks,
                                 const std::string& work_dir, const std::string& sweep_file,
                                 const SlurmOptions& o, const std::string& exe) {
  (void)sweep_file;
  if (tasks.empty()) return make_error("nothing to submit: every run is already in the database");
  std::error_code ec;
  const std::string work = fs::absolute(work_dir, ec).string();
  fs::create_directories(work + "/rows", ec);
  fs::create_directories(work + "/logs", ec);
  if (ec) return make_error(work_dir + ": cannot create the work folder: " + ec.message());
  // Row files of an earlier submission would be merged again: a fresh submission starts clean.
  for (const auto& f : fs::directory_iterator(work + "/rows", ec)) fs::remove(f.path(), ec);
  const unsigned chunk = std::max(1u, o.chunk);
  const size_t arrays = (tasks.size() + chunk - 1) / chunk;
  json list = {{"sweep", spec.name}, {"metrics", spec.metrics}, {"chunk", chunk}, {"tasks", json::array()}};
  for (const auto& t : tasks) list["tasks"].push_back({{"args", t.args}, {"row", t.row.to_json()}});
  {
    std::ofstream f(work + "/tasks.json");
    f << list.dump() << "\n";
    if (!f) return make_error(work + "/tasks.json: cannot write");
  }
  const std::string script = work + "/sweep.sbatch";
  {
    std::ofstream f(script);
    f << "#!/bin/sh\n"
      << "# npusim sweep " << spec.name << ": array task N runs chunk N of tasks.json (" << chunk
      << " runs each)\n"
      << "exec " << shell_quote(exe) << " sweep --work-dir " << shell_quote(work)
      << " --task \"$SLURM_ARRAY_TASK_ID\"\n";
    if (!f) return make_error(script + ": cannot write");
  }
  std::vector<std::string> argv = {"sbatch",
                                   "--parsable",
                                   "--array=0-" + std::to_string(arrays - 1),
                                   "--job-name=npusim-sweep",
                                   "--requeue",  // a preempted or node-failed task reruns (skipping its rows)
                                   "--output=" + work + "/logs/task-%a.out",
                                   "--chdir=" + fs::current_path(ec).string()};
  if (!o.partition.empty()) argv.push_back("--partition=" + o.partition);
  if (!o.time.empty()) argv.push_back("--time=" + o.time);
  if (!o.mem.empty()) argv.push_back("--mem=" + o.mem);
  for (const auto& e : o.extra) argv.push_back(e);
  argv.push_back(script);
  const Output sub = capture(argv);
  if (sub.status != 0) return make_error("sbatch failed (exit status " + std::to_string(sub.status) + ")");
  std::string job = trim(sub.out);
  if (const auto semi = job.find(';'); semi != std::string::npos) job = job.substr(0, semi);  // "id;cluster"
  std::fprintf(stderr, "submitted Slurm job array %s: %zu tasks of up to %u runs\n", job.c_str(), arrays,
               chunk);
  if (!o.wait) return job;
  std::string last;
  bool cancelled = false;
  while (true) {
    if (stop_requested() && !cancelled) {
      capture({"scancel", job}, true);
      std::fprintf(stderr, "%sstopped: scancel %s; rows written so far are collected\n",
                   o.progress ? "\n" : "", job.c_str());
      cancelled = true;  // wait (below) until Slurm has ended the tasks, so no row file is still growing
    }
    const Output q = capture({"squeue", "-h", "-j", job, "-o", "%T"}, true);
    std::map<std::string, unsigned> queued;
    std::istringstream in(q.out);
    std::string line;
    while (std::getline(in, line))
      if (!trim(line).empty()) ++queued[trim(line)];
    if (q.status == 0 && queued.empty()) break;
    if (cancelled) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      continue;
    }
    // sacct, where accounting runs, also counts the tasks that have ended (and how); else squeue's view.
    const auto states = sacct_states(job);
    std::string text = "slurm job " + job + ":";
    if (!states.empty()) {
      for (const auto& [s, n] : count_states(states)) text += " " + std::to_string(n) + " " + s;
    } else {
      for (const auto& [s, n] : queued) text += " " + std::to_string(n) + " " + s;
    }
    if (o.progress)
      std::fprintf(stderr, "\r\033[K%s", text.c_str());
    else if (text != last)
      std::fprintf(stderr, "%s\n", text.c_str());
    last = text;
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  if (o.progress && !cancelled) std::fputc('\n', stderr);
  // The accounting record of how each task ended, where slurmdbd keeps one (it learns of the last ends
  // a moment after squeue stops listing them).
  auto ended = sacct_states(job);
  auto settled = [&] {
    if (ended.size() < arrays) return false;  // a task slurmdbd has not heard of yet
    return std::none_of(ended.begin(), ended.end(), [](const TaskState& t) {
      return t.state == "PENDING" || t.state == "RUNNING" || t.state == "REQUEUED" ||
             t.state == "COMPLETING" || t.state == "SUSPENDED" || t.id.find('[') != std::string::npos;
    });
  };
  for (int i = 0; i < 50 && !settled(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    ended = sacct_states(job);
  }
  if (ended.empty()) return job;
  std::string text = "sacct " + job + ":";
  for (const auto& [s, n] : count_states(ended)) text += " " + std::to_string(n) + " " + s;
  std::fprintf(stderr, "%s\n", text.c_str());
  for (const auto& t : ended)
    if (t.state != "COMPLETED")
      std::fprintf(stderr,
                   "array task %s ended %s (exit %s): its runs not in the row files stay missing; run "
                   "the same command again to submit them\n",
                   t.id.c_str(), t.state.c_str(), t.exit_code.c_str());
  return job;
}

int run_slurm_task(const std::string& work_dir, unsigned index, const std::string& exe) {
  auto list = read_json(work_dir + "/tasks.json");
  if (!list) {
    std::fprintf(stderr, "npusim: %s\n", list.error().c_str());
    return 1;
  }
  auto parsed = parse_task_list(*list, work_dir + "/tasks.json");
  if (!parsed) {
    std::fprintf(stderr, "npusim: %s\n", parsed.error().c_str());
    return 1;
  }
  const std::vector<Task>& all = parsed->tasks;
  const unsigned chunk = parsed->chunk;
  const auto& metrics = parsed->metrics;
  const std::string rows = work_dir + "/rows/task-" + std::to_string(index) + ".jsonl";
  // A requeued task keeps what it wrote before, less a torn last line (killed mid-write), which is cut
  // off so the rows appended now start on a line of their own.
  std::set<std::pair<uint32_t, std::string>> have;
  {
    std::ifstream in(rows, std::ios::binary);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    in.close();
    const size_t whole = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
    if (whole < text.size()) {
      std::error_code ec;
      fs::resize_file(rows, whole, ec);
      if (ec) {
        std::fprintf(stderr, "npusim: %s: cannot cut its torn last line: %s\n", rows.c_str(),
                     ec.message().c_str());
        return 1;
      }
    }
    std::istringstream lines(text.substr(0, whole));
    std::string line;
    while (std::getline(lines, line)) {
      auto j = json::parse(line, nullptr, false);
      if (!j.is_discarded() && j.is_object()) have.insert({j.value("point", 0u), j.value("workload", "")});
    }
  }
  std::vector<Task> mine;
  for (size_t i = static_cast<size_t>(index) * chunk;
       i < all.size() && i < (static_cast<size_t>(index) + 1) * chunk; ++i)
    if (!have.count({all[i].point, all[i].workload})) mine.push_back(all[i]);
  LocalOptions lo;
  lo.exe = exe;
  const char* cpus = std::getenv("SLURM_CPUS_PER_TASK");
  lo.jobs = cpus ? std::max(1, std::atoi(cpus)) : 1;
  install_stop_handlers();
  std::ofstream out(rows, std::ios::app);
  auto sum = run_local(mine, metrics, lo, [&](const Row& r) -> Result<void> {
    out << r.to_json().dump() << "\n";
    out.flush();
    if (!out) return make_error(rows + ": cannot write");
    return {};
  });
  if (!sum) {
    std::fprintf(stderr, "npusim: %s\n", sum.error().c_str());
    return 1;
  }
  std::printf("task %u: %u ok, %u failed%s\n", index, sum->ok, sum->failed,
              sum->interrupted ? ", interrupted" : "");
  return sum->interrupted ? 130 : 0;
}

Result<unsigned> collect_rows(const std::string& work_dir, Database& db) {
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& f : fs::directory_iterator(work_dir + "/rows", ec))
    if (f.path().extension() == ".jsonl") files.push_back(f.path());
  if (ec) return make_error(work_dir + "/rows: " + ec.message());
  std::sort(files.begin(), files.end());
  unsigned n = 0;
  for (const auto& p : files) {
    std::ifstream in(p);
    std::string line;
    while (std::getline(in, line)) {
      auto j = json::parse(line, nullptr, false);
      if (j.is_discarded()) continue;  // torn last line
      auto row = Row::from_json(j);
      if (!row) return make_error(p.string() + ": " + row.error());
      if (auto r = db.put(*row); !r) return make_error(r.error());
      ++n;
    }
  }
  return n;
}

}  // namespace npu::sweep
