// npusim import: ONNX → model JSON (plus seeded example inputs); npusim quantize: float model → int8
// model by post-training quantisation, with the accuracy loss measured on the simulated NPU.
#include "cmd_import.h"

#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "npu/common/file_io.h"
#include "npu/common/version.h"
#include "npu/hal/ops/reference_executor.h"
#include "npu/models/io_json.h"
#include "npu/models/model_json.h"
#include "npu/models/onnx_import.h"
#include "npu/models/quantize.h"
#include "npu/models/validate.h"
#include "npu/models/zoo.h"
#include "npu/system/system.h"
#include "npu/tools/data_files.h"
#include "output_path.h"

namespace npu::tools {
namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "npusim: %s\n", message.c_str());
  return 1;
}

Result<void> write_text(const std::string& path, const std::string& text) {
  return io::write_file_atomic(path, text);
}

// --shape NAME=AxB and --input-value NAME=V arguments into the importer's options.
Result<models::OnnxImportOptions> onnx_options(bool cpu_fallback, const std::vector<std::string>& shapes,
                                               const std::vector<std::string>& values) {
  models::OnnxImportOptions opt;
  opt.cpu_fallback = cpu_fallback;
  for (const auto& s : shapes)
    if (auto r = models::parse_input_shape(s, &opt); !r) return make_error(r.error());
  for (const auto& v : values)
    if (auto r = models::parse_input_value(v, &opt); !r) return make_error(r.error());
  return opt;
}

struct ImportOptions {
  std::string model, output, example_inputs;
  std::vector<std::string> shapes, values;
  bool cpu_fallback = false;
  uint32_t dynamic_dim = 1;
  uint64_t seed = 1;
  std::vector<float> range = {-1.0f, 1.0f};
};

int import_command(const ImportOptions& o) {
  auto opt = onnx_options(o.cpu_fallback, o.shapes, o.values);
  if (!opt) return fail(opt.error());
  opt->dynamic_dim = o.dynamic_dim;
  auto imported = models::import_onnx_file(o.model, *opt);
  if (!imported) return fail(imported.error());
  const auto& m = imported->model;
  if (auto v = models::validate_model(m); !v)
    return fail(o.model + ": imported model is invalid: " + v.error());
  if (auto v = hal::ops::validate_operations(m); !v)
    return fail(o.model + ": imported model is invalid: " + v.error());
  if (auto w = models::save_model_json(m, o.output, build_json()); !w) return fail(w.error());
  std::printf("npusim import: %s -> %s\n", o.model.c_str(), o.output.c_str());
  std::string census;
  uint32_t nodes = 0;
  for (const auto& [t, n] : imported->op_counts) {
    census += (census.empty() ? "" : ", ") + t + " x" + std::to_string(n);
    nodes += n;
  }
  std::printf("  ONNX nodes      %u (%s)\n", nodes, census.c_str());
  std::printf("  folded at import %u nodes\n", imported->folded_nodes);
  std::printf("  NNAPI model     %zu operations, %zu operands\n", m.main.operations.size(),
              m.main.operands.size());
  for (const auto& n : imported->cpu_only_nodes) std::printf("  CPU fallback    %s\n", n.c_str());
  for (size_t i = 0; i < m.main.input_indexes.size(); ++i) {
    const auto& op = m.main.operands[m.main.input_indexes[i]];
    std::printf("  input  %-8u %s %s  (ONNX '%s')\n", m.main.input_indexes[i],
                std::string(to_string(op.type)).c_str(), models::dims_to_string(op.dimensions).c_str(),
                imported->input_names[i].c_str());
  }
  for (size_t i = 0; i < m.main.output_indexes.size(); ++i) {
    const auto& op = m.main.operands[m.main.output_indexes[i]];
    std::printf("  output %-8u %s %s  (ONNX '%s')\n", m.main.output_indexes[i],
                std::string(to_string(op.type)).c_str(), models::dims_to_string(op.dimensions).c_str(),
                imported->output_names[i].c_str());
  }
  if (!o.example_inputs.empty()) {
    if (o.range.size() != 2) return fail("--range: expected two values LO HI");
    const auto samples = models::synthetic_inputs(m, 1, o.seed, o.range[0], o.range[1]);
    if (auto w = write_text(o.example_inputs,
                            models::dump_json_pretty(with_build(models::io_to_json(samples[0]))));
        !w)
      return fail(w.error());
    std::printf("  example inputs  %s (seed %llu, uniform [%g, %g])\n", o.example_inputs.c_str(),
                static_cast<unsigned long long>(o.seed), o.range[0], o.range[1]);
  }
  return 0;
}

