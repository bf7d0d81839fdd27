// `npusim program --model M [--inputs I] [--hw H] [--set k=v] -o FILE.npuprog [--outputs OUT.json]
// [--raw-outputs DIR]`: the
// model as the NPU device prepares it, written as a program file for the virtual platform's guest runner
// (vp/abi/npusim_program.h, docs/vp-device.md). The model is prepared and run once in process exactly as
// `npusim run` runs it (tools::run_model, same inputs); the file records that run's NPU cycles, and
// --outputs writes its outputs (as `npusim run --outputs`) for comparing the guest's byte for byte.
// A model with an operation the NPU cannot run, an IF/WHILE, or an input or output outside the arena is
// refused with one line naming it (exit 1).
#include <cstdio>
#include <filesystem>

#include "command.h"
#include "npu/common/file_io.h"
#include "npu/common/version.h"
#include "npu/models/builder.h"
#include "npu/models/io_json.h"
#include "npu/models/model_json.h"
#include "npu/system/system.h"
#include "npu/tools/data_files.h"
#include "npu/tools/model_file.h"
#include "npu/tools/run_model.h"
#include "npu/tools/vp_program.h"
#include "output_path.h"

namespace npusim {
namespace {

struct ProgramCli {
  std::string hw = npu::tools::default_hw_config();
  std::vector<std::string> sets;
  std::string model, inputs, output, outputs, raw_outputs;
  bool json = false;
};

int fail(const std::string& message) {
  std::fprintf(stderr, "npusim: program: %s\n", message.c_str());
  return 1;
}

int run_program(const ProgramCli& c) {
  using namespace npu;
  auto model = tools::load_model_file(c.model, false);
  if (!model) return fail(model.error());
  auto cfg = system::load_system_config(c.hw, c.sets);
  if (!cfg) return fail(cfg.error());
  for (const std::string* out : {&c.output, &c.outputs})
    if (auto why = unwritable_reason(*out); !why.empty()) return fail(why);
  const bool timing_only = models::is_timing_only(*model) || !cfg->npu.functional;
  // Inputs as `npusim run` takes them: a file, a zoo model's seeded inputs, none for timing only.
  const bool zoo_inputs = !timing_only && c.inputs.empty() && c.model.rfind("zoo:", 0) == 0;
  if (!timing_only && c.inputs.empty() && !zoo_inputs)
    return fail("--inputs is required (only a timing-only model or a zoo: model needs none)");
  if (timing_only && !c.outputs.empty()) return fail("--outputs: a timing-only model computes no outputs");
  if (timing_only && !c.raw_outputs.empty())
    return fail("--raw-outputs: a timing-only model computes no outputs");
  if (!c.raw_outputs.empty() && !std::filesystem::is_directory(c.raw_outputs))
    return fail(c.raw_outputs + ": --raw-outputs: not a folder");
  hal::TensorMap zeros;
  if (c.inputs.empty() && !zoo_inputs)
    for (uint32_t idx : model->main.input_indexes) {
      const auto& op = model->main.operands[idx];
      if (!op.fully_specified())
        return fail(c.model + ": input " + std::to_string(idx) + " has unknown dimensions; give --inputs");
      zeros[idx] = models::make_tensor(op, op.dimensions);
    }
  auto inputs = zoo_inputs         ? Result<hal::TensorMap>(models::random_inputs(*model, 1))
                : c.inputs.empty() ? Result<hal::TensorMap>(std::move(zeros))
                                   : models::load_io_json(c.inputs, *model);
  if (!inputs) return fail(inputs.error());

  // The prepared program, read inside the simulation before the model runs.
  bool on_npu = false;
  hal::Program program;
  models::Model prepared_model;
  std::string placement;
  int32_t priority = 0;
  uint64_t budget = 0;
  tools::RunModelOptions ro;
  ro.name = c.model;
  ro.on_prepared = [&](system::System& s, const hal::PreparedModel& m) {
    placement = m.placement();
    priority = hal::to_job_priority(m.priority());
    budget = s.driver().command_space_bytes() / 2;
    if (const hal::Program* p = m.npu_program()) {
      on_npu = true;
      program = *p;
    }
  };
  auto run = tools::run_model(*model, *inputs, *cfg, ro);
  if (!run) return fail(run.error());
  if (!on_npu) return fail(c.model + ": does not compile for the NPU (placement: " + placement + ")");
  if (!run->execution_error.empty()) return fail(run->execution_error);

  tools::ProgramFileSource src;
  src.name = c.model;
  src.model = model.operator->();
  src.program = &program;
  src.inputs = timing_only ? nullptr : &*inputs;
  src.priority = priority;
  src.job_bytes_budget = budget;
  src.device_cycles = run->result.device_cycles;
  src.timing_only = timing_only || program.timing_only;
  auto file = tools::write_program_file(src);
  if (!file) return fail(c.model + ": " + file.error());
  if (auto w = io::write_file_atomic(c.output, *file); !w) return fail(w.error());
  if (!c.outputs.empty()) {
    auto w = io::write_file_atomic(
        c.outputs, models::dump_json_pretty(npu::with_build(models::io_to_json(run->result.outputs))));
    if (!w) return fail(w.error());
  }
  // Each output operand's raw bytes, as the guest runner reads them back from its BO.
  if (!c.raw_outputs.empty())
    for (const auto& [operand, tensor] : run->result.outputs) {
      const std::string path =
          (std::filesystem::path(c.raw_outputs) / (std::to_string(operand) + ".bin")).string();
      if (auto w = io::write_file_atomic(path, std::string(tensor.data.begin(), tensor.data.end())); !w)
        return fail(w.error());
    }
  auto parsed = tools::read_program_file(*file);
  if (!parsed) return fail(c.output + ": written but not readable: " + parsed.error());
  const auto& h = parsed->header;
  if (c.json) {
    std::printf("%s\n", nlohmann::json{{npu::kBuildKey, npu::build_json()},
                                       {"model", c.model},
                                       {"file", c.output},
                                       {"file_bytes", h.file_bytes},
                                       {"timing_only", src.timing_only},
                                       {"jobs", h.job_count},
                                       {"stages", h.stage_count},
                                       {"command_buffers", h.cmd_count},
                                       {"relocations", h.reloc_count},
                                       {"inputs", h.input_count},
                                       {"outputs", h.output_count},
                                       {"device_cycles", h.device_cycles}}
                            .dump(2)
                            .c_str());
  } else {
    std::printf(
        "%s: %s, %llu bytes: %u jobs, %u stages, %u command buffers, %u relocations, %u inputs, %u "
        "outputs; %llu NPU cycles in process%s\n",
        c.output.c_str(), c.model.c_str(), static_cast<unsigned long long>(h.file_bytes), h.job_count,
        h.stage_count, h.cmd_count, h.reloc_count, h.input_count, h.output_count,
        static_cast<unsigned long long>(h.device_cycles), src.timing_only ? " (timing only)" : "");
  }
  return 0;
}

}  // namespace

Subcommand register_program_command(CLI::App& app) {
  auto c = std::make_shared<ProgramCli>();
  auto* cmd = app.add_subcommand(
      "program", "Write a model as the NPU device prepares it, for the virtual platform's guest runner");
  cmd->add_option("--model", c->model, "Model JSON, ONNX file (.onnx), or zoo:NAME")->required();
  cmd->add_option("--inputs", c->inputs,
                  "Inputs JSON, as `npusim run --inputs` (a zoo: model: its seeded inputs)");
  cmd->add_option("--hw", c->hw, "Hardware config JSON")->capture_default_str();
  cmd->add_option("--set", c->sets, "Override a hardware parameter: path=value (repeatable)");
  cmd->add_option("-o,--output", c->output, "The program file to write (.npuprog)")->required();
  cmd->add_option("--outputs", c->outputs,
                  "Also write the in-process run's outputs JSON (as `npusim run --outputs`)");
  cmd->add_option("--raw-outputs", c->raw_outputs,
                  "Also write each output operand's raw bytes of the in-process run to DIR/<operand>.bin");
  cmd->add_flag("--json", c->json, "Print what was written as JSON");
  return {cmd, [c] { return run_program(*c); }};
}

}  // namespace npusim
