// _npusim: the C++ half of the Python package (python/npusim). Every function takes and returns JSON
// text: the result, or {"error": one line, "kind": "config" | "model" | "inputs" | "output" |
// "simulation" | "scenario"}; the Python half turns errors into exceptions. The functions that simulate
// (run, bench, scenario) build a SystemC kernel, which cannot be reset: the Python half calls each in a
// fresh child process, never in the user's interpreter. Everything else (configs, models, the builder)
// simulates nothing and runs in place. It computes nothing of its own: it calls the libraries the
// npusim CLI uses (tools/lib, tools/mlts, scenario/), so its numbers are the CLI's.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "npu/common/file_io.h"
#include "npu/common/fixed_point.h"
#include "npu/common/shipped.h"
#include "npu/common/version.h"
#include "npu/hal/ops/reference_executor.h"
#include "npu/mlts/bench.h"
#include "npu/models/builder.h"
#include "npu/models/extensions.h"
#include "npu/models/figures.h"
#include "npu/models/io_json.h"
#include "npu/models/model_json.h"
#include "npu/models/validate.h"
#include "npu/models/zoo.h"
#include "npu/scenario/report.h"
#include "npu/scenario/scenario.h"
#include "npu/system/system.h"
#include "npu/tools/data_files.h"
#include "npu/tools/escaped_error.h"
#include "npu/tools/layers.h"
#include "npu/tools/model_file.h"
#include "npu/tools/run_model.h"
#include "npu/tools/scenario_runs.h"

// libsystemc.so carries a main() that calls sc_main(); the Python interpreter never calls it, but the
// symbol must resolve for the library to load. Simulations start with sc_start() from System::run.
extern "C" __attribute__((visibility("default"))) int sc_main(int, char*[]) { return 1; }

namespace py = pybind11;
using nlohmann::json;

