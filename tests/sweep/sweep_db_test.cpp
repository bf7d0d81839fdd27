// The results database: rows round-trip with their columns, a rerun sees what is done, a database of
// another sweep is refused, CSV quoting; a crafted meta table, a FIFO as the database and malformed
// Slurm tasks.json files are each one error naming the file and field (they threw or blocked).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "npu/sweep/database.h"
#include "npu/sweep/slurm.h"

namespace npu::sweep {
namespace {

std::string temp_db(const std::string& name) {
  const std::string p = ::testing::TempDir() + name + "-" + std::to_string(getpid()) + ".sqlite";
  for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(p + s);
  return p;
}

SweepMeta meta() {
  return {"t", "0123456789abcdef", {"npu.channels", "npu.power.node"}, {"latency_p50_us", "area_mm2"}};
}

Row row(uint32_t point, const std::string& workload, bool ok) {
  Row r;
  r.point = point;
  r.workload = workload;
  r.params = {{"npu.channels", 4}, {"npu.power.node", "5nm"}};
  r.status = ok ? "ok" : "failed";
  r.error = ok ? "" : "prepareModel: \"bad\", really";
  r.metrics = {{"latency_p50_us", ok ? nlohmann::json(12.5) : nlohmann::json()},
               {"area_mm2", ok ? nlohmann::json(3.25) : nlohmann::json()}};
  r.simulator_version = "abc";
  r.config_digest = "d" + std::to_string(point);
  r.command = "npusim measure --set npu.channels=4";
  return r;
}

TEST(SweepDatabase, RowsRoundTripAndResume) {
  const std::string p = temp_db("rt");
  {
    auto db = Database::open(p, meta());
    ASSERT_TRUE(db.ok()) << db.error();
    ASSERT_TRUE(db->put(row(1, "b", true)).ok());
    ASSERT_TRUE(db->put(row(0, "a", false)).ok());
    ASSERT_TRUE(db->put(row(1, "a", true)).ok());
  }
  auto db = Database::open(p, meta());  // reopened: the same sweep
  ASSERT_TRUE(db.ok()) << db.error();
  auto rows = db->rows();
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_EQ((*rows)[0].point, 0u);
  EXPECT_EQ((*rows)[0].status, "failed");
  EXPECT_EQ((*rows)[0].error, "prepareModel: \"bad\", really");
  EXPECT_TRUE((*rows)[0].metrics["latency_p50_us"].is_null());
  EXPECT_EQ((*rows)[1].workload, "a");
  EXPECT_EQ((*rows)[1].params["npu.channels"], 4);
  EXPECT_EQ((*rows)[1].params["npu.power.node"], "5nm");
  EXPECT_EQ((*rows)[1].metrics["latency_p50_us"], 12.5);
  EXPECT_EQ((*rows)[2].workload, "b");
  auto all = db->done(false), ok = db->done(true);
  ASSERT_TRUE(all.ok() && ok.ok());
  EXPECT_EQ(all->size(), 3u);
  EXPECT_EQ(ok->size(), 2u);
  // Replacing a row keeps one per (point, workload).
  ASSERT_TRUE(db->put(row(0, "a", true)).ok());
  EXPECT_EQ(db->rows()->size(), 3u);
  EXPECT_EQ(db->done(true)->size(), 3u);
}

TEST(SweepDatabase, AnotherSweepIsRefused) {
  const std::string p = temp_db("other");
  ASSERT_TRUE(Database::open(p, meta()).ok());
  SweepMeta m = meta();
  m.digest = "fedcba9876543210";
  auto db = Database::open(p, m);
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.error().find("holds the results of another sweep file"), std::string::npos) << db.error();
  auto reader = Database::open(p, {});  // read whatever it holds
  ASSERT_TRUE(reader.ok()) << reader.error();
  EXPECT_EQ(reader->meta().axes, meta().axes);
  EXPECT_FALSE(Database::open(temp_db("missing"), {}).ok());
}

TEST(SweepDatabase, CsvQuotesFields) {
  const std::string p = temp_db("csv");
  auto db = Database::open(p, meta());
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(db->put(row(0, "a", false)).ok());
  ASSERT_TRUE(db->put(row(1, "a", true)).ok());
  auto csv = db->csv();
  ASSERT_TRUE(csv.ok());
  EXPECT_EQ(
      *csv,
      "point,workload,npu.channels,npu.power.node,status,error,latency_p50_us,area_mm2,simulator_version,"
      "config_digest,command\n"
      "0,a,4,5nm,failed,\"prepareModel: \"\"bad\"\", really\",,,abc,d0,npusim measure --set npu.channels=4\n"
      "1,a,4,5nm,ok,,12.5,3.25,abc,d1,npusim measure --set npu.channels=4\n");
}

// A database whose meta table lists something other than names (meta(axes)='[1]') threw a
// json type_error out of `sweep --export`/`--report`; now one error naming the file and the key.
TEST(SweepDatabase, CraftedMetaIsOneErrorNamingTheFile) {
  for (const char* key : {"axes", "metrics"})
    for (const char* value : {"[1]", "{\"a\": 1}", "[\"a\", null]"}) {
      SCOPED_TRACE(std::string(key) + "=" + value);
      const std::string p = temp_db("crafted");
      ASSERT_TRUE(Database::open(p, meta()).ok());
      sqlite3* db = nullptr;
      ASSERT_EQ(sqlite3_open(p.c_str(), &db), SQLITE_OK);
      const std::string sql =
          std::string("UPDATE meta SET value = '") + value + "' WHERE key = '" + key + "'";
      EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
      sqlite3_close(db);
      auto reader = Database::open(p, {});
      ASSERT_FALSE(reader.ok());
      EXPECT_EQ(reader.error().rfind(p + ": meta(" + key + ") is ", 0), 0u) << reader.error();
      EXPECT_NE(reader.error().find("not a list of names"), std::string::npos) << reader.error();
    }
}

// Axes the results table does not have: rows() refuses instead of reading other columns.
TEST(SweepDatabase, MetaListingMoreColumnsThanTheTableIsAnError) {
  const std::string p = temp_db("columns");
  ASSERT_TRUE(Database::open(p, meta()).ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(p.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, R"(UPDATE meta SET value = '["a","b","c"]' WHERE key = 'axes')", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto reader = Database::open(p, {});
  ASSERT_TRUE(reader.ok()) << reader.error();
  auto rows = reader->rows();
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.error().find("the results table has 11 columns"), std::string::npos) << rows.error();
}

// A FIFO (or a folder) as --db is refused before SQLite opens it (a read-only open waited for a writer).
TEST(SweepDatabase, FifoOrFolderAsTheDatabaseIsRefused) {
  const std::string fifo = temp_db("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const SweepMeta& m : {SweepMeta{}, meta()}) {
    auto db = Database::open(fifo, m);
    ASSERT_FALSE(db.ok());
    EXPECT_EQ(db.error(), fifo + ": cannot open the database: it is a FIFO, not a regular file");
  }
  std::filesystem::remove(fifo);
  auto dir = Database::open(::testing::TempDir(), {});
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.error().find("it is a folder"), std::string::npos) << dir.error();
}

// A Slurm work folder with `tasks.json` as given; what run_slurm_task printed on stderr and returned.
std::pair<int, std::string> slurm_task(const std::string& name, const std::string& tasks_json) {
  const std::string dir = ::testing::TempDir() + "slurm-" + name + "-" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/rows");
  std::ofstream(dir + "/tasks.json") << tasks_json;
  ::testing::internal::CaptureStderr();
  const int status = run_slurm_task(dir, 0, "/bin/false");
  return {status, ::testing::internal::GetCapturedStderr()};
}

// Malformed tasks.json files threw out of `npusim sweep --slurm-task` (E549 on stdout); each is now one
// line naming the file and the field.
TEST(SweepSlurm, MalformedTasksJsonIsOneLineNamingTheField) {
  const std::string row =
      R"({"point":0,"workload":"w","params":{},"status":"","error":"","metrics":{},"simulator_version":"v",)"
      R"("config_digest":"d","command":"c"})";
  const std::string ok_task = R"({"args":["measure"],"row":)" + row + "}";
  const struct {
    std::string json, field;
  } cases[] = {
      {R"({"tasks": []})", "$.metrics: expected a list of metric names, got null"},
      {R"({"metrics": [1], "chunk": 1, "tasks": [)" + ok_task + "]}", "$.metrics[0]: expected a metric name"},
      {R"({"metrics": [], "chunk": "x", "tasks": [)" + ok_task + "]}", "$.chunk: expected a whole number"},
      {R"({"metrics": [], "chunk": 0, "tasks": [)" + ok_task + "]}", "$.chunk: expected a whole number"},
      {R"({"metrics": [], "chunk": 1, "tasks": []})", "$.tasks: expected a non-empty list of tasks"},
      {R"({"metrics": [], "chunk": 1, "tasks": [{"args": "x"}]})", "$.tasks[0].args: expected"},
      {R"({"metrics": [], "chunk": 1, "tasks": [{"args": ["a"], "row": 1}]})",
       "$.tasks[0].row: bad result row"},
      {R"([1, 2])", "$: expected an object"},
  };
  int n = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.json);
    auto [status, err] = slurm_task("bad" + std::to_string(n++), c.json);
    EXPECT_EQ(status, 1);
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_NE(err.find("/tasks.json: " + c.field), std::string::npos) << err;
  }
}

// tasks.json as a FIFO: refused, not opened blocking.
TEST(SweepSlurm, FifoAsTasksJsonIsRefused) {
  const std::string dir = ::testing::TempDir() + "slurm-fifo-" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  ASSERT_EQ(::mkfifo((dir + "/tasks.json").c_str(), 0600), 0);
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(run_slurm_task(dir, 0, "/bin/false"), 1);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("tasks.json: cannot open: it is a FIFO"), std::string::npos) << err;
}

}  // namespace
}  // namespace npu::sweep
