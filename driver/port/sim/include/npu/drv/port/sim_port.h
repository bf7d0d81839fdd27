// Binds the portable driver to the simulated NPU: register bus and device memory through TLM initiator
// sockets (loosely timed: the annotated delay is waited immediately), the interrupt line through the
// NPU's `irq` signal, and kernel services as SystemC processes and events in simulated time.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>

#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>

#include "npu/common/trace.h"
#include "npu/drv/hw.h"
#include "npu/sim/npu.h"

namespace npu::drv {

class SimOs : public Os {
 public:
  uint64_t now_ns() const override;
  void delay_ns(uint64_t ns) override;
  std::unique_ptr<WaitQueue> make_wait_queue() override;
  void spawn(const std::string& name, std::function<void()> body) override;
};

class SimPort : public sc_core::sc_module, public RegisterBus, public DeviceMemoryBus, public InterruptLine {
 public:
  tlm_utils::simple_initiator_socket<SimPort> mmio_socket;
  tlm_utils::simple_initiator_socket<SimPort> mem_socket;
  sc_core::sc_in<bool> irq;

  SimPort(sc_core::sc_module_name name, sim::Npu& npu);

  uint32_t read32(uint32_t offset) override;
  void write32(uint32_t offset, uint32_t value) override;
  bool read(uint64_t address, void* dst, uint64_t length) override;
  bool write(uint64_t address, const void* src, uint64_t length) override;
  uint64_t size() const override { return memory_size_; }
  void set_handler(std::function<void()> handler) override { handler_ = std::move(handler); }

  Hardware hardware() { return Hardware{*this, *this, *this}; }
  // Records every register access (instants on "driver" / "registers") and every interrupt handler run
  // (spans on "driver" / "irq") in the trace; nullptr = off.
  void set_tracer(trace::Tracer* tracer);
  Os& os() { return os_; }

 private:
  bool transport(tlm_utils::simple_initiator_socket<SimPort>& socket, tlm::tlm_command cmd, uint64_t address,
                 void* data, uint64_t length);
  void irq_thread();

  uint64_t memory_size_;
  std::function<void()> handler_;
  trace::Tracer* tracer_ = nullptr;
  uint32_t register_track_ = 0, irq_track_ = 0;
  SimOs os_;
};

}  // namespace npu::drv
