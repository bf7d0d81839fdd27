#include "npu/drv/port/sim_port.h"

#include "npu/common/log.h"
#include "npu/regmap/npu_regs.h"

namespace npu::drv {
namespace {

// A thread being unwound (its simulation was abandoned at a time limit) may not wait: SystemC forbids
// it, and no simulated time is left to spend. Destructors that charge time then just return.
bool unwinding() {
  const sc_core::sc_process_handle h = sc_core::sc_get_current_process_handle();
  return h.valid() && h.is_unwinding();
}

// Nor may code outside every simulated thread: a destructor that runs after the run (a scenario app's
// loaded model freeing its buffers) has no simulated time to spend either.
bool no_time_to_spend() { return !sc_core::sc_get_current_process_handle().valid() || unwinding(); }

class SimWaitQueue : public WaitQueue {
 public:
  explicit SimWaitQueue(LocalTime& time) : time_(time) {}
  void wait() override {
    if (unwinding()) return;
    time_.sync();
    sc_core::wait(event_);
  }
  bool wait_for(uint64_t timeout_ns) override {
    if (unwinding()) return false;
    time_.sync();
    sc_core::wait(sc_core::sc_time(static_cast<double>(timeout_ns), sc_core::SC_NS), event_);
    return !sc_core::timed_out();
  }
  // Delta notification: a waker never runs a waiter inside its own call stack. A waker running ahead of
  // the kernel (fast mode) wakes at its local time.
  void wake_all() override {
    if (time_.decoupled() && !no_time_to_spend()) {
      event_.notify(time_.offset());
    } else {
      event_.notify(sc_core::SC_ZERO_TIME);
    }
  }

