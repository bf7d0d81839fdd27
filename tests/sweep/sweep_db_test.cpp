// The results database: rows round-trip with their columns, a rerun sees what is done, a database of
// another sweep is refused, CSV quoting.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "npu/sweep/database.h"

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

}  // namespace
}  // namespace npu::sweep
