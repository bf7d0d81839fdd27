// getCapabilities, measured: the NPU device runs small MobileNet-style reference workloads (float32,
// quant8 asymmetric and quant8 signed: a strided 3×3 stem, depthwise-separable blocks, a classifier
// head) on the simulated NPU and the CPU device runs the same ones; the ratios of simulated time and
// energy are the capabilities. Simulated time is deterministic, so the answer is the same on every run.
// Energy: the NPU's own (CH_ENERGY of its jobs) plus the host CPU at kHostCpuWatts while the execution
// is in the driver; the CPU device at kHostCpuWatts while it computes.
// Not modelled: fp16 (relaxed) on the NPU (measured as float32), IF/WHILE (not supported: FLT_MAX).
#include <cfloat>

#include "npu/common/log.h"
#include "npu/models/builder.h"
#include "prepared_models.h"

namespace npu::hal {
namespace {

using models::OperandType;
using models::QuantParams;

constexpr double kHostCpuWatts = 2.0;  // one busy host core

struct Workload {
  models::Model model;
  TensorMap inputs;
};

// A 32×32×3 image through a MobileNet v1-shaped network scaled down to keep measuring fast.
Workload mobilenet_style(OperandType type) {
  models::ModelBuilder b(2024);
  const bool quant = type != OperandType::TENSOR_FLOAT32;
  const int32_t zp = type == OperandType::TENSOR_QUANT8_ASYMM ? 128 : 0;
  const QuantParams in_q = quant ? QuantParams{0.02f, zp} : QuantParams{};
  const QuantParams w_q = quant ? QuantParams{0.01f, zp} : QuantParams{};
  const QuantParams act_q = quant ? QuantParams{0.05f, zp} : QuantParams{};
  const auto relu6 = fx::FusedActivation::RELU6;
  uint32_t h = b.input(type, {1, 32, 32, 3}, in_q);
  h = b.conv_2d(h, 16, 3, 3, 1, 2, relu6, w_q, act_q);
  const uint32_t widths[] = {32, 64, 64};
  for (uint32_t i = 0; i < 3; ++i) {
    h = b.depthwise_conv_2d(h, 3, 3, 1, i == 0 ? 1 : 2, relu6, w_q, act_q);
    h = b.conv_2d(h, widths[i], 1, 1, 1, 1, relu6, w_q, act_q);
  }
  b.mark_output(b.fully_connected(h, 10, fx::FusedActivation::NONE, w_q, act_q));
  Workload w;
  w.inputs = b.random_inputs();
  w.model = b.take();
  return w;
}

struct Measurement {
  uint64_t ns = 0;
  double energy_pj = 0;
};

// One warm-up execution (first-use costs are not what capabilities describe), then one measured.
Result<Measurement> measure(Device& device, const Workload& w) {
  auto prepared = device.prepare_model(w.model);
  if (!prepared.status.ok()) return make_error(prepared.status.message);
  if (auto warm = prepared.model->execute_synchronously(w.inputs, false); !warm.status.ok())
    return make_error(warm.status.message);
  const uint64_t t0 = device.os().now_ns();
  auto r = prepared.model->execute_synchronously(w.inputs, false);
  if (!r.status.ok()) return make_error(r.status.message);
  Measurement m;
  m.ns = device.os().now_ns() - t0;
  m.energy_pj = static_cast<double>(r.device_energy_pj) + kHostCpuWatts * static_cast<double>(m.ns) * 1e3;
  return m;
}

}  // namespace

Capabilities CpuDevice::capabilities() {
  Capabilities c;
  c.if_performance = c.while_performance = {FLT_MAX, FLT_MAX};
  for (const char* t : {"FLOAT32", "TENSOR_FLOAT32", "INT32", "TENSOR_INT32", "TENSOR_QUANT8_ASYMM",
                        "TENSOR_QUANT8_ASYMM_SIGNED", "TENSOR_QUANT8_SYMM_PER_CHANNEL", "BOOL"})
    c.operand_performance.push_back({t, {1.0f, 1.0f}});
  return c;
}

Capabilities NpuDevice::capabilities() {
  if (capabilities_) return *capabilities_;
  auto log = log::get("driver");
  CpuDevice cpu(os(), cost_, hal_costs());
  auto ratio = [&](OperandType type) -> PerformanceInfo {
    const Workload w = mobilenet_style(type);
    auto on_npu = measure(*this, w);
    auto on_cpu = measure(cpu, w);
    if (!on_npu || !on_cpu) {
      log->warn("{}: capability workload {} failed: {}", name(), models::to_string(type),
                on_npu ? on_cpu.error() : on_npu.error());
      return {FLT_MAX, FLT_MAX};
    }
    return {static_cast<float>(static_cast<double>(on_npu->ns) / static_cast<double>(on_cpu->ns)),
            static_cast<float>(on_npu->energy_pj / on_cpu->energy_pj)};
  };
  const PerformanceInfo f32 = ratio(OperandType::TENSOR_FLOAT32);
  const PerformanceInfo u8 = ratio(OperandType::TENSOR_QUANT8_ASYMM);
  const PerformanceInfo s8 = ratio(OperandType::TENSOR_QUANT8_ASYMM_SIGNED);
  Capabilities c;
  c.relaxed_float32_to_float16_scalar = c.relaxed_float32_to_float16_tensor = f32;
  c.if_performance = c.while_performance = {FLT_MAX, FLT_MAX};
  // Scalars and int32 tensors (parameters, biases) travel with the workloads that use them.
  c.operand_performance = {{"FLOAT32", f32},
                           {"TENSOR_FLOAT32", f32},
                           {"INT32", u8},
                           {"TENSOR_INT32", u8},
                           {"TENSOR_QUANT8_ASYMM", u8},
                           {"TENSOR_QUANT8_ASYMM_SIGNED", s8},
                           {"TENSOR_QUANT8_SYMM_PER_CHANNEL", u8},
                           {"BOOL", u8}};
  capabilities_ = c;
  return c;
}

}  // namespace npu::hal