struct QuantizeCliOptions {
  std::string model, output, hw = npu::tools::default_hw_config();
  std::vector<std::string> calib, shapes, values;
  uint32_t samples = 8;
  uint64_t seed = 1;
  std::vector<float> range = {-1.0f, 1.0f};
  bool per_tensor = false;
  bool cpu_fallback = false;
  bool float_fallback = false;
  bool json = false;
};

int quantize_command(const QuantizeCliOptions& o) {
  auto opt = onnx_options(o.cpu_fallback, o.shapes, o.values);
  if (!opt) return fail(opt.error());
  auto model = load_model_file(o.model, *opt);
  if (!model) return fail(model.error());
  if (auto ok = models::check_quantizable(*model); !ok) return fail(o.model + ": " + ok.error());
  if (o.range.size() != 2) return fail("--range: expected two values LO HI");
  // Calibration takes a while on a large model: check the output first.
  if (auto why = npusim::unwritable_reason(o.output); !why.empty()) return fail(why);
  std::vector<models::TensorMap> calib;
  for (const auto& path : o.calib) {
    auto in = models::load_io_json(path, *model);
    if (!in) return fail(in.error());
    calib.push_back(std::move(*in));
  }
  if (calib.empty()) calib = models::synthetic_inputs(*model, o.samples, o.seed, o.range[0], o.range[1]);
  auto ranges = models::calibrate(*model, calib, hal::ops::run_reference);
  if (!ranges) return fail(o.model + ": " + ranges.error());
  models::QuantizeOptions qo;
  qo.per_channel = !o.per_tensor;
  qo.float_fallback = o.float_fallback;
  auto q = models::quantize_model(*model, *ranges, qo);
  if (!q) return fail(o.model + ": " + q.error());
  if (auto v = models::validate_model(*q); !v)
    return fail(o.model + ": quantised model is invalid: " + v.error());
  if (auto v = hal::ops::validate_operations(*q); !v)
    return fail(o.model + ": quantised model is invalid: " + v.error());
  if (auto w = models::save_model_json(*q, o.output, build_json()); !w) return fail(w.error());

  // Accuracy: a fresh seeded sample, float on the CPU reference, int8 on the simulated NPU.
  const auto eval = models::synthetic_inputs(*model, 1, o.seed + 1000003, o.range[0], o.range[1])[0];
  models::TensorMap eval_q;
  for (const auto& [i, t] : eval) eval_q[i] = models::quantize_tensor(t, q->main.operands[i]);
  auto cfg = system::load_system_config(o.hw, {});
  if (!cfg) return fail(cfg.error());
  auto sys = system::System::create(*cfg);
  if (!sys) return fail(sys.error());
  hal::ExecutionResult ref, npu;
  std::string placement;
  auto end = (*sys)->run([&](system::System& s) {
    auto pf = s.cpu_device().prepare_model(*model);
    if (!pf.status.ok()) {
      ref.status = pf.status;
      return;
    }
    ref = pf.model->execute_synchronously(eval, false);
    auto pq = s.npu_device().prepare_model(*q);
    if (!pq.status.ok()) {
      npu.status = pq.status;
      return;
    }
    placement = pq.model->placement();
    npu = pq.model->execute_synchronously(eval_q, true);
  });
  if (!end) return fail(end.error());
  if (!ref.status.ok()) return fail(o.model + ": float reference: " + ref.status.message);
  if (!npu.status.ok()) return fail(o.output + ": int8 on the NPU: " + npu.status.message);
  auto err = models::compare_quantized(ref.outputs, npu.outputs);
  if (!err) return fail(err.error());
  const char* weights = o.per_tensor ? "per-tensor" : "per-channel";
  if (o.json) {
    nlohmann::json inputs = nlohmann::json::array();
    for (uint32_t idx : q->main.input_indexes) {
      const models::Operand& op = q->main.operands[idx];
      inputs.push_back({{"operand", idx},
                        {"type", models::to_string(op.type)},
                        {"dimensions", op.dimensions},
                        {"scale", op.scale},
                        {"zero_point", op.zero_point}});
    }
    const nlohmann::json j = {{npu::kBuildKey, build_json()},
                              {"model", o.model},
                              {"output", o.output},
                              {"weights", weights},
                              {"calibration_samples", calib.size()},
                              {"placement", placement},
                              {"latency_us", npu.timing.time_in_driver_us},
                              {"npu_cycles", npu.device_cycles},
                              {"inputs", inputs},
                              {"accuracy",
                               {{"elements", err->elements},
                                {"max_abs_error", err->max_abs},
                                {"mse", err->mse},
                                {"cosine", err->cosine}}}};
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("npusim quantize: %s -> %s (%s weights, %zu calibration sample%s)\n", o.model.c_str(),
              o.output.c_str(), weights, calib.size(), calib.size() == 1 ? "" : "s");
  // Each input's quantisation: what a caller needs to turn its real values into the model's integers.
  for (uint32_t idx : q->main.input_indexes) {
    const models::Operand& op = q->main.operands[idx];
    std::string dims;
    for (uint32_t d : op.dimensions) dims += (dims.empty() ? "" : ",") + std::to_string(d);
    std::printf("  input %-9u %s [%s] scale %.9g zero point %d (real = scale x (q - zero point))\n", idx,
                std::string(models::to_string(op.type)).c_str(), dims.c_str(), op.scale, op.zero_point);
  }
  std::printf("  int8 placement  %s\n", placement.c_str());
  std::printf("  int8 latency    %llu us simulated, %llu NPU cycles\n",
              static_cast<unsigned long long>(npu.timing.time_in_driver_us),
              static_cast<unsigned long long>(npu.device_cycles));
  std::printf("  accuracy vs float (CPU reference), %llu output elements:\n",
              static_cast<unsigned long long>(err->elements));
  std::printf("    max |error|   %.6g\n    MSE           %.6g\n    cosine        %.6f\n", err->max_abs,
              err->mse, err->cosine);
  std::printf("  run it: npusim run --model %s --example-inputs (seeded values valid for each input)\n",
              o.output.c_str());
  return 0;
}

}  // namespace

