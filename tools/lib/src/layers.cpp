#include "npu/tools/layers.h"

#include <algorithm>
#include <map>

#include "npu/hal/compiler.h"
#include "npu/hal/ops/reference_executor.h"
#include "npu/models/extensions.h"

namespace npu::tools {
namespace {

// The shaped model NpuDevice compiles: unknown dimensions filled in by shape propagation.
models::Model with_inferred_shapes(const models::Model& model) {
  models::Model shaped = model;
  auto dims = hal::ops::infer_shapes(shaped, shaped.main);
  if (!dims) return shaped;
  for (size_t i = 0; i < shaped.main.operands.size() && i < dims->size(); ++i) {
    auto& op = shaped.main.operands[i];
    if (!op.fully_specified() && models::is_tensor(op.type) && !(*dims)[i].empty())
      op.dimensions = (*dims)[i];
  }
  return shaped;
}

struct BufferSpan {
  double start_us, end_us;
  uint64_t energy_pj;
  // Engine busy time of the descriptors that started inside this command buffer on its channel.
  double compute_us = 0, dma_in_us = 0, dma_out_us = 0;
};

// Every NPU command buffer of the trace, by start time, with its channel's engine time.
std::vector<BufferSpan> command_buffers(const nlohmann::json& trace) {
  std::vector<BufferSpan> out;
  if (!trace.contains("traceEvents")) return out;
  // Track names ("npu.ch0", "npu.ch0.compute", ...) by (pid, tid).
  std::map<std::pair<int64_t, int64_t>, std::string> tracks;
  for (const auto& e : trace["traceEvents"])
    if (e.value("ph", "") == "M" && e.value("name", "") == "thread_name" && e.contains("args"))
      tracks[{e.value("pid", int64_t{0}), e.value("tid", int64_t{0})}] = e["args"].value("name", "");
  auto track_of = [&](const nlohmann::json& e) {
    const auto it = tracks.find({e.value("pid", int64_t{0}), e.value("tid", int64_t{0})});
    return it == tracks.end() ? std::string() : it->second;
  };
  struct EngineSpan {
    double start_us, dur_us;
  };
  std::map<std::string, std::vector<EngineSpan>> engine_spans;  // by engine track name
  std::vector<std::string> buffer_tracks;
  for (const auto& e : trace["traceEvents"]) {
    if (e.value("ph", "") != "X") continue;
    const double ts = e.value("ts", 0.0), dur = e.value("dur", 0.0);
    if (e.value("name", "") != "command buffer") {
      engine_spans[track_of(e)].push_back({ts, dur});
      continue;
    }
    uint64_t energy = 0;
    if (e.contains("args") && e["args"].contains("energy_pj"))
      energy = e["args"]["energy_pj"].get<uint64_t>();
    out.push_back({ts, ts + dur, energy});
    buffer_tracks.push_back(track_of(e));
  }
  for (size_t i = 0; i < out.size(); ++i) {
    BufferSpan& b = out[i];
    for (auto [engine, total] :
         {std::pair{".compute", &b.compute_us}, {".dma_in", &b.dma_in_us}, {".dma_out", &b.dma_out_us}})
      for (const EngineSpan& s : engine_spans[buffer_tracks[i] + engine])
        if (s.start_us >= b.start_us && s.start_us < b.end_us) *total += s.dur_us;
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const BufferSpan& a, const BufferSpan& b) { return a.start_us < b.start_us; });
  return out;
}

}  // namespace

std::vector<LayerRow> layer_table(const models::Model& model, const hal::NpuTarget& target,
                                  const nlohmann::json* trace, bool on_cpu_device) {
  const models::Model shaped = with_inferred_shapes(model);
  const auto& g = shaped.main;
  std::vector<LayerRow> rows(g.operations.size());
  for (uint32_t i = 0; i < g.operations.size(); ++i) {
    LayerRow& r = rows[i];
    r.operation = i;
    r.type = models::operation_name(shaped, g.operations[i].type);
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
    r.command_buffers = static_cast<uint32_t>(st.jobs.size());
    for (const auto& j : st.jobs) {
      r.macs += j.macs;
      for (const desc::Raw& raw : j.commands) {
        switch (desc::opcode_of(raw)) {
          case desc::Opcode::DMA_IN:
          case desc::Opcode::DMA_OUT:
          case desc::Opcode::DMA_GATHER: {
            const auto dma = desc::decode<desc::Dma>(raw);
            r.dram_bytes += static_cast<uint64_t>(dma.rows) * dma.row_bytes;
            break;
          }
          case desc::Opcode::NOP:
          case desc::Opcode::FENCE:
          case desc::Opcode::BARRIER:
          case desc::Opcode::PREEMPT_POINT:
            break;
          default:
            ++r.tiles;
        }
      }
    }
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
      r.compute_us += s.compute_us;
      r.dma_in_us += s.dma_in_us;
      r.dma_out_us += s.dma_out_us;
    }
    r.stall_us = std::max(0.0, r.busy_us - r.compute_us);
    // The arrays' capacity over the command buffers' time, at the clock the device had at probe.
    const double capacity = r.busy_us * target.clock_mhz * target.array_rows * target.array_cols;
    r.array_utilisation = capacity > 0 ? std::min(1.0, static_cast<double>(r.macs) / capacity) : 0.0;
    r.timed = true;
    r.start_us = first;
    r.device_us = last - first;
    previous_end = last;
  }
  return timed;
}

}  // namespace npu::tools
