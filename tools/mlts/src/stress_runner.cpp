// The child-process side of `npusim stress`: spawning, the wall-time watchdog, the verdict.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "npu/common/interrupt.h"
#include "npu/mlts/stress.h"

extern char** environ;

namespace npu::mlts {
namespace {

using Clock = std::chrono::steady_clock;

// Keeps the last `limit` bytes: a crashing child may print a lot before it dies.
void append_tail(std::string* s, const char* data, size_t n, size_t limit) {
  s->append(data, n);
  if (s->size() > limit) s->erase(0, s->size() - limit);
}

}  // namespace

ChildRun run_child(const std::vector<std::string>& argv, double timeout_s) {
  ChildRun r;
  if (argv.empty()) {
    r.spawn_error = "no command";
    return r;
  }
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    r.spawn_error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const auto t0 = Clock::now();
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  close(err[1]);
  if (spawned != 0) {
    close(out[0]);
    close(err[0]);
    r.spawn_error = argv[0] + ": " + std::strerror(spawned);
    return r;
  }
  // Read both pipes until they close, so a chatty child never blocks on a full pipe; kill at the limit.
  const auto deadline =
      t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  bool out_open = true, err_open = true;
  char buf[65536];
  while (out_open || err_open) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      r.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    if (stop_requested()) {  // Ctrl-C (npu/common/interrupt.h): the case is abandoned
      kill(pid, SIGKILL);
      break;
    }
    pollfd fds[2] = {{out_open ? out[0] : -1, POLLIN, 0}, {err_open ? err[0] : -1, POLLIN, 0}};
    const int ready = poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        (i == 0 ? out_open : err_open) = false;
      } else if (i == 0) {
        r.out.append(buf, static_cast<size_t>(n));
      } else {
        append_tail(&r.err, buf, static_cast<size_t>(n), 8192);
      }
    }
  }
  close(out[0]);
  close(err[0]);
  // The pipes closed, but the child may still run (it closed them itself, or gave them to a grandchild).
  int status = 0;
  for (;;) {
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    if (!r.timed_out && (Clock::now() >= deadline || stop_requested())) {
      r.timed_out = true;
      kill(pid, SIGKILL);
    }
    usleep(10'000);
  }
  r.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  if (r.timed_out) return r;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

CaseOutcome classify(const std::string& name, const ChildRun& run, double timeout_s) {
  CaseOutcome o;
  o.name = name;
  o.wall_s = run.wall_s;
  auto last_line = [](const std::string& text) {
    std::string t = text;
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
    const size_t nl = t.rfind('\n');
    return nl == std::string::npos ? t : t.substr(nl + 1);
  };
  if (!run.spawn_error.empty()) {
    o.verdict = Verdict::FAILURE;
    o.why = "could not start: " + run.spawn_error;
    return o;
  }
  if (run.timed_out) {
    o.verdict = Verdict::HANG;
    char limit[64];
    std::snprintf(limit, sizeof limit, "killed by the watchdog after %.0f s", timeout_s);
    o.why = limit;
    return o;
  }
  if (run.signal) {
    o.verdict = Verdict::CRASH;
    o.why = std::string("signal ") + std::to_string(run.signal) + " (" + strsignal(run.signal) + ")";
    return o;
  }
  const auto j = nlohmann::json::parse(run.out, nullptr, false);
  if (!j.is_discarded()) {
    if (auto rep = CaseReport::from_json(j); rep) o.report = std::move(*rep);
  }
  if (!o.report) {
    o.verdict = Verdict::FAILURE;
    const std::string said = last_line(run.err);
    o.why = "exit " + std::to_string(run.exit_code) + ", no report" + (said.empty() ? "" : ": " + said);
    return o;
  }
  std::string failed;
  for (const auto& c : o.report->checks)
    if (!c.passed)
      failed += (failed.empty() ? "" : "; ") + c.name + (c.detail.empty() ? "" : " (" + c.detail + ")");
  if (run.exit_code != 0 || !failed.empty()) {
    o.verdict = Verdict::FAILURE;
    o.why = failed.empty() ? "exit " + std::to_string(run.exit_code) : failed;
    return o;
  }
  o.verdict = Verdict::SUCCESS;
  return o;
}

bool CaseReport::passed() const {
  for (const auto& c : checks)
    if (!c.passed) return false;
  return !checks.empty();
}

nlohmann::json CaseReport::to_json() const {
  nlohmann::json j = {{"case", name}, {"checks", nlohmann::json::array()}, {"figures", figures}};
  for (const auto& c : checks)
    j["checks"].push_back({{"name", c.name}, {"passed", c.passed}, {"detail", c.detail}});
  return j;
}

Result<CaseReport> CaseReport::from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("case") || !j.contains("checks") || !j["checks"].is_array())
    return make_error("not a case report");
  CaseReport r;
  try {
    r.name = j.at("case").get<std::string>();
    for (const auto& c : j.at("checks"))
      r.checks.push_back(
          {c.at("name").get<std::string>(), c.at("passed").get<bool>(), c.value("detail", "")});
    r.figures = j.value("figures", nlohmann::json::object());
  } catch (const nlohmann::json::exception& e) {
    return make_error(std::string("case report: ") + e.what());
  }
  return r;
}

bool StressRun::all_success() const {
  for (const auto& c : cases)
    if (c.verdict != Verdict::SUCCESS) return false;
  return !cases.empty();
}

}  // namespace npu::mlts
