// Binds the portable driver to the simulated NPU: register bus and device memory through TLM initiator
// sockets, the interrupt line through the NPU's `irq` signal, and kernel services as SystemC processes and
// events in simulated time.
//
// Timing (npu.timing.mode). exact: the annotated delay of every access, and every Os::delay_ns, is
// waited at once. fast: temporal decoupling (TLM-2.0 LT with a quantum keeper): the calling thread adds
// the delay to its local time offset and runs on; it synchronises (waits out its offset) when it blocks
// (a wait queue, the interrupt thread between handler runs), before reading a register that moves with
// the device's progress (CH_PROGRESS, CH_STATUS, CYCLE), when the offset reaches npu.timing.quantum_ns,
// and at the end of the app. The offset goes with every access as the TLM delay,
// so the NPU dates a doorbell or preemption request at the driver's local time; wakes and now_ns() are
// at local time too. Reads see the device as of the kernel's time, up to one quantum early.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>

#include "npu/common/trace.h"
#include "npu/drv/hw.h"
#include "npu/sim/npu.h"

namespace npu::drv {

// The local time of the thread running ahead of the kernel (fast mode). Only one thread runs at a time
// and every wait of the driver's threads goes through this port after synchronising, so one offset
// (with the thread it belongs to) is enough; a thread that ended, or waited elsewhere, with time left
// loses it (its successor starts from the kernel's time).
class LocalTime {
 public:
  void configure(bool decoupled, const sc_core::sc_time& quantum) {
    decoupled_ = decoupled;
    quantum_ = quantum;
  }
  bool decoupled() const { return decoupled_; }
  // The calling thread's offset ahead of sc_time_stamp() (zero in exact mode).
  sc_core::sc_time offset();
  // Spends `t` of the calling thread's time: exact waits it; fast adds it to the offset and synchronises
  // at the quantum.
  void spend(const sc_core::sc_time& t);
  // Sets the calling thread's offset (after an access annotated it), synchronising at the quantum.
  void set_offset(const sc_core::sc_time& t);
  // Waits out the calling thread's offset.
  void sync();
  // Fast mode: `ns` (a thread's local time), or the latest time any thread read if that is later, so the
  // driver never sees time run backwards from one thread to another (a watchdog subtracting a start time
  // another thread took ahead of the kernel). Exact mode: `ns`.
  uint64_t monotonic(uint64_t ns) {
    if (!decoupled_) return ns;
    latest_ns_ = std::max(latest_ns_, ns);
    return latest_ns_;
  }

 private:
  bool mine() const;
  bool decoupled_ = false;
  sc_core::sc_time quantum_;
  sc_core::sc_time offset_;
  sc_core::sc_process_handle owner_;
  uint64_t latest_ns_ = 0;
};

class SimOs : public Os {
 public:
  explicit SimOs(LocalTime& time) : time_(time) {}
  uint64_t now_ns() const override;
  void delay_ns(uint64_t ns) override;
  std::unique_ptr<WaitQueue> make_wait_queue() override;
  void spawn(const std::string& name, std::function<void()> body) override;

 private:
  LocalTime& time_;
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
  // Waits out the calling thread's local time offset (fast mode; nothing in exact mode). The system
  // calls it when an app ends, so the run ends at the app's time.
  void sync() { time_.sync(); }

 private:
  bool transport(tlm_utils::simple_initiator_socket<SimPort>& socket, tlm::tlm_command cmd, uint64_t address,
                 void* data, uint64_t length);
  void irq_thread();

  uint64_t memory_size_;
  std::function<void()> handler_;
  trace::Tracer* tracer_ = nullptr;
  uint32_t register_track_ = 0, irq_track_ = 0;
  LocalTime time_;
  SimOs os_{time_};
};

}  // namespace npu::drv
