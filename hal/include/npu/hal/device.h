// NNAPI-style devices and prepared models (SPEC §2–§3). A Device answers discovery queries and prepares
// models; a PreparedModel executes them. NpuDevice runs models on the simulated NPU through the driver;
// CpuDevice runs the CPU reference implementation (the accuracy oracle and the fallback). Calls are
// made from a simulated host thread and take simulated time.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "npu/drv/driver.h"
#include "npu/hal/compiler.h"
#include "npu/hal/types.h"
#include "npu/models/model.h"
#include "npu/models/tensor.h"

namespace npu::hal {

using TensorMap = std::map<uint32_t, models::Tensor>;

struct ExecutionResult {
  Status status;
  TensorMap outputs;
  std::vector<OutputShape> output_shapes;
  Timing timing;
  uint64_t device_cycles = 0;  // NPU cycles of the jobs this execution ran (0 on the CPU)
  uint32_t npu_jobs = 0;       // command buffers run on the NPU
};

class PreparedModel {
 public:
  virtual ~PreparedModel() = default;
  virtual ExecutionResult execute_synchronously(const TensorMap& inputs, bool measure_timing) = 0;
  // Where the model runs: "npu" or "cpu" (after a preparation fallback, "cpu").
  virtual std::string placement() const = 0;
};

struct PrepareResult {
  Status status;
  std::unique_ptr<PreparedModel> model;
};

class Device {
 public:
  virtual ~Device() = default;
  virtual std::string name() const = 0;  // {VENDOR}-{DEVICE_NAME}
  virtual DeviceType type() const = 0;
  virtual std::string version_string() const = 0;
  // One entry per main-graph operation; INVALID_ARGUMENT status for an invalid model.
  virtual Status supported_operations(const models::Model& model, std::vector<bool>* supported) = 0;
  virtual PrepareResult prepare_model(const models::Model& model) = 0;
};

// Host CPU cost model, for the CPU device and for the HAL's own work.
struct HostCost {
  double cpu_gmacs = 8.0;        // reference-kernel multiply-accumulates per ns
  double memcpy_gbps = 10.0;     // host copies into and out of device memory
};

class CpuDevice : public Device {
 public:
  CpuDevice(drv::Os& os, HostCost cost) : os_(os), cost_(cost) {}
  std::string name() const override { return "npusim-cpu"; }
  DeviceType type() const override { return DeviceType::CPU; }
  std::string version_string() const override;
  Status supported_operations(const models::Model& model, std::vector<bool>* supported) override;
  PrepareResult prepare_model(const models::Model& model) override;

 private:
  drv::Os& os_;
  HostCost cost_;
};

class NpuDevice : public Device {
 public:
  // Opens a driver context for (uid, pid); every prepared model of this device lives in it.
  NpuDevice(drv::Driver& driver, NpuTarget target, HostCost cost, int uid, int pid);
  std::string name() const override { return "npusim-npu"; }
  DeviceType type() const override { return DeviceType::ACCELERATOR; }
  std::string version_string() const override;
  Status supported_operations(const models::Model& model, std::vector<bool>* supported) override;
  PrepareResult prepare_model(const models::Model& model) override;

 private:
  drv::Driver& driver_;
  NpuTarget target_;
  HostCost cost_;
  int uid_, pid_;
  std::optional<drv::ContextId> ctx_;
};

// Checks that `inputs` holds exactly the graph inputs with matching type and element count.
Status check_inputs(const models::Model& model, const TensorMap& inputs);
// validate_model + per-operation validation, as one status.
Status validate_for_prepare(const models::Model& model);

}  // namespace npu::hal
