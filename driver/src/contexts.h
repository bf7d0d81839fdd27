// Client contexts (one per open of the device, as a DRM file) and the buffer objects each owns, placed in
// DeviceMemory; the check that a command buffer's DMA stays inside its context's buffers. Not thread-safe:
// the driver calls it under its lock. Errors carry errno codes (driver.h).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <vector>

#include "device_memory.h"
#include "npu/drv/driver.h"

namespace npu::drv {

class ContextTable {
 public:
  struct Context {
    int uid = 0, pid = 0;
    std::map<BoHandle, BufferObject> bos;
  };

  explicit ContextTable(DeviceMemory& memory) : memory_(memory) {}

  ContextId open(int uid, int pid);
  // Frees every buffer of the context and forgets it.
  void close(ContextId ctx);
  Result<Context*> find(ContextId ctx);

  // weights: from the weight-memory region (or the general pool without one).
  Result<BufferObject> alloc_bo(ContextId ctx, uint64_t size, bool weights);
  // `busy` may refuse a found buffer (an unfinished job uses it); its error is passed on.
  Result<void> free_bo(ContextId ctx, BoHandle handle, const std::function<Result<void>()>& busy);
  // The buffer, when [offset, offset + len) lies inside it.
  Result<BufferObject*> bo(ContextId ctx, BoHandle handle, uint64_t offset, uint64_t len);
  // Checks every DMA range of `commands` lies in one of the context's buffers; adds those to `used`.
  Result<void> validate_dma(const Context& c, const std::vector<desc::Raw>& commands,
                            std::set<BoHandle>* used) const;

  size_t live_contexts() const { return contexts_.size(); }
  size_t live_bos() const;

 private:
  DeviceMemory& memory_;
  std::map<ContextId, Context> contexts_;
  ContextId next_ctx_ = 1;
  BoHandle next_bo_ = 1;
};

}  // namespace npu::drv