namespace {

std::string error(const std::string& kind, const std::string& message) {
  return json{{"error", message}, {"kind", kind}}.dump();
}

// A model as the Python Model object describes it: {"source": path or zoo:NAME, "cpu_fallback",
// "shapes": ["x=1x3"], "values": ["sr=16000"]} or {"json": model JSON text, "name": ...}.
npu::Result<npu::models::Model> load_spec(const json& spec) {
  using namespace npu;
  if (spec.contains("json")) {
    const std::string name = spec.value("name", std::string("model"));
    auto doc = models::parse_json_text(spec["json"].get<std::string>(), name);
    if (!doc) return make_error(doc.error());
    auto m = models::parse_model_json(*doc, name, spec.value("base_dir", std::string()));
    if (!m) return m;
    if (auto v = models::validate_model(*m); !v) return make_error(name + ": " + v.error());
    if (auto v = hal::ops::validate_operations(*m); !v) return make_error(name + ": " + v.error());
    return m;
  }
  models::OnnxImportOptions opt;
  opt.cpu_fallback = spec.value("cpu_fallback", false);
  for (const auto& s : spec.value("shapes", std::vector<std::string>()))
    if (auto r = models::parse_input_shape(s, &opt); !r) return make_error(r.error());
  for (const auto& v : spec.value("values", std::vector<std::string>()))
    if (auto r = models::parse_input_value(v, &opt); !r) return make_error(r.error());
  return tools::load_model_file(spec.at("source").get<std::string>(), opt);
}

json operand_json(const npu::models::Model& m, uint32_t index) {
  const auto& op = m.main.operands[index];
  return {{"index", index},
          {"type", std::string(npu::models::to_string(op.type))},
          {"dims", op.dimensions},
          {"scale", op.scale},
          {"zero_point", op.zero_point}};
}

json hardware_json(const npu::system::SystemConfig& cfg) {
  const auto& n = cfg.npu;
  return {{"channels", n.channels},
          {"array_rows", n.channel.array_rows},
          {"array_cols", n.channel.array_cols},
          {"sram_kib", n.channel.sram_kib},
          {"clock_mhz", n.clock_mhz()},
          {"compute_core", n.channel.compute_core}};
}

std::string config_summary(const std::string& path, const std::vector<std::string>& sets) {
  auto cfg = npu::system::load_system_config(path, sets);
  if (!cfg) return error("config", cfg.error());
  return hardware_json(*cfg).dump();
}

std::string model_info(const std::string& spec_text) {
  using namespace npu;
  auto m = load_spec(json::parse(spec_text));
  if (!m) return error("model", m.error());
  json j = {{"inputs", json::array()}, {"outputs", json::array()}, {"operations", json::array()}};
  for (uint32_t i : m->main.input_indexes) j["inputs"].push_back(operand_json(*m, i));
  for (uint32_t i : m->main.output_indexes) j["outputs"].push_back(operand_json(*m, i));
  for (const auto& op : m->main.operations)
    j["operations"].push_back(
        {{"type", models::operation_name(*m, op.type)}, {"inputs", op.inputs}, {"outputs", op.outputs}});
  const auto f = models::model_figures(*m);
  j["parameters"] = f.parameters;
  j["parameter_bytes"] = f.parameter_bytes;
  j["macs"] = f.macs;
  j["operands"] = m->main.operands.size();
  j["timing_only"] = models::is_timing_only(*m);
  return j.dump();
}

std::string model_json_text(const std::string& spec_text) {
  auto m = load_spec(json::parse(spec_text));
  if (!m) return error("model", m.error());
  return json{{"model", npu::models::to_json(*m)}}.dump();
}

std::string random_inputs(const std::string& spec_text, uint64_t seed) {
  auto m = load_spec(json::parse(spec_text));
  if (!m) return error("model", m.error());
  if (npu::models::is_timing_only(*m)) return json{{"inputs", json::object()}}.dump();
  return json{{"inputs", npu::models::io_to_json(npu::models::random_inputs(*m, seed), true)}}.dump();
}

// One inference (tools::run_model, as `npusim run`). Request: {"model": spec, "inputs": {"<operand>":
// values} | {"file": path} | null (seeded random, "seed"), "hw", "sets", "device", "check", "layers",
// "trace", "stats_file", "outputs_file"}.
std::string run(const std::string& request_text) {
  using namespace npu;
  const json req = json::parse(request_text);
  const std::string name = req.value("name", std::string("model"));
  auto model = load_spec(req.at("model"));
  if (!model) return error("model", model.error());
  hal::TensorMap inputs;
  const json& in = req.at("inputs");
  if (in.is_null()) {
    inputs = models::random_inputs(*model, req.value("seed", uint64_t{1}));
  } else if (in.contains("file")) {
    auto r = models::load_io_json(in["file"].get<std::string>(), *model);
    if (!r) return error("inputs", r.error());
    inputs = std::move(*r);
  } else {
    auto r = models::parse_io_json(in, "inputs", *model);
    if (!r) return error("inputs", r.error());
    inputs = std::move(*r);
  }
  auto cfg = system::load_system_config(req.value("hw", tools::default_hw_config()),
                                        req.value("sets", std::vector<std::string>()));
  if (!cfg) return error("config", cfg.error());
  const std::string trace_path = req.value("trace", std::string());
  const bool layers = req.value("layers", true);
  cfg->trace = layers || !trace_path.empty();
  tools::RunModelOptions ro;
  ro.name = name;
  ro.device = req.value("device", std::string("npu"));
  ro.check = req.value("check", false);
  ro.loop_timeout_ns = req.value("loop_timeout_ms", npu::hal::kDefaultLoopTimeoutNs / 1'000'000) * 1'000'000;
  auto out = tools::run_model(*model, inputs, *cfg, ro);
  if (!out) return error("simulation", out.error());
  if (!out->execution_error.empty()) return error("simulation", out->execution_error);
  const auto& r = out->result;
  auto& sys = *out->system;
  json j = {{"placement", out->placement},
            {"latency_us", r.timing.time_in_driver_us},
            {"device_us", r.timing.time_on_device_us},
            {"npu_cycles", r.device_cycles},
            {"jobs", r.jobs},
            {"stages", r.stages},
            {"command_buffers", r.command_buffers},
            {"prepare_us", out->prepare_ns / 1000.0},
            {"simulated_end_s", out->simulated_end_s},
            {"timing_only", r.timing_only},
            {"hardware", hardware_json(sys.config())},
            {"stats", sys.stats().to_json(true)},
            {"inputs", models::io_to_json(inputs, true)},
            {"outputs", models::io_to_json(r.outputs, true)},
            {"output_types", json::object()}};
  for (const auto& [idx, t] : r.outputs)
    j["output_types"][std::to_string(idx)] = {
        {"type", std::string(models::to_string(t.type))}, {"scale", t.scale}, {"zero_point", t.zero_point}};
  if (ro.check) {
    if (r.timing_only) {
      j["check"] = nullptr;
    } else if (!out->reference.status.ok()) {
      return error("simulation", name + ": CPU reference: " + hal::to_string(out->reference.status.code) +
                                     ": " + out->reference.status.message);
    } else {
      const auto c = tools::compare_outputs(r.outputs, out->reference.outputs,
                                            model->relax_computation_float32_to_float16);
      j["check"] = {{"elements", c.elements},
                    {"mismatches", c.mismatches},
                    {"max_abs_error", c.max_abs_error},
                    {"first_mismatch", c.first_mismatch}};
      j["reference_outputs"] = models::io_to_json(out->reference.outputs, true);
    }
  }
  if (cfg->trace) {
    const json trace = sys.tracer()->to_json();
    if (!trace_path.empty()) {
      // Named like `npusim run --trace`'s: the trace's metadata says which build wrote it.
      json named = trace;
      named["metadata"] = {{kBuildKey, build_json()}};
      if (auto w = io::write_file_atomic(trace_path, named.dump() + "\n"); !w)
        return error("output", w.error());
    }
    if (layers) {
      j["layers"] = json::array();
      for (const auto& l : tools::layer_table(*model, hal::target_for(sys.driver().device_info()), &trace,
                                              ro.device == "cpu")) {
        json row = {{"operation", l.operation},
                    {"type", l.type},
                    {"where", l.where},
                    {"cpu_reason", l.cpu_reason},
                    {"command_buffers", l.command_buffers},
                    {"macs", l.macs},
                    {"tiles", l.tiles},
                    {"dram_bytes", l.dram_bytes},
                    {"output_type", l.output_type},
                    {"output_dims", l.output_dims}};
        if (l.timed) {
          row["start_us"] = l.start_us;
          row["device_us"] = l.device_us;
          row["busy_us"] = l.busy_us;
          row["compute_us"] = l.compute_us;
          row["dma_in_us"] = l.dma_in_us;
          row["dma_out_us"] = l.dma_out_us;
          row["stall_us"] = l.stall_us;
          row["array_utilisation"] = l.array_utilisation;
          row["energy_pj"] = l.energy_pj;
        }
        j["layers"].push_back(row);
      }
    }
  }
  return j.dump();
}

// `npusim bench` (mlts::run_bench). Request: {"model": path or zoo:NAME, "iterations", "seed", "hw", "sets"}.
std::string bench(const std::string& request_text) {
  using namespace npu;
  const json req = json::parse(request_text);
  mlts::BenchOptions o;
  o.model = req.at("model").get<std::string>();
  o.iterations = req.value("iterations", o.iterations);
  o.seed = req.value("seed", o.seed);
  o.hw = req.value("hw", o.hw);
  o.sets = req.value("sets", o.sets);
  auto r = mlts::run_bench(o);
  if (!r) return error("simulation", r.error());
  return mlts::bench_json(*r).dump();
}

// `npusim scenario` (tools::run_scenario_policies). Request: {"file", "policy", "compare", "scale",
// "scale_thermal", "trace", "report"}.
std::string scenario(const std::string& request_text) {
  using namespace npu;
  const json req = json::parse(request_text);
  auto sc = scenario::load_scenario(req.at("file").get<std::string>());
  if (!sc) return error("scenario", sc.error());
  tools::ScenarioRunsOptions o;
  // An unknown baseline is a mistake in the scenario request (ScenarioError), found before any run.
  auto policy = tools::scenario_policy(*sc, req.value("policy", std::string()));
  if (!policy) return error("scenario", policy.error());
  o.policy = *policy;
  o.compare = req.value("compare", false);
  o.scale = req.value("scale", 1.0);
  o.scale_thermal = req.value("scale_thermal", false);
  o.trace = req.value("trace", std::string());
  const std::string report = req.value("report", std::string());
  o.channel_timeline = !report.empty();
  auto runs = tools::run_scenario_policies(*sc, o);
  if (!runs) return error("simulation", runs.error());
  json j = {{"scenario", sc->name},
            {"seed", sc->seed},
            {"duration_s", sc->duration_s * o.scale},
            {"policy", runs->main_policy},
            {"runs", json::array()}};
  for (const auto& m : runs->metrics) j["runs"].push_back(m.to_json());
  if (!report.empty()) {
    std::ofstream f(report);
    f << scenario::html_report(runs->main_run, runs->metrics, runs->other_runs);
    if (!f) return error("output", report + ": cannot write");
  }
  return j.dump();
}

// A shipped config's name ("large", "camera_llm") as its file, or a path as given: npu/common/shipped.h,
// the resolution the CLI uses. Reply: {"path"} or an error of kind "config" (npu) / "scenario".
std::string resolve_shipped(const std::string& kind, const std::string& name_or_path) {
  auto r = npu::shipped::resolve(kind, name_or_path);
  if (!r) return error(kind == "npu" ? "config" : "scenario", r.error());
  return json{{"path", *r}}.dump();
}

std::string zoo_list() {
  json j = json::array();
  for (const auto& e : npu::models::zoo_entries())
    j.push_back(
        {{"name", e.name}, {"kind", e.kind}, {"description", e.description}, {"timing_only", e.timing_only}});
  return j.dump();
}

// The C++ ModelBuilder (models/zoo) with names instead of enums; errors raise ValueError.
class Builder {
 public:
  explicit Builder(uint64_t seed) : b_(seed) {}
  uint32_t input(const std::string& type, std::vector<uint32_t> dims, float scale, int32_t zero_point) {
    return b_.input(operand_type(type), std::move(dims), {scale, zero_point});
  }
  uint32_t conv_2d(uint32_t in, uint32_t out_channels, uint32_t kh, uint32_t kw, const std::string& padding,
                   uint32_t stride, const std::string& act, float filter_scale, float out_scale,
                   int32_t out_zp) {
    check(in);
    return b_.conv_2d(in, out_channels, kh, kw, padding_code(padding), stride, activation(act),
                      {filter_scale, 0}, {out_scale, out_zp});
  }
  uint32_t depthwise_conv_2d(uint32_t in, uint32_t kh, uint32_t kw, const std::string& padding,
                             uint32_t stride, const std::string& act, float filter_scale, float out_scale,
                             int32_t out_zp) {
    check(in);
    return b_.depthwise_conv_2d(in, kh, kw, padding_code(padding), stride, activation(act), {filter_scale, 0},
                                {out_scale, out_zp});
  }
  uint32_t fully_connected(uint32_t in, uint32_t units, const std::string& act, float weight_scale,
                           float out_scale, int32_t out_zp) {
    check(in);
    return b_.fully_connected(in, units, activation(act), {weight_scale, 0}, {out_scale, out_zp});
  }
  uint32_t pool_2d(const std::string& kind, uint32_t in, uint32_t kh, uint32_t kw, const std::string& padding,
                   uint32_t stride) {
    check(in);
    if (kind != "max" && kind != "average")
      throw py::value_error("pool: kind must be \"max\" or \"average\", got \"" + kind + "\"");
    return b_.pool_2d(
        kind == "max" ? npu::models::OperationType::MAX_POOL_2D : npu::models::OperationType::AVERAGE_POOL_2D,
        in, kh, kw, padding_code(padding), stride);
  }
  uint32_t elementwise(const std::string& op, uint32_t a, uint32_t b, const std::string& act, float out_scale,
                       int32_t out_zp) {
    check(a);
    check(b);
    npu::models::OperationType t;
    if (op == "add")
      t = npu::models::OperationType::ADD;
    else if (op == "mul")
      t = npu::models::OperationType::MUL;
    else
      throw py::value_error("elementwise: op must be \"add\" or \"mul\", got \"" + op + "\"");
    return b_.elementwise(t, a, b, activation(act), {out_scale, out_zp});
  }
  uint32_t reshape(uint32_t in, const std::vector<uint32_t>& dims) {
    check(in);
    return b_.reshape(in, dims);
  }
  uint32_t softmax(uint32_t in, float beta) {
    check(in);
    return b_.softmax(in, beta);
  }
  uint32_t logistic(uint32_t in) {
    check(in);
    return b_.logistic(in);
  }
  uint32_t concatenation(const std::vector<uint32_t>& ins, uint32_t axis) {
    for (uint32_t i : ins) check(i);
    return b_.concatenation(ins, axis);
  }
  void mark_output(uint32_t operand) {
    check(operand);
    b_.mark_output(operand);
  }
  std::vector<uint32_t> dims(uint32_t operand) {
    check(operand);
    return b_.operand(operand).dimensions;
  }
  // The model JSON text; validated, so a builder mistake is an error here rather than at run time.
  std::string build() {
    const auto& m = b_.model();
    if (m.main.output_indexes.empty())
      throw py::value_error("build: no output marked (call output(operand))");
    if (auto v = npu::models::validate_model(m); !v) throw py::value_error("build: " + v.error());
    if (auto v = npu::hal::ops::validate_operations(m); !v) throw py::value_error("build: " + v.error());
    return npu::models::to_json(m).dump();
  }

