// The HAL's concrete prepared models and device buffers (internal to hal/src): the NPU one runs a
// compiled Program through the driver, with CPU stages between NPU stages; the CPU one runs the
// reference executor. Device buffers (memory domains) are a driver BO on the NPU, a host tensor on
// the CPU.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "npu/hal/device.h"

namespace npu::hal {

// Checks a request against the graph: every input given once (as a host tensor or a device buffer),
// types and sizes equal, buffers only for graph inputs/outputs, capacities only for outputs; inputs
// given no value only where every operation reading them allows it (ops::validate_no_value_inputs).
Status check_request(const models::Model& model, const Request& request);

// Output shapes and the OUTPUT_INSUFFICIENT_SIZE status (naming the first output too small) for
// outputs of the given dimensions against the request's capacities; OK when every output fits.
Status check_output_capacity(const models::Model& model, const Request& request,
                             const std::vector<std::vector<uint32_t>>& output_dims,
                             std::vector<OutputShape>* shapes);

uint64_t copy_ns(const HostCost& cost, uint64_t bytes);

// The status a client sees for a failed driver call, decided here only, by the driver's errno code: out of
// memory now → RESOURCE_EXHAUSTED_TRANSIENT (a retry may succeed), larger than the whole pool →
// RESOURCE_EXHAUSTED_PERSISTENT, no device → DEVICE_UNAVAILABLE, anything else GENERAL_FAILURE.
ErrorStatus status_for_driver_error(int code);
template <class T>
Status driver_failure(const Result<T>& failed, const std::string& context = {}) {
  return {status_for_driver_error(failed.error_code()), context + failed.error()};
}
// Multiply-accumulates of the convolution-like operations, for the CPU cost model; other operations
// count one operation per output element.
uint64_t estimated_macs(const models::Model& m);

class NpuDeviceBuffer : public DeviceBuffer {
 public:
  NpuDeviceBuffer(drv::Driver& driver, drv::ContextId ctx, drv::BufferObject bo, models::Operand operand,
                  HostCost cost)
      : driver_(driver), ctx_(ctx), bo_(bo), operand_(std::move(operand)), cost_(cost) {}
  ~NpuDeviceBuffer() override { (void)driver_.free_bo(ctx_, bo_.handle); }
  const models::Operand& operand() const override { return operand_; }
  Status copy_from(const models::Tensor& value) override;
  Status copy_to(models::Tensor* value) override;
  const drv::BufferObject& bo() const { return bo_; }
  drv::ContextId context() const { return ctx_; }

 private:
  drv::Driver& driver_;
  drv::ContextId ctx_;
  drv::BufferObject bo_;
  models::Operand operand_;
  HostCost cost_;
};

class CpuDeviceBuffer : public DeviceBuffer {
 public:
  explicit CpuDeviceBuffer(models::Operand operand) : operand_(std::move(operand)) {}
  const models::Operand& operand() const override { return operand_; }
  Status copy_from(const models::Tensor& value) override;
  Status copy_to(models::Tensor* value) override;

 private:
  models::Operand operand_;
  std::optional<models::Tensor> value_;
};

class CpuPreparedModel : public PreparedModel {
 public:
  CpuPreparedModel(models::Model m, drv::Os& os, HostCost cost, HalCosts costs, Priority priority,
                   std::string placement)
      : PreparedModel(os, costs, priority),
        model_(std::move(m)),
        cost_(cost),
        macs_(estimated_macs(model_)),
        placement_(std::move(placement)) {}
  std::string placement() const override { return placement_; }
  const models::Operand* io_operand(uint32_t operand) const override;

 protected:
  ExecutionResult run(const Request& request, const ExecuteOptions& options) override;

 private:
  models::Model model_;
  HostCost cost_;
  uint64_t macs_;
  std::string placement_;
};

// The prepared models of a model's referenced subgraphs (index = Model::referenced index), for IF and
// WHILE. The main prepared model owns them; a subgraph's own IF/WHILE stages use the same table.
using SubgraphModels = std::vector<std::unique_ptr<PreparedModel>>;

class NpuPreparedModel : public PreparedModel {
 public:
  // `model` has every operand's dimensions known (inferred where the file left them open).
  NpuPreparedModel(models::Model model, drv::Driver& driver, drv::ContextId ctx, Program program,
                   drv::BufferObject weights, HostCost cost, HalCosts costs, Priority priority);
  ~NpuPreparedModel() override;
  std::string placement() const override;
  std::vector<OperationTiling> tilings() const override;
  const models::Operand* io_operand(uint32_t operand) const override;
  const Program* npu_program() const override { return &program_; }
  // Gives the model (and those of the subgraphs it holds) the prepared subgraphs its IF/WHILE run.
  void attach_subgraphs(std::unique_ptr<SubgraphModels> subgraphs);

 protected:
  ExecutionResult run(const Request& request, const ExecuteOptions& options) override;

 private:
  // Where an operand lives during one execution: its slot in the execution's arena or a device buffer.
  struct Location {
    drv::BoHandle bo = 0;
    uint64_t offset = 0;   // within the BO
    uint64_t address = 0;  // device address of the operand's first byte
  };
  struct Slot {
    uint64_t offset = 0, bytes = 0;
    uint32_t operand = 0;
  };
  class ArenaLease;

  Result<drv::BufferObject> acquire_arena();
  void release_arena(const drv::BufferObject& arena) { free_arenas_.push_back(arena); }
  Location locate(uint32_t operand, const drv::BufferObject& arena, const Request& request) const;
  // The step's descriptors with absolute addresses: weights, arena slots, or device buffers.
  std::vector<desc::Raw> relocate_step(const NpuStep& step, const drv::BufferObject& arena,
                                       const Request& request) const;
  Status check_no_value_placement(const Request& request) const;
  Status run_on_cpu(const Stage& stage, const drv::BufferObject& arena, const Request& request,
                    ExecutionResult& r);
  // An IF/WHILE stage: reads its operands out of device memory, runs the chosen subgraph (IF) or the
  // condition and body until the condition is false or the loop timeout passes (WHILE), and writes the
  // results back into device memory.
  Status run_control_flow(const Stage& stage, const drv::BufferObject& arena, const Request& request,
                          const ExecuteOptions& options, uint64_t* device_ns, ExecutionResult& r);
  // Runs referenced subgraph `sub` on `values` (its inputs in order), replacing them by its outputs.
  Status run_subgraph(uint32_t sub, std::vector<models::Tensor>& values, const ExecuteOptions& options,
                      uint64_t* device_ns, ExecutionResult& r);
  Status run_npu_stages(size_t first, size_t last, const drv::BufferObject& arena, const Request& request,
                        const ExecuteOptions& options, uint64_t* device_ns, ExecutionResult& r);

  models::Model model_;
  drv::Driver& driver_;
  drv::ContextId ctx_;
  Program program_;
  drv::BufferObject weights_;
  HostCost cost_;
  std::vector<Slot> slots_;  // by arena offset
  std::vector<drv::BufferObject> free_arenas_;
  std::vector<drv::BoHandle> all_arenas_;
  uint64_t min_device_ns_ = UINT64_MAX;  // fastest device time seen: below it a deadline is hopeless
  std::unique_ptr<SubgraphModels> owned_subgraphs_;  // the main model's (nullptr in a subgraph's)
  const SubgraphModels* subgraphs_ = nullptr;
};

}  // namespace npu::hal
