// The results database of a sweep: one SQLite file, one row per design point x workload.
// Table `results`: point, workload, one column per axis parameter (named by its path), status
// ("ok" | "failed"), error, one column per recorded metric (NULL where a workload has none), the
// simulator version (git hash), the digest of the point's effective config and the command line that
// reproduces it. Table `meta`: the sweep's name, file digest, axes and metrics, so a database is never
// mixed between sweeps. Rows are written one transaction each, so a killed sweep leaves only whole rows.
// It does not run anything and holds no wall-clock times: the same sweep gives the same rows.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "npu/common/result.h"

struct sqlite3;

namespace npu::sweep {

struct Row {
  uint32_t point = 0;
  std::string workload;
  nlohmann::json params = nlohmann::json::object();  // axis path -> value
  std::string status;                                // ok | failed
  std::string error;
  nlohmann::json metrics = nlohmann::json::object();  // metric -> number or null
  std::string simulator_version, config_digest, command;

  nlohmann::json to_json() const;
  static Result<Row> from_json(const nlohmann::json& j);
};

struct SweepMeta {
  std::string name, digest;
  std::vector<std::string> axes, metrics;
};

class Database {
 public:
  // Opens (creating when missing) and checks the file belongs to `meta`'s sweep; an empty meta.digest
  // opens an existing database for reading whatever sweep it holds.
  static Result<Database> open(const std::string& path, const SweepMeta& meta);
  Database(Database&& o) noexcept;
  Database& operator=(Database&&) = delete;
  ~Database();

  const SweepMeta& meta() const { return meta_; }
  Result<void> put(const Row& row);       // insert or replace (point, workload)
  Result<std::vector<Row>> rows() const;  // ordered by point, then workload
  // (point, workload) pairs already recorded: all, or only those with status ok.
  Result<std::vector<std::pair<uint32_t, std::string>>> done(bool ok_only) const;
  // The table as CSV (RFC 4180 quoting), header first.
  Result<std::string> csv() const;

 private:
  Database(sqlite3* db, SweepMeta meta) : db_(db), meta_(std::move(meta)) {}
  sqlite3* db_ = nullptr;
  SweepMeta meta_;
};

}  // namespace npu::sweep