void register_import_commands(CLI::App& app, int* exit_code) {
  auto io = std::make_shared<ImportOptions>();
  auto* imp = app.add_subcommand("import", "Import an ONNX model into model JSON (NNAPI shape)");
  imp->add_option("model", io->model, "ONNX file")->required();
  imp->add_option("-o,--output", io->output, "Model JSON to write")->required();
  imp->add_flag("--cpu-fallback", io->cpu_fallback,
                "Import operators that only the CPU reference runs (Div, ReduceMean, …)");
  imp->add_option("--dynamic-dim", io->dynamic_dim, "Value of symbolic input dimensions not bound by --shape")
      ->capture_default_str();
  imp->add_option("--shape", io->shapes, "Bind a graph input's shape, NAME=AxB (repeatable)");
  imp->add_option("--input-value", io->values,
                  "Bind a graph input's value at import, NAME=V[,V...]: it becomes a constant (repeatable)");
  imp->add_option("--example-inputs", io->example_inputs, "Also write seeded uniform inputs JSON here");
  imp->add_option("--seed", io->seed, "Seed of --example-inputs")->capture_default_str();
  imp->add_option("--range", io->range, "Value range LO HI of --example-inputs")->expected(2);
  imp->callback([io, exit_code] { *exit_code = import_command(*io); });

  auto qo = std::make_shared<QuantizeCliOptions>();
  auto* q = app.add_subcommand("quantize",
                               "Post-training int8 quantisation of a float model, with its accuracy loss");
  q->add_option("model", qo->model, "Float model (JSON or .onnx)")->required();
  q->add_option("-o,--output", qo->output, "Quantised model JSON to write")->required();
  q->add_option("--calib", qo->calib,
                "Calibration inputs JSON (repeatable); default: seeded uniform samples");
  q->add_option("--samples", qo->samples, "Seeded calibration samples when no --calib")
      ->capture_default_str();
  q->add_option("--seed", qo->seed, "Seed of the synthetic samples")->capture_default_str();
  q->add_option("--range", qo->range, "Value range LO HI of synthetic samples")->expected(2);
  q->add_flag("--per-tensor", qo->per_tensor, "Per-tensor instead of per-channel convolution weights");
  q->add_flag("--cpu-fallback", qo->cpu_fallback, "As npusim import --cpu-fallback (for .onnx input)");
  q->add_option("--shape", qo->shapes, "As npusim import --shape (for .onnx input)");
  q->add_flag(
      "--float-fallback", qo->float_fallback,
      "Keep operations without a quant8 form (LOG, LSTM, …) in float between DEQUANTIZE and QUANTIZE");
  q->add_option("--input-value", qo->values, "As npusim import --input-value (for .onnx input)");
  q->add_option("--hw", qo->hw, "Hardware config for the accuracy run")->capture_default_str();
  q->add_flag("--json", qo->json, "Print the report as JSON (placement, latency, accuracy)");
  q->callback([qo, exit_code] { *exit_code = quantize_command(*qo); });
}

}  // namespace npu::tools