 private:
  LocalTime& time_;
  sc_core::sc_event event_;
};

}  // namespace

bool LocalTime::mine() const { return owner_ == sc_core::sc_get_current_process_handle(); }

sc_core::sc_time LocalTime::offset() {
  if (!decoupled_ || offset_ == sc_core::SC_ZERO_TIME || !mine()) return sc_core::SC_ZERO_TIME;
  return offset_;
}

void LocalTime::set_offset(const sc_core::sc_time& t) {
  owner_ = sc_core::sc_get_current_process_handle();
  offset_ = t;
  if (offset_ >= quantum_) sync();
}

void LocalTime::spend(const sc_core::sc_time& t) {
  if (!decoupled_) {
    sc_core::wait(t);
    return;
  }
  set_offset(offset() + t);
}

void LocalTime::sync() {
  if (!decoupled_ || no_time_to_spend()) return;
  const sc_core::sc_time t = offset();
  offset_ = sc_core::SC_ZERO_TIME;
  if (t != sc_core::SC_ZERO_TIME) sc_core::wait(t);
}

uint64_t SimOs::now_ns() const {
  const auto t = static_cast<uint64_t>((sc_core::sc_time_stamp() + time_.offset()).to_seconds() * 1e9 + 0.5);
  return time_.monotonic(t);
}

void SimOs::delay_ns(uint64_t ns) {
  if (ns && !no_time_to_spend()) time_.spend(sc_core::sc_time(static_cast<double>(ns), sc_core::SC_NS));
}

std::unique_ptr<WaitQueue> SimOs::make_wait_queue() { return std::make_unique<SimWaitQueue>(time_); }

void SimOs::spawn(const std::string& name, std::function<void()> body) {
  sc_core::sc_spawn_options options;
  sc_core::sc_spawn(std::move(body), sc_core::sc_gen_unique_name(name.c_str()), &options);
}

SimPort::SimPort(sc_core::sc_module_name name, sim::Npu& npu)
    : sc_module(name),
      mmio_socket("mmio_socket"),
      mem_socket("mem_socket"),
      irq("irq"),
      memory_size_(npu.dram().size()) {
  SC_HAS_PROCESS(SimPort);
  time_.configure(npu.config().timing.fast(),
                  sc_core::sc_time(npu.config().timing.quantum_ns, sc_core::SC_NS));
  mmio_socket.bind(npu.mmio);
  mem_socket.bind(npu.dram().host);
  irq.bind(npu.irq);
  SC_THREAD(irq_thread);
}

bool SimPort::transport(tlm_utils::simple_initiator_socket<SimPort>& socket, tlm::tlm_command cmd,
                        uint64_t address, void* data, uint64_t length) {
  // Exact: starts at zero and is waited below. Fast: the thread's local offset, so the target dates
  // the access at the thread's local time.
  sc_core::sc_time delay = time_.decoupled() ? time_.offset() : sc_core::SC_ZERO_TIME;
  bool ok = false;
  {
    // The payload (its extension array is on the heap) ends before the wait: a thread parked there for
    // good would otherwise hold it forever.
    tlm::tlm_generic_payload gp;
    gp.set_command(cmd);
    gp.set_address(address);
    gp.set_data_ptr(static_cast<unsigned char*>(data));
    gp.set_data_length(static_cast<unsigned int>(length));
    gp.set_streaming_width(static_cast<unsigned int>(length));
    gp.set_byte_enable_ptr(nullptr);
    gp.set_dmi_allowed(false);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    socket->b_transport(gp, delay);
    ok = gp.is_response_ok();
  }
  if (time_.decoupled()) {
    if (!no_time_to_spend()) time_.set_offset(delay);
  } else if (!unwinding()) {
    sc_core::wait(delay);
  }
  return ok;
}

namespace {
uint64_t now_ns() { return static_cast<uint64_t>(sc_core::sc_time_stamp().to_seconds() * 1e9 + 0.5); }
}  // namespace

void SimPort::set_tracer(trace::Tracer* tracer) {
  tracer_ = tracer;
  if (!tracer_) return;
  register_track_ = tracer_->track("driver", "registers");
  irq_track_ = tracer_->track("driver", "irq");
}

namespace {
// Registers whose value moves with the device's progress: a read running ahead of the kernel (fast mode)
// synchronises first, so it sees the device at the driver's local time (a scheduler deciding from
// CH_PROGRESS, a poll of CH_STATUS). Configuration and latched status (IRQ_STATUS is read by the
// interrupt handler, which starts synchronised) need not.
bool live_register(uint32_t offset) {
  if (offset == regs::CYCLE_LO || offset == regs::CYCLE_HI) return true;
  if (offset < regs::kChannelBase) return false;
  const uint32_t r = (offset - regs::kChannelBase) % regs::kChannelStride;
  return r == regs::CH_PROGRESS || r == regs::CH_STATUS;
}
}  // namespace

uint32_t SimPort::read32(uint32_t offset) {
  uint32_t v = 0;
  if (time_.decoupled() && live_register(offset)) time_.sync();
  transport(mmio_socket, tlm::TLM_READ_COMMAND, offset, &v, 4);
  static auto log = log::get("driver.regs");
  // The name is built only for a trace line: register accesses are on every job's path.
  if (log->should_log(spdlog::level::trace))
    log->trace("read  {:<22} = 0x{:08x}", regs::register_name(offset), v);
  if (tracer_)
    // At the value's arrival, as the log line: appended in time order, so the track never runs backwards.
    tracer_->instant(register_track_, "read " + std::string(regs::register_name(offset)), now_ns(),
                     {{"offset", offset}, {"value", v}});
  return v;
}

void SimPort::write32(uint32_t offset, uint32_t value) {
  static auto log = log::get("driver.regs");
  if (log->should_log(spdlog::level::trace))
    log->trace("write {:<22} = 0x{:08x}", regs::register_name(offset), value);
  if (tracer_)
    tracer_->instant(register_track_, "write " + std::string(regs::register_name(offset)), now_ns(),
                     {{"offset", offset}, {"value", value}});
  transport(mmio_socket, tlm::TLM_WRITE_COMMAND, offset, &value, 4);
}

bool SimPort::read(uint64_t address, void* dst, uint64_t length) {
  // TLM payload lengths are 32-bit: split huge transfers.
  auto* p = static_cast<uint8_t*>(dst);
  while (length) {
    const uint64_t n = std::min<uint64_t>(length, 1u << 30);
    if (!transport(mem_socket, tlm::TLM_READ_COMMAND, address, p, n)) return false;
    p += n;
    address += n;
    length -= n;
  }
  return true;
}

bool SimPort::write(uint64_t address, const void* src, uint64_t length) {
  auto* p =
      static_cast<uint8_t*>(const_cast<void*>(src));  // TLM payloads are non-const; write does not modify
  while (length) {
    const uint64_t n = std::min<uint64_t>(length, 1u << 30);
    if (!transport(mem_socket, tlm::TLM_WRITE_COMMAND, address, p, n)) return false;
    p += n;
    address += n;
    length -= n;
  }
  return true;
}

void SimPort::irq_thread() {
  for (;;) {
    if (!irq.read() || !handler_) {
      sc_core::wait(irq.posedge_event());
      continue;
    }
    const uint64_t start = now_ns();
    handler_();
    time_.sync();
    if (tracer_) tracer_->span(irq_track_, "interrupt handler", start, now_ns() - start);
    sc_core::wait(sc_core::SC_ZERO_TIME);  // let the line settle before sampling it again
  }
}

}  // namespace npu::drv
