#include "contexts.h"

#include <cerrno>
#include <string>

namespace npu::drv {

ContextId ContextTable::open(int uid, int pid) {
  const ContextId id = next_ctx_++;
  contexts_[id] = Context{uid, pid, {}};
  return id;
}

void ContextTable::close(ContextId ctx) {
  auto it = contexts_.find(ctx);
  if (it == contexts_.end()) return;
  for (auto& [h, b] : it->second.bos) memory_.release(b.device_address);
  contexts_.erase(it);
}

Result<ContextTable::Context*> ContextTable::find(ContextId ctx) {
  auto it = contexts_.find(ctx);
  if (it == contexts_.end()) return make_error("no context " + std::to_string(ctx), ENOENT);
  return &it->second;
}

size_t ContextTable::live_bos() const {
  size_t n = 0;
  for (const auto& [id, c] : contexts_) n += c.bos.size();
  return n;
}

Result<BufferObject> ContextTable::alloc_bo(ContextId ctx, uint64_t size, bool weights) {
  auto c = find(ctx);
  if (!c) return with_context("alloc_bo: ", c);
  if (size == 0) return make_error("alloc_bo: size 0", EINVAL);
  if (memory_.take_injected_failure())
    return make_error(
        "alloc_bo: " + std::string(kOutOfDeviceMemory) + " (" + std::to_string(size) + " bytes, injected)",
        ENOMEM);
  const bool region = weights && memory_.has_weight_region();
  auto addr = memory_.allocate(size, weights ? DeviceMemory::Pool::WEIGHTS : DeviceMemory::Pool::GENERAL);
  if (!addr) return with_context(std::string("alloc_bo: ") + (region ? "weight memory: " : ""), addr);
  BufferObject b{next_bo_++, *addr, size, region};
  (*c)->bos[b.handle] = b;
  return b;
}

Result<void> ContextTable::free_bo(ContextId ctx, BoHandle handle,
                                   const std::function<Result<void>()>& busy) {
  auto b = bo(ctx, handle, 0, 0);
  if (!b) return with_context("free_bo: ", b);
  if (auto idle = busy(); !idle) return with_context("free_bo: ", idle);
  memory_.release((*b)->device_address);
  contexts_[ctx].bos.erase(handle);
  return {};
}

Result<BufferObject*> ContextTable::bo(ContextId ctx, BoHandle handle, uint64_t offset, uint64_t len) {
  auto c = find(ctx);
  if (!c) return with_context("", c);
  auto it = (*c)->bos.find(handle);
  if (it == (*c)->bos.end())
    return make_error("context " + std::to_string(ctx) + " owns no buffer " + std::to_string(handle), ENOENT);
  if (offset > it->second.size || len > it->second.size - offset)
    return make_error("range [" + std::to_string(offset) + ", +" + std::to_string(len) + ") outside buffer " +
                          std::to_string(handle) + " of " + std::to_string(it->second.size) + " bytes",
                      EINVAL);
  return &it->second;
}

Result<void> ContextTable::validate_dma(const Context& c, const std::vector<desc::Raw>& commands,
                                        std::set<BoHandle>* used) const {
  auto owning_bo = [&](uint64_t addr, uint64_t len) -> const BufferObject* {
    for (const auto& [h, b] : c.bos) {
      if (addr >= b.device_address && len <= b.size && addr - b.device_address <= b.size - len) return &b;
    }
    return nullptr;
  };
  for (size_t i = 0; i < commands.size(); ++i) {
    const auto op = desc::opcode_of(commands[i]);
    if (static_cast<uint32_t>(op) >= desc::kOpcodeCount)
      return make_error(
          "descriptor " + std::to_string(i) + ": unknown opcode " + std::to_string(static_cast<uint32_t>(op)),
          EINVAL);
    if (op != desc::Opcode::DMA_IN && op != desc::Opcode::DMA_OUT && op != desc::Opcode::DMA_GATHER)
      continue;  // the rest touch only SRAM
    const auto d = desc::decode<desc::Dma>(commands[i]);
    if (d.rows == 0 || d.row_bytes == 0) continue;
    uint64_t span = static_cast<uint64_t>(d.rows - 1) * d.dev_stride + d.row_bytes;
    if (op == desc::Opcode::DMA_GATHER) {  // any row of the whole table may be read
      const auto g = desc::decode<desc::DmaGather>(commands[i]);
      if (g.table_rows == 0)
        return make_error("descriptor " + std::to_string(i) + ": gather from an empty table", EINVAL);
      span = static_cast<uint64_t>(g.table_rows - 1) * g.dev_stride + g.row_bytes;
    }
    const BufferObject* b = owning_bo(d.dev, span);
    if (!b)
      return make_error("descriptor " + std::to_string(i) + ": DMA range 0x" + std::to_string(d.dev) + "+" +
                            std::to_string(span) + " is outside the context's buffers",
                        EINVAL);
    used->insert(b->handle);
  }
  return {};
}

}  // namespace npu::drv
