#include "npu/sweep/database.h"

#include <sqlite3.h>

#include <cmath>
#include <filesystem>
#include <sstream>

#include "npu/common/file_io.h"

namespace npu::sweep {
namespace {

using nlohmann::json;

std::string quote_ident(const std::string& name) {
  std::string q = "\"";
  for (char c : name) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql) {
    rc_ = sqlite3_prepare_v2(db, sql.c_str(), -1, &st_, nullptr);
  }
  ~Statement() { sqlite3_finalize(st_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  bool ok() const { return rc_ == SQLITE_OK; }
  sqlite3_stmt* get() { return st_; }

 private:
  sqlite3_stmt* st_ = nullptr;
  int rc_ = SQLITE_OK;
};

Result<void> exec(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string m = err ? err : "unknown error";
    sqlite3_free(err);
    return make_error("sqlite: " + m);
  }
  return {};
}

std::string text_column(sqlite3_stmt* st, int i) {
  const unsigned char* t = sqlite3_column_text(st, i);
  return t ? reinterpret_cast<const char*>(t) : "";
}

json list_json(const std::vector<std::string>& v) { return json(v); }

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string number_text(double v) {
  std::ostringstream s;
  s.precision(12);
  s << v;
  return s.str();
}

}  // namespace

json Row::to_json() const {
  return {{"point", point},
          {"workload", workload},
          {"params", params},
          {"status", status},
          {"error", error},
          {"metrics", metrics},
          {"simulator_version", simulator_version},
          {"config_digest", config_digest},
          {"command", command}};
}

Result<Row> Row::from_json(const json& j) {
  try {
    Row r;
    r.point = j.at("point").get<uint32_t>();
    r.workload = j.at("workload").get<std::string>();
    r.params = j.at("params");
    r.status = j.at("status").get<std::string>();
    r.error = j.at("error").get<std::string>();
    r.metrics = j.at("metrics");
    r.simulator_version = j.at("simulator_version").get<std::string>();
    r.config_digest = j.at("config_digest").get<std::string>();
    r.command = j.at("command").get<std::string>();
    return r;
  } catch (const json::exception& e) {
    return make_error(std::string("bad result row: ") + e.what());
  }
}

Result<Database> Database::open(const std::string& path, const SweepMeta& want) {
  // SQLite would open a FIFO and wait on it for ever, or a device: only a regular file (or none yet).
  std::error_code ec;
  const auto kind = std::filesystem::status(path, ec).type();
  if (!ec && kind != std::filesystem::file_type::regular)
    return make_error(path + ": cannot open the database: it is " +
                      (kind == std::filesystem::file_type::directory ? "a folder"
                       : kind == std::filesystem::file_type::fifo    ? "a FIFO"
                                                                     : "a special file") +
                      ", not a regular file");
  sqlite3* db = nullptr;
  const int flags = want.digest.empty() ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    std::string m = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return make_error(path + ": cannot open the database: " + m);
  }
  Database d(db, want);
  sqlite3_busy_timeout(db, 10000);
  if (!want.digest.empty()) {
    // WAL: a reader (--report, --export) never blocks the writing sweep; synchronous NORMAL keeps every
    // committed row across a killed process.
    if (auto r = exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"); !r)
      return make_error(path + ": " + r.error());
    if (auto r = exec(db, "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)"); !r)
      return make_error(path + ": " + r.error());
  }
  // What the file says it holds.
  SweepMeta have;
  {
    Statement st(db, "SELECT key, value FROM meta");
    if (!st.ok()) return make_error(path + ": not a sweep database (no meta table)");
    while (sqlite3_step(st.get()) == SQLITE_ROW) {
      const std::string k = text_column(st.get(), 0), v = text_column(st.get(), 1);
      if (k == "name") have.name = v;
      if (k == "digest") have.digest = v;
      if (k == "axes" || k == "metrics") {
        // Written by this class as a list of names; anything else is a damaged or foreign file.
        auto j = io::check_json_nesting(v) ? json::parse(v, nullptr, false) : json();
        bool names = j.is_array();
        for (const auto& e : j) names = names && e.is_string();
        if (!names)
          return make_error(path + ": meta(" + k + ") is " + io::text_for_message(v, 80) +
                            ", not a list of names: not a database this npusim wrote");
        (k == "axes" ? have.axes : have.metrics) = j.get<std::vector<std::string>>();
      }
    }
  }
  if (want.digest.empty()) {
    if (have.digest.empty()) return make_error(path + ": not a sweep database (empty meta table)");
    d.meta_ = have;
    return d;
  }
  if (!have.digest.empty()) {
    if (have.digest != want.digest)
      return make_error(path + ": holds the results of another sweep file (\"" + have.name + "\", digest " +
                        have.digest + "; this one is " + want.digest + "): use a new --db");
    return d;
  }
  std::string cols;
  for (const auto& a : want.axes) cols += ", " + quote_ident(a);
  cols += ", status TEXT NOT NULL, error TEXT NOT NULL";
  for (const auto& m : want.metrics) cols += ", " + quote_ident(m) + " REAL";
  cols += ", simulator_version TEXT NOT NULL, config_digest TEXT NOT NULL, command TEXT NOT NULL";
  std::string sql = "BEGIN; CREATE TABLE results(point INTEGER NOT NULL, workload TEXT NOT NULL" + cols +
                    ", PRIMARY KEY(point, workload));";
  auto put_meta = [&](const std::string& k, const std::string& v) {
    std::string q = "'";
    for (char c : v) q += c == '\'' ? std::string("''") : std::string(1, c);
    sql += "INSERT INTO meta VALUES('" + k + "', " + q + "');";
  };
  put_meta("name", want.name);
  put_meta("digest", want.digest);
  put_meta("axes", list_json(want.axes).dump());
  put_meta("metrics", list_json(want.metrics).dump());
  sql += "COMMIT;";
  if (auto r = exec(db, sql); !r) return make_error(path + ": " + r.error());
  return d;
}

Database::Database(Database&& o) noexcept : db_(o.db_), meta_(std::move(o.meta_)) { o.db_ = nullptr; }

Database::~Database() { sqlite3_close(db_); }

Result<void> Database::put(const Row& row) {
  std::string names = "point, workload", marks = "?, ?";
  for (const auto& a : meta_.axes) {
    names += ", " + quote_ident(a);
    marks += ", ?";
  }
  names += ", status, error";
  marks += ", ?, ?";
  for (const auto& m : meta_.metrics) {
    names += ", " + quote_ident(m);
    marks += ", ?";
  }
  names += ", simulator_version, config_digest, command";
  marks += ", ?, ?, ?";
  Statement st(db_, "INSERT OR REPLACE INTO results(" + names + ") VALUES(" + marks + ")");
  if (!st.ok()) return make_error(std::string("sqlite: ") + sqlite3_errmsg(db_));
  int i = 1;
  auto bind_text = [&](const std::string& s) {
    sqlite3_bind_text(st.get(), i++, s.c_str(), -1, SQLITE_TRANSIENT);
  };
  auto bind_json = [&](const json& v) {
    if (v.is_number_integer())
      sqlite3_bind_int64(st.get(), i++, v.get<int64_t>());
    else if (v.is_number())
      sqlite3_bind_double(st.get(), i++, v.get<double>());
    else if (v.is_string())
      bind_text(v.get<std::string>());
    else if (v.is_boolean())
      sqlite3_bind_int64(st.get(), i++, v.get<bool>() ? 1 : 0);
    else
      sqlite3_bind_null(st.get(), i++);
  };
  sqlite3_bind_int64(st.get(), i++, row.point);
  bind_text(row.workload);
  for (const auto& a : meta_.axes) bind_json(row.params.contains(a) ? row.params[a] : json());
  bind_text(row.status);
  bind_text(row.error);
  for (const auto& m : meta_.metrics) {
    const json v = row.metrics.contains(m) ? row.metrics[m] : json();
    if (v.is_number())
      sqlite3_bind_double(st.get(), i++, v.get<double>());
    else
      sqlite3_bind_null(st.get(), i++);
  }
  bind_text(row.simulator_version);
  bind_text(row.config_digest);
  bind_text(row.command);
  if (sqlite3_step(st.get()) != SQLITE_DONE) return make_error(std::string("sqlite: ") + sqlite3_errmsg(db_));
  return {};
}

Result<std::vector<Row>> Database::rows() const {
  Statement st(db_, "SELECT * FROM results ORDER BY point, workload");
  if (!st.ok()) return make_error(std::string("sqlite: ") + sqlite3_errmsg(db_));
  // point, workload, the axes, status, error, the metrics, version, digest, command: what meta promises.
  const size_t want = 7 + meta_.axes.size() + meta_.metrics.size();
  if (static_cast<size_t>(sqlite3_column_count(st.get())) != want)
    return make_error("the results table has " + std::to_string(sqlite3_column_count(st.get())) +
                      " columns, its meta table's axes and metrics call for " + std::to_string(want) +
                      ": not a database this npusim wrote");
  std::vector<Row> out;
  while (sqlite3_step(st.get()) == SQLITE_ROW) {
    Row r;
    int i = 0;
    r.point = static_cast<uint32_t>(sqlite3_column_int64(st.get(), i++));
    r.workload = text_column(st.get(), i++);
    for (const auto& a : meta_.axes) {
      const int type = sqlite3_column_type(st.get(), i);
      if (type == SQLITE_INTEGER)
        r.params[a] = sqlite3_column_int64(st.get(), i);
      else if (type == SQLITE_FLOAT)
        r.params[a] = sqlite3_column_double(st.get(), i);
      else if (type == SQLITE_TEXT)
        r.params[a] = text_column(st.get(), i);
      else
        r.params[a] = nullptr;
      ++i;
    }
    r.status = text_column(st.get(), i++);
    r.error = text_column(st.get(), i++);
    for (const auto& m : meta_.metrics) {
      r.metrics[m] =
          sqlite3_column_type(st.get(), i) == SQLITE_NULL ? json() : json(sqlite3_column_double(st.get(), i));
      ++i;
    }
    r.simulator_version = text_column(st.get(), i++);
    r.config_digest = text_column(st.get(), i++);
    r.command = text_column(st.get(), i++);
    out.push_back(std::move(r));
  }
  return out;
}

Result<std::vector<std::pair<uint32_t, std::string>>> Database::done(bool ok_only) const {
  Statement st(db_,
               std::string("SELECT point, workload FROM results") + (ok_only ? " WHERE status = 'ok'" : ""));
  if (!st.ok()) return make_error(std::string("sqlite: ") + sqlite3_errmsg(db_));
  std::vector<std::pair<uint32_t, std::string>> out;
  while (sqlite3_step(st.get()) == SQLITE_ROW)
    out.emplace_back(static_cast<uint32_t>(sqlite3_column_int64(st.get(), 0)), text_column(st.get(), 1));
  return out;
}

Result<std::string> Database::csv() const {
  auto rs = rows();
  if (!rs) return make_error(rs.error());
  std::string out = "point,workload";
  for (const auto& a : meta_.axes) out += "," + csv_field(a);
  out += ",status,error";
  for (const auto& m : meta_.metrics) out += "," + csv_field(m);
  out += ",simulator_version,config_digest,command\n";
  for (const auto& r : *rs) {
    out += std::to_string(r.point) + "," + csv_field(r.workload);
    for (const auto& a : meta_.axes) {
      const json& v = r.params[a];
      out += "," + (v.is_null()           ? std::string()
                    : v.is_string()       ? csv_field(v.get<std::string>())
                    : v.is_number_float() ? number_text(v.get<double>())
                                          : v.dump());
    }
    out += "," + r.status + "," + csv_field(r.error);
    for (const auto& m : meta_.metrics) {
      const json& v = r.metrics[m];
      out += "," + (v.is_number() ? number_text(v.get<double>()) : std::string());
    }
    out += "," + csv_field(r.simulator_version) + "," + r.config_digest + "," + csv_field(r.command) + "\n";
  }
  return out;
}

}  // namespace npu::sweep
