// The program file of the virtual platform (tools/vp_program.h, vp/abi/npusim_program.h): written from the
// NPU device's own prepared program and parsed back, every table checked against what the HAL prepared
// (stages, command buffers, relocations, arena slots, weights image); applying the file's relocations
// must give the very descriptors the HAL's relocate() gives. A model with a CPU stage is refused.
#include "npu/tools/vp_program.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "npu/models/builder.h"
#include "npu/regmap/descriptors.h"
#include "npu/system/system.h"

namespace {

using namespace npu;
using fx::FusedActivation;
using models::OperandType;

// Two quantised convolutions and a fully-connected head: every operation on the NPU.
models::Model conv_net() {
  models::ModelBuilder b(3);
  const models::QuantParams in_q{0.02f, 128}, w_q{0.01f, 120}, mid_q{0.05f, 100}, out_q{0.1f, 128};
  const uint32_t x = b.input(OperandType::TENSOR_QUANT8_ASYMM, {1, 16, 16, 8}, in_q);
  uint32_t h = b.conv_2d(x, 16, 3, 3, 1, 1, FusedActivation::RELU, w_q, mid_q);
  h = b.conv_2d(h, 24, 3, 3, 1, 2, FusedActivation::RELU, w_q, mid_q);
  b.mark_output(b.fully_connected(b.reshape(h, {1, 8 * 8 * 24}), 10, FusedActivation::NONE, w_q, out_q));
  return b.take();
}

struct Prepared {
  bool on_npu = false;
  hal::Program program;
  std::string placement;
};

// Prepares `model` on a fresh System's NPU device (MINIMAL: only CONV_2D lowered) and keeps its program.
Prepared prepare(const models::Model& model,
                 hal::NpuDevice::Variant variant = hal::NpuDevice::Variant::FULL) {
  auto cfg = system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", {});
  EXPECT_TRUE(cfg.ok());
  auto sys = system::System::create(*cfg);
  EXPECT_TRUE(sys.ok());
  Prepared out;
  auto end = (*sys)->run([&](system::System& s) {
    auto prepared = s.npu_device(10000, 1000, variant).prepare_model(model);
    ASSERT_TRUE(prepared.status.ok()) << prepared.status.message;
    out.placement = prepared.model->placement();
    if (const hal::Program* p = prepared.model->npu_program()) {
      out.on_npu = true;
      out.program = *p;
    }
  });
  EXPECT_TRUE(end.ok());
  return out;
}

TEST(VpProgram, RoundTripMatchesThePreparedProgram) {
  const models::Model model = conv_net();
  const auto inputs = models::random_inputs(model, 1);
  const Prepared p = prepare(model);
  ASSERT_TRUE(p.on_npu) << p.placement;
  tools::ProgramFileSource src;
  src.name = "conv_net";
  src.model = &model;
  src.program = &p.program;
  src.inputs = &inputs;
  src.priority = 500;
  src.device_cycles = 12345;
  auto bytes = tools::write_program_file(src);
  ASSERT_TRUE(bytes.ok()) << bytes.error();
  auto f = tools::read_program_file(*bytes);
  ASSERT_TRUE(f.ok()) << f.error();

  const auto& h = f->header;
  EXPECT_EQ(std::string(h.model), "conv_net");
  EXPECT_EQ(h.flags, 0u);
  EXPECT_EQ(h.device_cycles, 12345u);
  EXPECT_EQ(h.file_bytes, bytes->size());
  ASSERT_EQ(h.bo_count, 2u);
  EXPECT_EQ(f->bos[0].flags, NPUSIM_PROGRAM_BO_WEIGHTS);
  EXPECT_EQ(f->bos[0].size, p.program.weights.size());
  EXPECT_EQ(f->bo_init[0], p.program.weights.bytes());
  EXPECT_EQ(f->bos[1].size, p.program.arena_bytes);
  ASSERT_EQ(h.stage_count, p.program.stages.size());
  EXPECT_GE(h.stage_count, 3u);
  ASSERT_EQ(h.job_count, 1u);  // no budget given: one job, as a model this small is in process
  EXPECT_EQ(f->jobs[0].stage_count, h.stage_count);
  EXPECT_EQ(f->jobs[0].priority, 500);

  // Inputs and outputs: their arena slots; the inputs' bytes are in the arena's initial contents.
  ASSERT_EQ(h.input_count, 1u);
  ASSERT_EQ(h.output_count, 1u);
  const auto& in = f->inputs[0];
  EXPECT_EQ(in.operand, model.main.input_indexes[0]);
  EXPECT_EQ(in.bo, 1u);
  EXPECT_EQ(in.bo_offset, p.program.arena.at(in.operand).offset);
  EXPECT_EQ(in.bytes, model.main.operands[in.operand].byte_size());
  ASSERT_GE(f->bo_init[1].size(), in.bo_offset + in.bytes);
  EXPECT_EQ(std::memcmp(f->bo_init[1].data() + in.bo_offset, inputs.at(in.operand).data.data(), in.bytes), 0);
  const auto& out = f->outputs[0];
  EXPECT_EQ(out.operand, model.main.output_indexes[0]);
  EXPECT_EQ(out.bo_offset, p.program.arena.at(out.operand).offset);

  // Every command buffer and relocation, and the relocated descriptors equal to the HAL's.
  constexpr uint64_t kWeightsBase = 0x40000000, kArenaBase = 0x7000000;
  uint32_t cmd = 0, relocs = 0;
  for (size_t s = 0; s < p.program.stages.size(); ++s) {
    const hal::Stage& stage = p.program.stages[s];
    ASSERT_EQ(f->stages[s].first_cmd, cmd);
    ASSERT_EQ(f->stages[s].cmd_count, stage.jobs.size());
    for (const hal::NpuStep& step : stage.jobs) {
      ASSERT_EQ(f->cmds[cmd].desc_count, step.commands.size());
      std::vector<uint8_t> patched = f->cmd_bytes[cmd];
      EXPECT_EQ(std::memcmp(patched.data(), step.commands.data(), patched.size()), 0) << "cmd " << cmd;
      for (const npusim_program_reloc& r : f->relocs) {
        if (r.cmd != cmd) continue;
        ++relocs;
        EXPECT_EQ((r.byte_offset - offsetof(desc::Dma, dev)) % desc::kDescriptorBytes, 0u);
        const uint64_t address = r.bo_offset + (r.bo == 0 ? kWeightsBase : kArenaBase);
        std::memcpy(patched.data() + r.byte_offset, &address, sizeof address);
      }
      const auto want = hal::relocate(step, kWeightsBase, kArenaBase);
      ASSERT_EQ(patched.size(), want.size() * desc::kDescriptorBytes);
      EXPECT_EQ(std::memcmp(patched.data(), want.data(), patched.size()), 0) << "relocated cmd " << cmd;
      ++cmd;
    }
  }
  EXPECT_EQ(cmd, h.cmd_count);
  EXPECT_EQ(relocs, h.reloc_count);
  EXPECT_GT(relocs, 0u);

  // A job budget cuts the stages into jobs as the HAL cuts them.
  src.job_bytes_budget = 1;
  auto cut = tools::read_program_file(*tools::write_program_file(src));
  ASSERT_TRUE(cut.ok());
  EXPECT_EQ(cut->header.job_count, h.stage_count);

  // A damaged file is refused, naming the field.
  auto truncated = tools::read_program_file(bytes->substr(0, bytes->size() - 8));
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.error().find("file_bytes"), std::string::npos) << truncated.error();
}

