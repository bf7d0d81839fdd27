// The simulated NPU as a QEMU guest's PCI function (docs/vp-device.md): the mailbox requests of
// vp/abi/npusim_vp.h performed on the NPU's `mmio` target, and the NPU's time run per that header's
// policy. Frozen between requests; a register access is one TLM transaction with its bus time waited,
// as driver/port/sim's SimPort does it, with the same trace instants ("driver" / "registers") and the
// same register log lines (log `vp.regs`, symbolic names); RUN simulates until the interrupt line is high
// or nothing is left to simulate. Each rise of the line calls the interrupt callback (MSI-X).
//
// It owns no socket and no memory: Server (server.h) connects it to an ivshmem client. It is driven from
// outside the simulation (sc_main's thread), one call at a time; it builds no NPU (the caller does, from the
// hardware config, and gives the DRAM its external backing).
#pragma once

#include <tlm_utils/simple_initiator_socket.h>

#include <cstdint>
#include <functional>
#include <systemc>
#include <tlm>

#include "npu/common/trace.h"
#include "npu/sim/npu.h"

namespace npu::vp {

class Device : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Device> mmio_socket;
  // Bound to the DRAM's host target, which must be bound; unused: the guest reaches device memory
  // through BAR2 directly (Dram::use_external).
  tlm_utils::simple_initiator_socket<Device> mem_socket;
  sc_core::sc_in<bool> irq;

  // Binds to `npu`'s mmio target, DRAM host target and irq line (nothing else may bind them): construct
  // before the first sc_start.
  Device(sc_core::sc_module_name name, sim::Npu& npu);

  // Called inside the simulation each time the interrupt line rises.
  void set_interrupt_callback(std::function<void()> on_rise) { on_rise_ = std::move(on_rise); }
  // Register-track instants on `tracer` ("driver" / "registers") and MSI-X instants ("vp" / "msix").
  void set_tracer(trace::Tracer* tracer);

  // One 32-bit register access at the current simulated time, its bus time simulated (other processes
  // run meanwhile). Returns false when the register file answered an error (the value is then 0 for a
  // read); `value` is the write's value or receives the read's.
  bool read32(uint32_t offset, uint32_t& value);
  bool write32(uint32_t offset, uint32_t value);

  enum class Step { IRQ, IDLE, MORE };
  // Simulates `limit` more (or up to the next event, when that lies beyond), stopping as soon as the
  // interrupt line is high (IRQ) or no event is left (IDLE: time stays at the last event); MORE: the limit
  // came first. With the line already high it returns IRQ at once, with nothing to simulate IDLE.
  Step run(const sc_core::sc_time& limit);

  bool irq_high() const { return npu_.irq.read(); }
  uint64_t reads() const { return reads_; }
  uint64_t writes() const { return writes_; }
  uint64_t bus_errors() const { return bus_errors_; }
  uint64_t irq_rises() const { return irq_rises_; }

 private:
  bool access(bool write, uint32_t offset, uint32_t& value);
  void access_thread();
  void on_irq_rise();

  sim::Npu& npu_;
  std::function<void()> on_rise_;
  trace::Tracer* tracer_ = nullptr;
  uint32_t register_track_ = 0, msix_track_ = 0;
  // The request handed to access_thread() and its answer.
  sc_core::sc_event request_;
  bool req_write_ = false, req_ok_ = false, req_done_ = false;
  uint32_t req_offset_ = 0, req_value_ = 0;
  bool running_ = false;  // inside run(): a rise pauses the simulation
  uint64_t reads_ = 0, writes_ = 0, bus_errors_ = 0, irq_rises_ = 0;
};

}  // namespace npu::vp
