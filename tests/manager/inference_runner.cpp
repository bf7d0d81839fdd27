#include "inference_runner.h"

#include "npu/regmap/descriptors.h"

namespace npu::test {
namespace {

constexpr uint32_t kRowBytes = 4096, kRows = 64;  // 256 KiB per descriptor

}  // namespace

InferenceRunner::InferenceRunner(drv::Driver& driver, int uid, int pid)
    : driver_(driver), uid_(uid), pid_(pid) {}

Result<void> InferenceRunner::open() {
  if (ctx_) return {};
  auto ctx = driver_.open_context(uid_, pid_);
  if (!ctx) return make_error(ctx.error());
  auto bo = driver_.alloc_bo(*ctx, uint64_t{kRowBytes} * kRows);
  if (!bo) return make_error(bo.error());
  ctx_ = *ctx;
  bo_ = *bo;
  return {};
}

Result<std::shared_ptr<drv::Fence>> InferenceRunner::submit(const InferenceOptions& o) {
  if (auto r = open(); !r) return make_error(r.error());
  drv::JobRequest job;
  job.job_priority = o.job_priority;
  job.attributed_uid = o.original_uid;
  job.label = "test-inference p" + std::to_string(o.job_priority);
  auto& stage = job.stages.emplace_back();
  for (uint32_t b = 0; b < o.buffers; ++b) {
    auto& cmds = stage.emplace_back();
    for (uint32_t i = 0; i < o.descriptors; ++i)
      cmds.push_back(desc::encode(desc::Dma{
          {desc::Opcode::DMA_IN, i}, bo_.device_address, 0, kRowBytes, kRows, kRowBytes, kRowBytes}));
  }
  return driver_.submit(ctx_, std::move(job));
}

Result<void> InferenceRunner::run(const InferenceOptions& o) {
  auto fence = submit(o);
  if (!fence) return make_error(fence.error());
  driver_.wait(**fence);
  if ((*fence)->status != drv::JobStatus::COMPLETED)
    return make_error(std::string("job ") + drv::to_string((*fence)->status) + ": " + (*fence)->error);
  return {};
}

}  // namespace npu::test