TEST(VpProgram, RefusesAModelWithACpuStage) {
  const models::Model model = conv_net();
  const Prepared p = prepare(model, hal::NpuDevice::Variant::MINIMAL);  // the head runs on the CPU
  ASSERT_TRUE(p.on_npu) << p.placement;
  tools::ProgramFileSource src;
  src.name = "conv_net";
  src.model = &model;
  src.program = &p.program;
  auto bytes = tools::write_program_file(src);
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.error().find("runs on the CPU"), std::string::npos) << bytes.error();
  EXPECT_NE(bytes.error().find("operations["), std::string::npos) << bytes.error();
}

// `npusim program` as a user runs it: the file's NPU cycles and the --outputs file equal `npusim run`'s for
// the same model and inputs; a model with a CPU stage is refused naming the operation.
std::string shell(const std::string& cmd, int* status) {
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  std::string text;
  char buf[4096];
  while (p && std::fgets(buf, sizeof buf, p)) text += buf;
  const int st = p ? ::pclose(p) : -1;
  *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return text;
}
std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(VpProgramCli, FileCyclesAndOutputsEqualNpusimRun) {
  char tmpl[] = "/tmp/npusim-vp-program-XXXXXX";
  const std::string dir = ::mkdtemp(tmpl);
  const std::string bin = NPUSIM_BIN;
  int st = 0;
  shell(bin + " example conv-quant8 --dir " + dir, &st);
  ASSERT_EQ(st, 0);
  const std::string model = dir + "/conv-quant8.model.json", inputs = dir + "/conv-quant8.inputs.json";
  for (const std::string& m : {std::string("--model ") + model + " --inputs " + inputs,
                               std::string("--model zoo:mobilenet_v2_quant8")}) {
    const std::string out =
        shell(bin + " program " + m + " -o " + dir + "/p.npuprog --outputs " + dir + "/p.json", &st);
    ASSERT_EQ(st, 0) << out;
    const std::string run = shell(bin + " run " + m + " --outputs " + dir + "/r.json --json", &st);
    ASSERT_EQ(st, 0) << run;
    const auto summary = nlohmann::json::parse(run.substr(run.find('{')), nullptr, false);
    ASSERT_FALSE(summary.is_discarded()) << run;
    auto f = tools::read_program_file(read_text(dir + "/p.npuprog"));
    ASSERT_TRUE(f.ok()) << f.error();
    EXPECT_EQ(f->header.device_cycles, summary["npu_cycles"].get<uint64_t>()) << m;
    EXPECT_GT(f->header.device_cycles, 0u);
    EXPECT_EQ(read_text(dir + "/p.json"), read_text(dir + "/r.json")) << m;
    // The raw bytes of each output: the in-process run's values, at the size the file gives the operand.
    shell(bin + " program " + m + " -o " + dir + "/p.npuprog --raw-outputs " + dir, &st);
    ASSERT_EQ(st, 0);
    const auto values = nlohmann::json::parse(read_text(dir + "/r.json"));
    for (const npusim_program_io& io : f->outputs) {
      const std::string raw = read_text(dir + "/" + std::to_string(io.operand) + ".bin");
      ASSERT_EQ(raw.size(), io.bytes);
      const auto& v = values[std::to_string(io.operand)];
      ASSERT_EQ(v.size(), raw.size());  // quant8: one byte per value
      for (size_t i = 0; i < raw.size(); ++i) ASSERT_EQ(static_cast<uint8_t>(raw[i]), v[i].get<int>()) << i;
    }
  }
  const std::string refused =
      shell(bin + " program --model zoo:lstm_acoustic_float -o " + dir + "/l.npuprog", &st);
  EXPECT_EQ(st, 1);
  EXPECT_NE(refused.find("operations[0] (LSTM) runs on the CPU"), std::string::npos) << refused;
  EXPECT_FALSE(std::filesystem::exists(dir + "/l.npuprog"));
  std::filesystem::remove_all(dir);
}

}  // namespace