 private:
  void check(uint32_t operand) {
    if (operand >= b_.model().main.operands.size())
      throw py::value_error("operand " + std::to_string(operand) + " does not exist (the model has " +
                            std::to_string(b_.model().main.operands.size()) + " operands)");
  }
  static npu::models::OperandType operand_type(const std::string& name) {
    auto t = npu::models::operand_type_from_string(name);
    if (!t || !npu::models::is_tensor(*t))
      throw py::value_error(
          "input: unknown tensor type \"" + name +
          "\" (e.g. TENSOR_FLOAT32, TENSOR_QUANT8_ASYMM, TENSOR_QUANT8_ASYMM_SIGNED, TENSOR_INT32)");
    return *t;
  }
  static int32_t padding_code(const std::string& p) {
    if (p == "same") return 1;
    if (p == "valid") return 2;
    throw py::value_error("padding must be \"same\" or \"valid\", got \"" + p + "\"");
  }
  static npu::fx::FusedActivation activation(const std::string& a) {
    using npu::fx::FusedActivation;
    if (a == "none") return FusedActivation::NONE;
    if (a == "relu") return FusedActivation::RELU;
    if (a == "relu1") return FusedActivation::RELU1;
    if (a == "relu6") return FusedActivation::RELU6;
    throw py::value_error("activation must be none, relu, relu1 or relu6, got \"" + a + "\"");
  }
  npu::models::ModelBuilder b_;
};

// A simulation behind the same guard as the CLI's: anything escaping it (or a SystemC process in it) is
// one line of kind "simulation", "run: out of host memory", not a multi-line SystemC report.
std::string guarded(const char* function, std::string (*f)(const std::string&), const std::string& request) {
  try {
    return f(request);
  } catch (...) {
    return error("simulation",
                 std::string(function) + ": " + npu::tools::escaped_error_line(std::current_exception()));
  }
}

}  // namespace

