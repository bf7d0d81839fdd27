// Sweep throughput on this machine: the small shipped sweep (configs/sweeps/small.json, 8 design points x
// 2 workloads) run by `npusim sweep` with the local backend, once with -j 1 and once with -j N (default:
// every core), each into a fresh database; prints wall seconds, design points and runs per minute, and
// the speed-up, and whether the two databases hold the same rows (they must: determinism).
// Wall-clock figures are machine-dependent: a benchmark, never a test.
//
//   sweep_bench [--jobs N] [--repeat R] [SWEEP.json]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

namespace {

double run(const std::string& sweep, const std::string& db, unsigned jobs) {
  for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(db + s);
  const std::string cmd = std::string(NPUSIM_BIN) + " sweep " + sweep + " --db " + db + " -j " +
                          std::to_string(jobs) + " --quiet > /dev/null";
  const auto t0 = std::chrono::steady_clock::now();
  const int rc = std::system(cmd.c_str());
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (rc != 0) {
    std::fprintf(stderr, "sweep_bench: %s failed (%d)\n", cmd.c_str(), rc);
    std::exit(1);
  }
  return s;
}

std::string capture(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  char buf[4096];
  size_t n;
  while (p && (n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  if (p) pclose(p);
  return out;
}

}  // namespace

int main(int argc, char* argv[]) {
  std::string sweep = std::string(NPUSIM_SOURCE_DIR) + "/configs/sweeps/small.json";
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  int repeat = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--jobs" && i + 1 < argc)
      jobs = static_cast<unsigned>(std::max(1, std::atoi(argv[++i])));
    else if (a == "--repeat" && i + 1 < argc)
      repeat = std::max(1, std::atoi(argv[++i]));
    else if (!a.empty() && a[0] != '-')
      sweep = a;
    else {
      std::fprintf(stderr, "usage: sweep_bench [--jobs N] [--repeat R] [SWEEP.json]\n");
      return 2;
    }
  }
  // Points and runs from the sweep's own listing.
  const std::string list = capture(std::string(NPUSIM_BIN) + " sweep " + sweep + " --list");
  unsigned points = 0, workloads = 0;
  if (std::sscanf(list.c_str(), "sweep %*s %u points (%*u candidates, %*u rejected) x %u workloads", &points,
                  &workloads) != 2 ||
      points == 0) {
    std::fprintf(stderr, "sweep_bench: cannot read the sweep's size from: %s\n", list.c_str());
    return 1;
  }
  const std::string dir =
      std::filesystem::temp_directory_path().string() + "/sweep_bench-" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  double one = 1e300, all = 1e300;
  for (int r = 0; r < repeat; ++r) {
    one = std::min(one, run(sweep, dir + "/j1.sqlite", 1));
    all = std::min(all, run(sweep, dir + "/jn.sqlite", jobs));
  }
  const std::string dump = "sqlite3 " + dir + "/%s.sqlite 'SELECT * FROM results ORDER BY point, workload'";
  char a[512], b[512];
  std::snprintf(a, sizeof a, dump.c_str(), "j1");
  std::snprintf(b, sizeof b, dump.c_str(), "jn");
  const bool same = capture(a) == capture(b);
  const unsigned runs = points * workloads;
  std::printf("sweep %s: %u design points x %u workloads = %u runs (best of %d)\n", sweep.c_str(), points,
              workloads, runs, repeat);
  std::printf("  -j 1   %7.2f s wall  %7.1f points/min  %7.1f runs/min\n", one, points * 60 / one,
              runs * 60 / one);
  std::printf("  -j %-3u %7.2f s wall  %7.1f points/min  %7.1f runs/min\n", jobs, all, points * 60 / all,
              runs * 60 / all);
  std::printf("  speed-up %.2fx on %u jobs (%u cores); databases %s\n", one / all, jobs,
              std::thread::hardware_concurrency(), same ? "identical" : "DIFFER");
  std::filesystem::remove_all(dir);
  return same ? 0 : 1;
}
