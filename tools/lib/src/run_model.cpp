#include "npu/tools/run_model.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "npu/drv/driver.h"
#include "npu/models/tensor.h"
#include "npu/sweep/area.h"
#include "npu/tools/memory_budget.h"

namespace npu::tools {

namespace {
// Shortest text that reads back as the same double (%.17g trimmed), so integers print as integers.
std::string format_number(double v) {
  char buf[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}
}  // namespace

OutputComparison compare_outputs(const hal::TensorMap& got, const hal::TensorMap& want, bool relaxed) {
  OutputComparison c;
  // NNAPI's CTS: float32 within 1e-5 + 5 ulp(fp32)·|e|; a relaxed model's float32 and any float16
  // within 5 ulp(fp16) absolute and relative.
  constexpr double kFp32Atol = 1e-5, kFp32Rtol = 5 * 1.1920928955078125e-7;
  constexpr double kFp16Tol = 5 * 0.0009765625;
  for (const auto& [idx, w] : want) {
    const auto it = got.find(idx);
    if (it == got.end() || it->second.data.size() != w.data.size()) {
      if (c.first_mismatch.empty())
        c.first_mismatch =
            "output operand " + std::to_string(idx) + ": missing or of another size on the device";
      c.mismatches += w.element_count();
      continue;
    }
    const bool is_float = models::is_float_type(w.type);
    const bool half = w.type == models::OperandType::TENSOR_FLOAT16 || w.type == models::OperandType::FLOAT16;
    const double atol = half || relaxed ? kFp16Tol : kFp32Atol;
    const double rtol = half || relaxed ? kFp16Tol : kFp32Rtol;
    const uint64_t count = w.element_count();  // once: it builds a shaped operand on each call
    for (uint64_t i = 0; i < count; ++i) {
      const double e = models::read_element(w.type, w.data, i);
      const double a = models::read_element(w.type, it->second.data, i);
      bool match = false;
      double err = 0;
      if (std::isfinite(e) && std::isfinite(a)) {
        err = std::fabs(e - a);
        match = err <= (is_float ? atol + rtol * std::fabs(e) : 0.0);
      } else {
        // NaN matches only NaN, an infinity only the same infinity: |e − a| would be NaN (and NaN > tol
        // false), or an infinite tolerance would accept any value.
        match = (std::isnan(e) && std::isnan(a)) || e == a;
        if (!match) err = INFINITY;
      }
      c.max_abs_error = std::max(c.max_abs_error, err);
      if (!match) {
        if (c.first_mismatch.empty())
          c.first_mismatch = "output operand " + std::to_string(idx) + " element " + std::to_string(i) +
                             ": " + format_number(a) + " on the device, " + format_number(e) +
                             " by the CPU reference";
        ++c.mismatches;
      }
      ++c.elements;
    }
  }
  return c;
}

std::string device_memory_hint(const std::string& error, const system::SystemConfig& config) {
  const std::string marker = std::string(drv::kOutOfDeviceMemory) + " (";
  const auto at = error.find(marker);
  if (at == std::string::npos) return {};
  const uint64_t bytes = std::strtoull(error.c_str() + at + marker.size(), nullptr, 10);
  if (bytes == 0) return {};
  // The allocation must fit beside the weight memory region and the driver's command-buffer space;
  // when that is no more than today's size (fragmentation, another pool), twice today's.
  constexpr uint64_t kMib = 1ull << 20;
  const uint64_t beside =
      config.npu.weight_memory_mib + (config.driver.kernel_reserved_bytes + kMib - 1) / kMib;
  const uint64_t fits = beside + (bytes + kMib - 1) / kMib;
  const uint64_t wanted = fits <= config.npu.dram.size_mib ? 2ull * config.npu.dram.size_mib : fits;
  uint64_t mib = 1;
  while (mib < wanted) mib *= 2;
  return " (give the device more memory: --set npu.dram.size_mib=" + std::to_string(mib) + ")";
}

Result<RunModelOutcome> run_model(const models::Model& model, const hal::TensorMap& inputs,
                                  const system::SystemConfig& config, const RunModelOptions& o) {
  auto budget = memory_budget(o.memory_budget);
  if (!budget) return make_error(budget.error());
  if (auto r = check_host_memory(model, o.name, *budget); !r) return make_error(r.error());
  auto sys = system::System::create(config);
  if (!sys) return make_error(sys.error());
  RunModelOutcome out;
  hal::Status prepare_status;
  auto end = (*sys)->run([&](system::System& s) {
    hal::Device& dev = o.device == "cpu" ? static_cast<hal::Device&>(s.cpu_device()) : s.npu_device();
    const uint64_t t0 = s.os().now_ns();
    auto prepared = dev.prepare_model(model);
    out.prepare_ns = s.os().now_ns() - t0;
    prepare_status = prepared.status;
    if (!prepared.status.ok()) return;
    out.placement = prepared.model->placement();
    out.tilings = prepared.model->tilings();
    if (o.on_prepared) o.on_prepared(s, *prepared.model);
    hal::Request request;
    request.inputs = inputs;
    hal::ExecuteOptions timed;
    timed.measure_timing = true;
    timed.loop_timeout_ns = o.loop_timeout_ns;
    const uint64_t c0 = s.os().now_ns();
    out.result = prepared.model->execute_synchronously(request, timed);
    out.call_ns = s.os().now_ns() - c0;
    if (o.check) {
      // A relaxed model is checked as NNAPI's CTS checks it: against results computed in float32 (the
      // relaxation off), with the relaxed tolerance (compare_outputs). The CPU device's own relaxed
      // results carry fp16 rounding at every operation, which accumulates along a graph.
      models::Model exact;
      if (model.relax_computation_float32_to_float16) {
        exact = model;
        exact.relax_computation_float32_to_float16 = false;
      }
      auto ref = s.cpu_device().prepare_model(model.relax_computation_float32_to_float16 ? exact : model);
      hal::ExecuteOptions untimed;
      untimed.loop_timeout_ns = o.loop_timeout_ns;
      if (ref.status.ok())
        out.reference = ref.model->execute_synchronously(request, untimed);
      else
        out.reference.status = ref.status;
    }
  });
  if (!end) return make_error(end.error());
  if (!prepare_status.ok())
    return make_error(o.name + ": prepareModel: " + hal::to_string(prepare_status.code) + ": " +
                      prepare_status.message);
  // A failed execution (a device fault the driver could not recover from) still has its stats and
  // trace: the caller reports them beside the error.
  if (!out.result.status.ok())
    out.execution_error =
        o.name + ": execute: " + hal::to_string(out.result.status.code) + ": " + out.result.status.message;
  out.simulated_end_s = *end;
  const auto& result = out.result;
  auto& stats = (*sys)->stats();
  // A failed execution has no timing (NNAPI's UINT64_MAX): no latency stats rather than 1.8e19 µs.
  if (result.timing.time_in_driver_us != UINT64_MAX) {
    stats.value("hal.execution.latency_us", "us", "Simulated time of the execution in the driver") =
        static_cast<double>(result.timing.time_in_driver_us);
    stats.value("hal.execution.device_us", "us", "Simulated time the NPU spent on the execution") =
        static_cast<double>(result.timing.time_on_device_us);
  }
  stats.counter("hal.execution.npu_cycles", "cycles", "NPU cycles of the execution's jobs") =
      result.device_cycles;
  stats.counter("hal.execution.jobs", "jobs", "Driver jobs the execution submitted") = result.jobs;
  stats.counter("hal.execution.stages", "stages", "Stages of those jobs (one per operation on the NPU)") =
      result.stages;
  stats.counter("hal.execution.command_buffers", "command buffers",
                "Command buffers of those stages (one per channel a stage uses)") = result.command_buffers;
  stats.value("hal.prepare.time_us", "us", "Simulated time of prepareModel") = out.prepare_ns / 1000.0;
  // Channels busy on average while the execution was on the device: the multi-channel speed-up.
  const double device_cycles_elapsed = result.timing.time_on_device_us * (*sys)->config().npu.clock_mhz();
  stats.value("hal.execution.channel_parallelism", "channels",
              "NPU busy cycles over elapsed device cycles (average channels in use)") =
      device_cycles_elapsed > 0 ? static_cast<double>(result.device_cycles) / device_cycles_elapsed : 0.0;
  // Silicon area of the design (docs/area.md), beside its time and energy.
  const auto area = sweep::design_area((*sys)->config());
  out.area_mm2 = area.total_mm2();
  stats.value("npu.area.total_mm2", "mm2", "Silicon area of the NPU design (docs/area.md)") =
      area.total_mm2();
  stats.value("npu.area.mac_array_mm2", "mm2", "Area of the channels' MAC arrays") = area.mac_array_mm2;
  stats.value("npu.area.sram_mm2", "mm2", "Area of the channels' scratchpad SRAM") = area.sram_mm2;
  stats.value("npu.area.vector_mm2", "mm2", "Area of the channels' vector units") = area.vector_mm2;
  stats.value("npu.area.dma_mm2", "mm2", "Area of the channels' DMA engines") = area.dma_mm2;
  stats.value("npu.area.dram_phy_mm2", "mm2", "Area of the DRAM PHY") = area.dram_phy_mm2;
  out.system = std::move(*sys);
  return out;
}

}  // namespace npu::tools