PYBIND11_MODULE(_npusim, m) {
  m.doc() = "npusim's C++ half: configs, models, and one simulation per call (in a child process)";
  m.def("resolve_shipped", &resolve_shipped);
  m.def("explain_config", &npu::system::explain_system_config);
  m.def("config_summary", &config_summary);
  m.def("model_info", &model_info);
  m.def("model_json", &model_json_text);
  m.def("random_inputs", &random_inputs);
  m.def("zoo_list", &zoo_list);
  // The simulations release the GIL: a child process has nothing else to run, but a caller that does
  // call them in place (tests of the module itself) keeps other Python threads alive.
  m.def(
      "run", [](const std::string& r) { return guarded("run", &run, r); },
      py::call_guard<py::gil_scoped_release>());
  m.def(
      "bench", [](const std::string& r) { return guarded("bench", &bench, r); },
      py::call_guard<py::gil_scoped_release>());
  m.def(
      "scenario", [](const std::string& r) { return guarded("scenario", &scenario, r); },
      py::call_guard<py::gil_scoped_release>());
  py::class_<Builder>(m, "Builder")
      .def(py::init<uint64_t>())
      .def("input", &Builder::input)
      .def("conv_2d", &Builder::conv_2d)
      .def("depthwise_conv_2d", &Builder::depthwise_conv_2d)
      .def("fully_connected", &Builder::fully_connected)
      .def("pool_2d", &Builder::pool_2d)
      .def("elementwise", &Builder::elementwise)
      .def("reshape", &Builder::reshape)
      .def("softmax", &Builder::softmax)
      .def("logistic", &Builder::logistic)
      .def("concatenation", &Builder::concatenation)
      .def("mark_output", &Builder::mark_output)
      .def("dims", &Builder::dims)
      .def("build", &Builder::build);
}
