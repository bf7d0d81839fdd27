// A sweep file (configs/sweeps/*.json): the design space and the workloads of an architecture study.
// It names a base hardware config, axes over declared parameters (`npusim config --explain`) — value
// lists, linear or log ranges, or seeded random / Latin-hypercube samples —, constraints between them
// (expr.h), the workloads (zoo models, model JSON or ONNX files, scenario files) and the metrics to
// record. load_sweep() validates strictly, every error naming the file and the JSON path; expand() turns
// the spec into the ordered list of design points (deterministic: same file, same points).
// It does not run anything: runner.h does.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "npu/common/result.h"
#include "npu/sweep/expr.h"

namespace npu::sweep {

struct Axis {
  std::string param;
  std::vector<nlohmann::json> values;  // list / range axes, and categorical sample axes
  bool continuous = false;             // sample axes given as {min, max}
  double min = 0, max = 0;
  bool log = false;
  bool integer = false;  // the parameter is an integer: values are rounded
};

struct Workload {
  std::string name;          // unique within the sweep; the database key with the point
  std::string model;         // model JSON, .onnx or zoo:NAME (resolved against the sweep file's folder)
  std::string scenario;      // or a scenario file
  bool timing_only = false;  // models: drop constant values, run for timing alone
  uint32_t iterations = 3;   // models: inferences measured
  uint64_t seed = 1;         // models: zoo weights and inputs
  double scale = 1;          // scenarios: duration scale (npusim scenario --scale)
  std::string policy;        // scenarios: baseline (empty: the scenario's)
  bool isolated = false;     // scenarios: also run each app alone (ANTT, STP, fairness)
};

struct Constraint {
  std::string text;
  Expr expr;
};

struct Metric {
  std::string name, unit, description;
};
// Every metric a sweep may record.
const std::vector<Metric>& metric_catalogue();

struct SweepSpec {
  std::string path, dir;  // the file and its folder
  std::string name, description;
  std::string base;                   // hardware config path (resolved)
  std::vector<std::string> base_set;  // fixed `path=value` overrides of every point
  std::vector<Axis> axes;
  std::string method = "grid";  // grid | random | latin_hypercube
  uint32_t samples = 0;
  uint64_t seed = 1;
  std::vector<Constraint> constraints;
  std::vector<Workload> workloads;
  std::vector<std::string> metrics;
  std::string digest;  // of the file's canonical JSON: a database belongs to one sweep
};

struct Point {
  uint32_t index = 0;                                          // position in the expansion
  std::vector<std::pair<std::string, nlohmann::json>> values;  // one per axis, in axis order
  std::string config_digest;                                   // of the effective config
  double area_mm2 = 0;
  std::vector<std::string> sets() const;  // `path=value` for each axis value
};

struct Expansion {
  std::vector<Point> points;
  uint32_t candidates = 0;            // before constraints
  std::vector<std::string> rejected;  // one line per point a constraint or a config rule rejected
};

Result<SweepSpec> load_sweep(const std::string& path);
Result<SweepSpec> parse_sweep(const nlohmann::json& doc, const std::string& source, const std::string& dir);
Result<Expansion> expand(const SweepSpec& spec);

// The effective hardware config (base file chain, then overrides) as the nested JSON of every declared
// parameter; the errors are load_system_config's.
Result<nlohmann::json> effective_config(const std::string& base, const std::vector<std::string>& sets);
// A stable 16-hex-digit digest (FNV-1a 64) of a text.
std::string digest(const std::string& text);
// A parameter value as a --set argument ("4", "0.5", "rtl").
std::string value_text(const nlohmann::json& v);

}  // namespace npu::sweep
