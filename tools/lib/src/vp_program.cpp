#include "npu/tools/vp_program.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "npu/models/extensions.h"
#include "npu/regmap/descriptors.h"

namespace npu::tools {
namespace {

static_assert(NPUSIM_DESCRIPTOR_BYTES == desc::kDescriptorBytes);
constexpr uint32_t kWeightsBo = 0, kArenaBo = 1;

uint64_t align8(uint64_t v) { return (v + 7) & ~uint64_t{7}; }

template <class T>
void put(std::string& out, uint64_t at, const T& value) {
  std::memcpy(out.data() + at, &value, sizeof value);
}

}  // namespace

Result<std::string> write_program_file(const ProgramFileSource& s) {
  const models::Model& model = *s.model;
  const hal::Program& p = *s.program;
  const auto& g = model.main;
  for (const hal::Stage& stage : p.stages) {
    if (!stage.on_cpu && !stage.control_flow) continue;
    const std::string op = "operations[" + std::to_string(stage.operation) + "] (" +
                           models::operation_name(model, g.operations[stage.operation].type) + ")";
    return make_error(op +
                      (stage.control_flow ? " is an IF/WHILE, which the HAL runs on the host"
                                          : " runs on the CPU (" + stage.cpu_reason + ")") +
                      ": the guest runner runs NPU-only programs");
  }
  std::vector<npusim_program_io> ios[2];
  const std::vector<uint32_t>* io_indexes[2] = {&g.input_indexes, &g.output_indexes};
  for (int k = 0; k < 2; ++k)
    for (uint32_t idx : *io_indexes[k]) {
      auto slot = p.arena.find(idx);
      const char* what = k == 0 ? "input" : "output";
      if (slot == p.arena.end())
        return make_error("operand " + std::to_string(idx) + " (graph " + what +
                          ") has no place in the activation arena: the guest runner cannot " +
                          (k == 0 ? "write" : "read") + " it");
      const uint64_t bytes = g.operands[idx].byte_size();
      if (bytes != slot->second.bytes)
        return make_error("operand " + std::to_string(idx) + " (graph " + what +
                          "): " + std::to_string(bytes) + " bytes, but its arena slot has " +
                          std::to_string(slot->second.bytes));
      ios[k].push_back({idx, kArenaBo, slot->second.offset, bytes});
    }
  // The arena's initial contents: zeros, with the inputs in their slots (up to the last input's end).
  std::vector<uint8_t> arena_init;
  if (s.inputs && !s.timing_only)
    for (const npusim_program_io& in : ios[0]) {
      auto t = s.inputs->find(in.operand);
      if (t == s.inputs->end()) continue;
      if (t->second.has_no_value)
        return make_error("operand " + std::to_string(in.operand) +
                          " (graph input) is given no value: the guest runner writes every input");
      if (t->second.data.size() != in.bytes)
        return make_error("operand " + std::to_string(in.operand) +
                          " (graph input): " + std::to_string(t->second.data.size()) + " bytes given, " +
                          std::to_string(in.bytes) + " expected");
      if (arena_init.size() < in.bo_offset + in.bytes) arena_init.resize(in.bo_offset + in.bytes, 0);
      std::memcpy(arena_init.data() + in.bo_offset, t->second.data.data(), in.bytes);
    }

  // Jobs: the stages in order, cut where a job's command buffers would pass the budget (as the HAL does).
  std::vector<npusim_program_job> jobs;
  std::vector<npusim_program_stage> stages;
  std::vector<npusim_program_cmd> cmds;
  std::vector<npusim_program_reloc> relocs;
  std::vector<const hal::NpuStep*> steps;
  uint64_t job_bytes = 0;
  for (const hal::Stage& stage : p.stages) {
    uint64_t stage_bytes = 0;
    for (const hal::NpuStep& step : stage.jobs) stage_bytes += step.commands.size() * desc::kDescriptorBytes;
    const bool new_job = jobs.empty() || (s.job_bytes_budget && job_bytes + stage_bytes > s.job_bytes_budget);
    if (new_job) {
      jobs.push_back({static_cast<uint32_t>(stages.size()), 0, s.priority, 0});
      job_bytes = 0;
    }
    job_bytes += stage_bytes;
    ++jobs.back().stage_count;
    stages.push_back({static_cast<uint32_t>(cmds.size()), static_cast<uint32_t>(stage.jobs.size())});
    for (const hal::NpuStep& step : stage.jobs) {
      const auto cmd = static_cast<uint32_t>(cmds.size());
      cmds.push_back({0, static_cast<uint32_t>(step.commands.size()), 0});
      steps.push_back(&step);
      for (const hal::Relocation& r : step.relocations)
        relocs.push_back(
            {cmd, static_cast<uint32_t>(r.descriptor * desc::kDescriptorBytes + offsetof(desc::Dma, dev)),
             r.region == hal::Region::WEIGHTS ? kWeightsBo : kArenaBo, 0,
             desc::dma_dev(step.commands[r.descriptor])});
    }
  }

  const bool weights_data = p.weights.materialised() && !s.timing_only;
  npusim_program_header h{};
  std::memcpy(h.magic, NPUSIM_PROGRAM_MAGIC, sizeof h.magic);
  h.version = NPUSIM_PROGRAM_VERSION;
  h.flags = s.timing_only ? NPUSIM_PROGRAM_TIMING_ONLY : 0;
  std::strncpy(h.model, s.name.c_str(), sizeof h.model - 1);
  h.bo_count = 2;
  h.input_count = static_cast<uint32_t>(ios[0].size());
  h.output_count = static_cast<uint32_t>(ios[1].size());
  h.job_count = static_cast<uint32_t>(jobs.size());
  h.stage_count = static_cast<uint32_t>(stages.size());
  h.cmd_count = static_cast<uint32_t>(cmds.size());
  h.reloc_count = static_cast<uint32_t>(relocs.size());
  h.device_cycles = s.device_cycles;
  uint64_t at = align8(sizeof h);
  auto table = [&](uint64_t count, uint64_t entry) {
    const uint64_t off = at;
    at = align8(at + count * entry);
    return off;
  };
  h.bos_off = table(2, sizeof(npusim_program_bo));
  h.inputs_off = table(ios[0].size(), sizeof(npusim_program_io));
  h.outputs_off = table(ios[1].size(), sizeof(npusim_program_io));
  h.jobs_off = table(jobs.size(), sizeof(npusim_program_job));
  h.stages_off = table(stages.size(), sizeof(npusim_program_stage));
  h.cmds_off = table(cmds.size(), sizeof(npusim_program_cmd));
  h.relocs_off = table(relocs.size(), sizeof(npusim_program_reloc));
  npusim_program_bo bos[2] = {{std::max<uint64_t>(p.weights.size(), 1), NPUSIM_PROGRAM_BO_WEIGHTS, 0, 0,
                               weights_data ? p.weights.size() : 0},
                              {std::max<uint64_t>(p.arena_bytes, 1), 0, 0, 0, arena_init.size()}};
  bos[0].init_off = table(bos[0].init_bytes, 1);
  bos[1].init_off = table(bos[1].init_bytes, 1);
  for (size_t i = 0; i < cmds.size(); ++i)
    cmds[i].desc_off = table(cmds[i].desc_count, desc::kDescriptorBytes);
  h.file_bytes = at;

  std::string out(at, '\0');
  put(out, 0, h);
  for (int i = 0; i < 2; ++i) put(out, h.bos_off + i * sizeof(npusim_program_bo), bos[i]);
  for (size_t i = 0; i < ios[0].size(); ++i)
    put(out, h.inputs_off + i * sizeof(npusim_program_io), ios[0][i]);
  for (size_t i = 0; i < ios[1].size(); ++i)
    put(out, h.outputs_off + i * sizeof(npusim_program_io), ios[1][i]);
  for (size_t i = 0; i < jobs.size(); ++i) put(out, h.jobs_off + i * sizeof(npusim_program_job), jobs[i]);
  for (size_t i = 0; i < stages.size(); ++i)
    put(out, h.stages_off + i * sizeof(npusim_program_stage), stages[i]);
  for (size_t i = 0; i < cmds.size(); ++i) put(out, h.cmds_off + i * sizeof(npusim_program_cmd), cmds[i]);
  for (size_t i = 0; i < relocs.size(); ++i)
    put(out, h.relocs_off + i * sizeof(npusim_program_reloc), relocs[i]);
  if (bos[0].init_bytes)
    std::memcpy(out.data() + bos[0].init_off, p.weights.bytes().data(), bos[0].init_bytes);
  if (bos[1].init_bytes) std::memcpy(out.data() + bos[1].init_off, arena_init.data(), bos[1].init_bytes);
  for (size_t i = 0; i < cmds.size(); ++i)
    std::memcpy(out.data() + cmds[i].desc_off, steps[i]->commands.data(),
                steps[i]->commands.size() * desc::kDescriptorBytes);
  return out;
}

Result<ProgramFile> read_program_file(const std::string& bytes) {
  ProgramFile f;
  const uint64_t size = bytes.size();
  auto inside = [&](uint64_t off, uint64_t count, uint64_t entry) {
    return off <= size && (entry == 0 || count <= (size - off) / entry);
  };
  if (size < sizeof f.header)
    return make_error("shorter than the header (" + std::to_string(size) + " bytes)");
  std::memcpy(&f.header, bytes.data(), sizeof f.header);
  const auto& h = f.header;
  if (std::memcmp(h.magic, NPUSIM_PROGRAM_MAGIC, sizeof h.magic) != 0)
    return make_error("magic: not NPUPROG1");
  if (h.version != NPUSIM_PROGRAM_VERSION) return make_error("version: " + std::to_string(h.version));
  if (h.file_bytes != size)
    return make_error("file_bytes: " + std::to_string(h.file_bytes) + ", the file has " +
                      std::to_string(size));
  auto read_table = [&](auto& vec, uint64_t off, uint32_t count, const char* name) -> Result<void> {
    using T = typename std::decay_t<decltype(vec)>::value_type;
    if (!inside(off, count, sizeof(T))) return make_error(std::string(name) + ": outside the file");
    vec.resize(count);
    if (count) std::memcpy(vec.data(), bytes.data() + off, count * sizeof(T));
    return {};
  };
  for (const auto& r : {read_table(f.bos, h.bos_off, h.bo_count, "bos_off"),
                        read_table(f.inputs, h.inputs_off, h.input_count, "inputs_off"),
                        read_table(f.outputs, h.outputs_off, h.output_count, "outputs_off"),
                        read_table(f.jobs, h.jobs_off, h.job_count, "jobs_off"),
                        read_table(f.stages, h.stages_off, h.stage_count, "stages_off"),
                        read_table(f.cmds, h.cmds_off, h.cmd_count, "cmds_off"),
                        read_table(f.relocs, h.relocs_off, h.reloc_count, "relocs_off")})
    if (!r) return make_error(r.error());
  for (size_t i = 0; i < f.bos.size(); ++i) {
    const auto& b = f.bos[i];
    if (b.init_bytes > b.size || !inside(b.init_off, b.init_bytes, 1))
      return make_error("bos[" + std::to_string(i) + "]: initial contents outside the file or the BO");
    f.bo_init.emplace_back(bytes.begin() + static_cast<std::ptrdiff_t>(b.init_off),
                           bytes.begin() + static_cast<std::ptrdiff_t>(b.init_off + b.init_bytes));
  }
  for (const auto* ios : {&f.inputs, &f.outputs})
    for (const auto& io : *ios)
      if (io.bo >= f.bos.size() || io.bo_offset > f.bos[io.bo].size ||
          io.bytes > f.bos[io.bo].size - io.bo_offset)
        return make_error("operand " + std::to_string(io.operand) + ": outside its BO");
  for (size_t i = 0; i < f.jobs.size(); ++i)
    if (f.jobs[i].first_stage > f.stages.size() ||
        f.jobs[i].stage_count > f.stages.size() - f.jobs[i].first_stage)
      return make_error("jobs[" + std::to_string(i) + "]: stages outside the table");
  for (size_t i = 0; i < f.stages.size(); ++i)
    if (f.stages[i].first_cmd > f.cmds.size() ||
        f.stages[i].cmd_count > f.cmds.size() - f.stages[i].first_cmd)
      return make_error("stages[" + std::to_string(i) + "]: command buffers outside the table");
  for (size_t i = 0; i < f.cmds.size(); ++i) {
    const auto& c = f.cmds[i];
    if (!inside(c.desc_off, c.desc_count, NPUSIM_DESCRIPTOR_BYTES))
      return make_error("cmds[" + std::to_string(i) + "]: descriptors outside the file");
    f.cmd_bytes.emplace_back(
        bytes.begin() + static_cast<std::ptrdiff_t>(c.desc_off),
        bytes.begin() + static_cast<std::ptrdiff_t>(c.desc_off + c.desc_count * NPUSIM_DESCRIPTOR_BYTES));
  }
  for (size_t i = 0; i < f.relocs.size(); ++i) {
    const auto& r = f.relocs[i];
    if (r.cmd >= f.cmds.size() ||
        uint64_t{r.byte_offset} + 8 > f.cmds[r.cmd].desc_count * uint64_t{NPUSIM_DESCRIPTOR_BYTES} ||
        r.bo >= f.bos.size() || r.bo_offset > f.bos[r.bo].size)
      return make_error("relocs[" + std::to_string(i) + "]: outside its command buffer or BO");
  }
  return f;
}

}  // namespace npu::tools
