// The driver's only ways to reach the hardware, in the spirit of NVDLA's dla_reg_read/dla_reg_write
// portability layer; the kernel services it also runs on (Os) are the host runtime's, npu/common/os.h.
// Each interface says who implements it and who calls it.
//   implemented by: driver/port/sim (SystemC + TLM sockets of the simulated NPU); unit tests: fakes.
//   called by:      the portable driver (driver/src) only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "npu/common/os.h"

namespace npu::drv {

// Memory-mapped registers of the NPU. Accesses take modelled time; call only from kernel threads.
class RegisterBus {
 public:
  virtual ~RegisterBus() = default;
  virtual uint32_t read32(uint32_t offset) = 0;
  virtual void write32(uint32_t offset, uint32_t value) = 0;
};

// Device memory as the host sees it (the NPU's DRAM). Returns false on an address the bus rejects.
class DeviceMemoryBus {
 public:
  virtual ~DeviceMemoryBus() = default;
  virtual bool read(uint64_t address, void* dst, uint64_t length) = 0;
  virtual bool write(uint64_t address, const void* src, uint64_t length) = 0;
  virtual uint64_t size() const = 0;
};

// The NPU's interrupt line. The port calls the registered handler in thread context whenever the line
// is asserted (level-triggered: again if it is still asserted after the handler returns).
class InterruptLine {
 public:
  virtual ~InterruptLine() = default;
  virtual void set_handler(std::function<void()> handler) = 0;
};

// Kernel services (time, sleeping, threads, wait queues) are the host runtime's: npu/common/os.h.
using npu::Os;
using npu::WaitQueue;

struct Hardware {
  RegisterBus& regs;
  DeviceMemoryBus& memory;
  InterruptLine& irq;
};

}  // namespace npu::drv
