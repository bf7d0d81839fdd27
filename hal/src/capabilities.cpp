// getCapabilities, measured: the NPU device runs NNAPI's reference workloads
// drivers — MobileNet v1 and v2 (the zoo's networks, published layer shapes, random weights) in
// float32, quant8 asymmetric and quant8 signed — on the simulated NPU and the CPU device runs the same
// ones; the ratios of simulated time and energy (both networks summed) are the capabilities. They run
// at 96×96 instead of 224×224 so that measuring stays quick (every layer keeps its channel counts; the
// MACs shrink by (96/224)² ≈ 0.18), large enough that per-job fixed costs no longer dominate as on
// the 32×32 toy network measured before. Simulated time is deterministic, so every run answers the
// same; a process measures once per driver and device variant (every NpuDevice on that driver shares
// the answer).
// Energy: the NPU's own (CH_ENERGY of its jobs) plus the host CPU at kHostCpuWatts while the execution
// is in the driver; the CPU device at kHostCpuWatts while it computes.
// relaxed fp32→fp16: the NPU has no fp16 datapath; a relaxed model runs in float32 with the same
// program, and the CPU device's modelled time does not depend on the precision (its reference rounds
// values to fp16 at no modelled cost), so the float32 figure is what measuring relaxed workloads gives
// (tests/hal/relaxed_test.cpp checks both equalities). IF/WHILE: measured on a small WHILE loop (8
// iterations of an ADD) and an IF with an ADD branch; the NPU interprets control flow on the host and
// copies every subgraph's operands, so they come out slower than on the CPU.
#include <cfloat>
#include <map>
#include <tuple>

#include "npu/common/log.h"
#include "npu/models/builder.h"
#include "npu/models/zoo.h"
#include "prepared_models.h"

