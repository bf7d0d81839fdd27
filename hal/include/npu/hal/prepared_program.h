// A precompiled model: compiled ahead of time by vendor tools instead of from an NNAPI graph, as vendors
// ship LLMs (a context binary: one weights image shared by several graphs). Its programs — each a chain of
// NPU stages, named — read the one weights image and work in the one activation arena; an execution runs
// a sequence of programs back to back as one driver job (a decoder pass: its layers' program, then the
// attention program for its context). It is loaded the way NpuDevice loads a compiled NNAPI model (the
// weights into the NPU's weight memory, the copy charged, descriptors relocated once), and its jobs are
// submitted and awaited by the same code as a prepared model's, at the execution's priority.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "npu/drv/driver.h"
#include "npu/hal/compiler.h"
#include "npu/hal/device.h"

namespace npu::hal {

struct PrecompiledModel {
  std::string name;
  WeightsImage weights;  // written at load when materialised; its size is charged as copied either way
  uint64_t arena_bytes = 0;
  // Stages of command buffers (one per channel), in order; named.
  std::map<std::string, std::vector<std::vector<NpuStep>>> programs;
  bool timing_only = false;  // executions run for timing only: the NPU moves and computes no data
};

class PreparedProgram {
 public:
  PreparedProgram(drv::Driver& driver, drv::ContextId ctx, const PrecompiledModel& model,
                  drv::BufferObject weights, drv::BufferObject arena, HalCosts costs);
  // Frees what release() has not.
  ~PreparedProgram();
  PreparedProgram(const PreparedProgram&) = delete;
  PreparedProgram& operator=(const PreparedProgram&) = delete;

  // Runs the named programs, in order, as one job labelled `label`; waits for it. INVALID_ARGUMENT for an
  // unknown name or none; a job the system cancelled sets ExecutionResult::revoked.
  ExecutionResult execute(const std::vector<std::string>& programs, const ExecuteOptions& options,
                          const std::string& label);
  // Frees its weights and arena now (each free an ioctl, simulated time). Call it from the simulated
  // thread that unloads the model rather than leave it to the destructor: a thread killed while it
  // waits unwinds by an exception, which must not pass through a destructor.
  void release();
  // The job of the execution in progress (nullptr between executions): its cycles and energy so far.
  const drv::Fence* in_flight() const { return in_flight_.get(); }
  const std::string& name() const { return name_; }

 private:
  drv::Driver& driver_;
  drv::ContextId ctx_;
  std::string name_;
  drv::BufferObject weights_, arena_;
  HalCosts costs_;
  bool timing_only_;
  bool released_ = false;
  // Every program relocated once, at load (the buffers stay where they are while it is loaded).
  std::map<std::string, std::vector<std::vector<std::vector<desc::Raw>>>> relocated_;
  std::shared_ptr<drv::Fence> in_flight_;
};

}  // namespace npu::hal
