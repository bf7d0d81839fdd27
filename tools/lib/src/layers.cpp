#include "npu/tools/layers.h"

#include <algorithm>

#include "npu/hal/compiler.h"
#include "npu/hal/ops/reference_executor.h"

namespace npu::tools {
namespace {

// The shaped model NpuDevice compiles: unknown dimensions filled in by shape propagation.
models::Model with_inferred_shapes(const models::Model& model) {
  models::Model shaped = model;
  auto dims = hal::ops::infer_shapes(shaped, shaped.main);
  if (!dims) return shaped;
  for (size_t i = 0; i < shaped.main.operands.size() && i < dims->size(); ++i) {
    auto& op = shaped.main.operands[i];
    if (!op.fully_specified() && models::is_tensor(op.type) && !(*dims)[i].empty()) op.dimensions = (*dims)[i];
  }
  return shaped;
}

struct BufferSpan {
  double start_us, end_us;
  uint64_t energy_pj;
};

// Every NPU command buffer of the trace, by start time.
std::vector<BufferSpan> command_buffers(const nlohmann::json& trace) {
  std::vector<BufferSpan> out;
  if (!trace.contains("traceEvents")) return out;
  for (const auto& e : trace["traceEvents"]) {
    if (e.value("ph", "") != "X" || e.value("name", "") != "command buffer") continue;
    const double ts = e.value("ts", 0.0), dur = e.value("dur", 0.0);
    uint64_t energy = 0;
    if (e.contains("args") && e["args"].contains("energy_pj")) energy = e["args"]["energy_pj"].get<uint64_t>();
    out.push_back({ts, ts + dur, energy});
  }
  std::stable_sort(out.begin(), out.end(), [](const BufferSpan& a, const BufferSpan& b) { return a.start_us < b.start_us; });
  return out;
}

}  // namespace

std::vector<LayerRow> layer_table(const models::Model& model, const system::SystemConfig& config,
                                  const nlohmann::json* trace, bool on_cpu_device) {
  const models::Model shaped = with_inferred_shapes(model);
  const auto& g = shaped.main;
  std::vector<LayerRow> rows(g.operations.size());
  for (uint32_t i = 0; i < g.operations.size(); ++i) {
    LayerRow& r = rows[i];
    r.operation = i;
    r.type = std::string(models::to_string(g.operations[i].type));
    if (!g.operations[i].outputs.empty() && g.operations[i].outputs[0] < g.operands.size()) {
      const auto& out = g.operands[g.operations[i].outputs[0]];
      r.output_type = std::string(models::to_string(out.type));
      r.output_dims = out.dimensions;
    }
  }
  if (on_cpu_device) {  // the CPU reference device ran every operation: nothing to compile or time
    for (auto& r : rows) {
      r.where = "cpu";
      r.cpu_reason = "run on the CPU device";
    }
    return rows;
  }
  // The target System::npu_device() gives the NPU device.
  hal::NpuTarget target;
  target.array_rows = config.npu.channel.array_rows;
  target.array_cols = config.npu.channel.array_cols;
  target.sram_bytes = static_cast<uint64_t>(config.npu.channel.sram_kib) * 1024;
  target.channels = config.npu.channels;
  auto program = hal::compile_for_npu(shaped, target);
  if (!program) {  // the device then runs the whole model on the CPU
    for (auto& r : rows) {
      r.where = "cpu";
      r.cpu_reason = program.error();
    }
    return rows;
  }
  bool control_flow = false;
  uint64_t npu_buffers = 0;
  for (const auto& st : program->stages) {
    if (st.operation >= rows.size()) continue;
    LayerRow& r = rows[st.operation];
    r.where = st.control_flow ? "control_flow" : st.on_cpu ? "cpu" : "npu";
    r.cpu_reason = st.cpu_reason;
    r.jobs = static_cast<uint32_t>(st.jobs.size());
    for (const auto& j : st.jobs) r.macs += j.macs;
    control_flow |= st.control_flow;
    if (!st.on_cpu && !st.control_flow) npu_buffers += st.jobs.size();
  }
  if (!trace || control_flow) return rows;
  // Stages run one after another (stage k+1 starts when all of stage k's command buffers are done), so
  // the command buffers in start order are the NPU stages' jobs in program order. Anything else in the
  // trace (another model's jobs, preemption) breaks the count or the order: then no timing at all.
  const auto spans = command_buffers(*trace);
  if (spans.size() != npu_buffers) return rows;
  std::vector<LayerRow> timed = rows;
  size_t next = 0;
  double previous_end = 0;
  for (const auto& st : program->stages) {
    if (st.on_cpu || st.control_flow || st.jobs.empty()) continue;
    LayerRow& r = timed[st.operation];
    double first = spans[next].start_us, last = 0;
    for (size_t k = 0; k < st.jobs.size(); ++k, ++next) {
      const BufferSpan& s = spans[next];
      if (s.start_us < previous_end) return rows;
      first = std::min(first, s.start_us);
      last = std::max(last, s.end_us);
      r.busy_us += s.end_us - s.start_us;
      r.energy_pj += s.energy_pj;
    }
    r.timed = true;
    r.start_us = first;
    r.device_us = last - first;
    previous_end = last;
  }
  return timed;
}

}  // namespace npu::tools