namespace npu::hal {
namespace {

using models::OperandType;

constexpr double kHostCpuWatts = 2.0;  // one busy host core
constexpr uint32_t kResolution = 96;
constexpr uint64_t kSeed = 2024;

struct Workload {
  models::Model model;
  TensorMap inputs;
};

// The quant8 asymmetric model with every TENSOR_QUANT8_ASYMM operand moved to the signed type: values
// and zero points 128 lower, the same real numbers (NNAPI 1.3's signed models).
void to_signed(models::Model& m) {
  for (auto& o : m.main.operands) {
    if (o.type != OperandType::TENSOR_QUANT8_ASYMM) continue;
    o.type = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    o.zero_point -= 128;
    for (auto& b : o.data) b ^= 0x80;
  }
}

std::vector<Workload> mobilenets(OperandType type) {
  std::vector<Workload> ws;
  for (auto net : {models::VisionNet::MobileNetV1, models::VisionNet::MobileNetV2}) {
    Workload w;
    w.model = models::build_vision(net, type != OperandType::TENSOR_FLOAT32, kResolution, kSeed);
    if (type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED) to_signed(w.model);
    w.inputs = models::random_inputs(w.model, kSeed);
    ws.push_back(std::move(w));
  }
  return ws;
}

// A graph of one operation on float32 [1] operands: inputs `in`, output `out`, constants appended.
struct TinyGraph {
  models::Subgraph g;
  uint32_t operand(OperandType t, models::Lifetime l) {
    models::Operand o;
    o.type = t;
    o.dimensions = models::is_tensor(t) ? std::vector<uint32_t>{1} : std::vector<uint32_t>{};
    o.lifetime = l;
    if (l == models::Lifetime::SUBGRAPH_INPUT)
      g.input_indexes.push_back(static_cast<uint32_t>(g.operands.size()));
    if (l == models::Lifetime::SUBGRAPH_OUTPUT)
      g.output_indexes.push_back(static_cast<uint32_t>(g.operands.size()));
    g.operands.push_back(std::move(o));
    return static_cast<uint32_t>(g.operands.size() - 1);
  }
  uint32_t constant(OperandType t, double v) {
    const uint32_t i = operand(t, models::Lifetime::CONSTANT_COPY);
    auto& o = g.operands[i];
    o.data.assign(models::element_size(t), 0);
    models::write_element(t, o.data, 0, v);
    return i;
  }
  uint32_t subgraph(uint32_t index) {
    const uint32_t i = operand(OperandType::SUBGRAPH, models::Lifetime::SUBGRAPH);
    g.operands[i].dimensions.clear();
    g.operands[i].subgraph = index;
    return i;
  }
};

// WHILE i < 8: i = i + 1 (IF: i < 8 ? i + 1 : i + 1) on float32 [1]: control flow with the least work.
Workload control_flow(bool loop) {
  const auto F32 = OperandType::TENSOR_FLOAT32;
  using models::Lifetime;
  TinyGraph cond, step;
  {
    const uint32_t i = cond.operand(F32, Lifetime::SUBGRAPH_INPUT);
    const uint32_t c = cond.operand(OperandType::TENSOR_BOOL8, Lifetime::SUBGRAPH_OUTPUT);
    cond.g.operations.push_back({models::OperationType::LESS, {i, cond.constant(F32, 8)}, {c}});
  }
  {
    const uint32_t i = step.operand(F32, Lifetime::SUBGRAPH_INPUT);
    const uint32_t o = step.operand(F32, Lifetime::SUBGRAPH_OUTPUT);
    step.g.operations.push_back(
        {models::OperationType::ADD, {i, step.constant(F32, 1), step.constant(OperandType::INT32, 0)}, {o}});
  }
  TinyGraph main;
  const uint32_t i = main.operand(F32, Lifetime::SUBGRAPH_INPUT);
  const uint32_t o = main.operand(F32, Lifetime::SUBGRAPH_OUTPUT);
  Workload w;
  if (loop) {
    main.g.operations.push_back({models::OperationType::WHILE, {main.subgraph(0), main.subgraph(1), i}, {o}});
    w.model.referenced = {cond.g, step.g};
  } else {
    const uint32_t c = main.operand(OperandType::TENSOR_BOOL8, Lifetime::TEMPORARY_VARIABLE);
    main.g.operations.push_back({models::OperationType::LESS, {i, main.constant(F32, 8)}, {c}});
    main.g.operations.push_back({models::OperationType::IF, {c, main.subgraph(0), main.subgraph(0), i}, {o}});
    w.model.referenced = {step.g};
  }
  w.model.main = std::move(main.g);
  w.inputs = models::random_inputs(w.model, kSeed);
  return w;
}

struct Measurement {
  uint64_t ns = 0;
  double energy_pj = 0;
};

// One warm-up execution on the NPU (first-use costs are not what capabilities describe; the CPU
// device has none), then one measured.
Result<Measurement> measure(Device& device, const Workload& w, bool warm_up) {
  auto prepared = device.prepare_model(w.model);
  if (!prepared.status.ok()) return make_error(prepared.status.message);
  if (warm_up) {
    if (auto warm = prepared.model->execute_synchronously(w.inputs, false); !warm.status.ok())
      return make_error(warm.status.message);
  }
  const uint64_t t0 = device.os().now_ns();
  auto r = prepared.model->execute_synchronously(w.inputs, false);
  if (!r.status.ok()) return make_error(r.status.message);
  Measurement m;
  m.ns = device.os().now_ns() - t0;
  m.energy_pj = static_cast<double>(r.device_energy_pj) + kHostCpuWatts * static_cast<double>(m.ns) * 1e3;
  return m;
}

// NPU time and energy over the CPU's, the workloads summed; FLT_MAX (cannot run) on any failure.
PerformanceInfo relative(Device& npu, Device& cpu, const std::vector<Workload>& ws, const std::string& what) {
  Measurement n, c;
  for (const auto& w : ws) {
    auto on_npu = measure(npu, w, true);
    auto on_cpu = measure(cpu, w, false);
    if (!on_npu || !on_cpu) {
      log::get("driver")->warn("{}: capability workload {} failed: {}", npu.name(), what,
                               on_npu ? on_cpu.error() : on_npu.error());
      return {FLT_MAX, FLT_MAX};
    }
    n.ns += on_npu->ns;
    n.energy_pj += on_npu->energy_pj;
    c.ns += on_cpu->ns;
    c.energy_pj += on_cpu->energy_pj;
  }
  return {static_cast<float>(static_cast<double>(n.ns) / static_cast<double>(c.ns)),
          static_cast<float>(n.energy_pj / c.energy_pj)};
}

// Measured answers of this process, per driver and device variant.
std::map<std::pair<const drv::Driver*, std::string>, Capabilities>& measured() {
  static std::map<std::pair<const drv::Driver*, std::string>, Capabilities> m;
  return m;
}

}  // namespace

Capabilities CpuDevice::capabilities() {
  Capabilities c;
  c.if_performance = c.while_performance = {1.0f, 1.0f};
  for (const char* t : {"FLOAT32", "TENSOR_FLOAT32", "INT32", "TENSOR_INT32", "TENSOR_QUANT8_ASYMM",
                        "TENSOR_QUANT8_ASYMM_SIGNED", "TENSOR_QUANT8_SYMM_PER_CHANNEL", "BOOL"})
    c.operand_performance.push_back({t, {1.0f, 1.0f}});
  return c;
}

Capabilities NpuDevice::capabilities() {
  if (capabilities_) return *capabilities_;
  const auto key = std::make_pair(static_cast<const drv::Driver*>(&driver_), name());
  if (auto it = measured().find(key); it != measured().end()) return *(capabilities_ = it->second);
  CpuDevice cpu(os(), cost_, hal_costs());
  auto ratio = [&](OperandType type) {
    return relative(*this, cpu, mobilenets(type), std::string(models::to_string(type)));
  };
  const PerformanceInfo f32 = ratio(OperandType::TENSOR_FLOAT32);
  const PerformanceInfo u8 = ratio(OperandType::TENSOR_QUANT8_ASYMM);
  const PerformanceInfo s8 = ratio(OperandType::TENSOR_QUANT8_ASYMM_SIGNED);
  Capabilities c;
  c.relaxed_float32_to_float16_scalar = c.relaxed_float32_to_float16_tensor = f32;
  c.if_performance = relative(*this, cpu, {control_flow(false)}, "IF");
  c.while_performance = relative(*this, cpu, {control_flow(true)}, "WHILE");
  // Scalars and int32 tensors (parameters, biases) travel with the workloads that use them.
  c.operand_performance = {{"FLOAT32", f32},
                           {"TENSOR_FLOAT32", f32},
                           {"INT32", u8},
                           {"TENSOR_INT32", u8},
                           {"TENSOR_QUANT8_ASYMM", u8},
                           {"TENSOR_QUANT8_ASYMM_SIGNED", s8},
                           {"TENSOR_QUANT8_SYMM_PER_CHANNEL", u8},
                           {"BOOL", u8}};
  measured()[key] = c;
  capabilities_ = c;
  return c;
}

}  // namespace npu::hal
