// Test support: runs NPU work for a uid straight through the driver, as the vendor's run-test-inference
// tool does for AOSP's VtsHalNpuSchedulingTargetTest — with a job priority and an optional uid the
// work is attributed to. A job is `buffers` command buffers (one per channel at most at a time) of
// `descriptors` 256 KiB DMA reads each; it moves data but computes nothing.
#pragma once

#include <cstdint>
#include <memory>

#include "npu/common/result.h"
#include "npu/drv/driver.h"

namespace npu::test {

struct InferenceOptions {
  int job_priority = 0;
  int original_uid = -1;  // ≥ 0: attribute the work to this uid
  uint32_t buffers = 1;
  uint32_t descriptors = 8;
};

class InferenceRunner {
 public:
  InferenceRunner(drv::Driver& driver, int uid, int pid = 1);
  // Queues one job; its fence tells when it ended.
  Result<std::shared_ptr<drv::Fence>> submit(const InferenceOptions& options);
  // Queues one job and waits for it: an error unless it completed.
  Result<void> run(const InferenceOptions& options);

 private:
  Result<void> open();
  drv::Driver& driver_;
  int uid_, pid_;
  drv::ContextId ctx_ = 0;
  drv::BufferObject bo_;
};

}  // namespace npu::test
