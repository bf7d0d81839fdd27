// The Slurm backend on a real single-node Slurm (scripts/slurm-single-node: Debian's munged, slurmctld
// and slurmd started as root): the small shipped sweep submitted as a job array, its rows collected,
// compared row for row with the local backend's database. Skipped, with the reason, only where Slurm
// cannot start (not root, packages not installable, daemons refusing to run).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "../support/run_npusim.h"
#include "npu/sweep/database.h"

namespace npu::sweep {
namespace {

using test::npusim;

const std::string kSmall = std::string(NPUSIM_SOURCE_DIR) + "/configs/sweeps/small.json";

std::vector<std::string> rows_of(const std::string& path) {
  auto db = Database::open(path, {});
  if (!db) return {"cannot open " + path + ": " + db.error()};
  auto rows = db->rows();
  if (!rows) return {rows.error()};
  std::vector<std::string> out;
  for (const auto& r : *rows) out.push_back(r.to_json().dump());
  return out;
}

TEST(SweepSlurm, SameDatabaseAsTheLocalBackend) {
  if (geteuid() != 0) GTEST_SKIP() << "Slurm cannot start: scripts/slurm-single-node needs root";
  const std::string script = std::string(NPUSIM_SOURCE_DIR) + "/scripts/slurm-single-node";
  auto up = npu::testing::run_shell(script + " start");
  if (up.status != 0) GTEST_SKIP() << "Slurm cannot start: " << up.output;
  const auto at = up.output.find("SLURM_CONF=");
  ASSERT_NE(at, std::string::npos) << up.output;
  std::string conf = up.output.substr(at + 11);
  conf = conf.substr(0, conf.find('\n'));
  setenv("SLURM_CONF", conf.c_str(), 1);

  auto local = npusim("sweep " + kSmall + " --db local.sqlite -j 2 --quiet");
  ASSERT_EQ(local.status, 0) << local.output;
  const std::string work = std::filesystem::absolute("slurm-work").string();
  auto slurm = npusim("sweep " + kSmall + " --db slurm.sqlite --backend slurm --work-dir " + work +
                      " --chunk 3 --time 10 --mem 1000 --quiet");
  ASSERT_EQ(slurm.status, 0) << slurm.output;
  EXPECT_NE(slurm.output.find("submitted Slurm job array"), std::string::npos) << slurm.output;
  EXPECT_NE(slurm.output.find("6 tasks of up to 3 runs"), std::string::npos) << "16 runs in chunks of 3\n"
                                                                             << slurm.output;
  EXPECT_NE(slurm.output.find("collected 16 rows"), std::string::npos) << slurm.output;
  // Each array task wrote its own row file.
  size_t files = 0;
  for (const auto& f : std::filesystem::directory_iterator(work + "/rows"))
    files += f.path().extension() == ".jsonl";
  EXPECT_EQ(files, 6u);
  const auto want = rows_of("local.sqlite");
  ASSERT_EQ(want.size(), 16u);
  EXPECT_EQ(rows_of("slurm.sqlite"), want);
  // --collect again into a fresh database: the same rows from the same files.
  auto again = npusim("sweep " + kSmall + " --db collected.sqlite --collect --work-dir " + work);
  ASSERT_EQ(again.status, 0) << again.output;
  EXPECT_EQ(rows_of("collected.sqlite"), want);
  npu::testing::run_shell(script + " stop");
}

}  // namespace
}  // namespace npu::sweep
