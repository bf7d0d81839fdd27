#include "npu/vp/device.h"

#include <algorithm>

#include "npu/common/log.h"
#include "npu/regmap/npu_regs.h"

namespace npu::vp {
namespace {
uint64_t now_ns() { return static_cast<uint64_t>(sc_core::sc_time_stamp().to_seconds() * 1e9 + 0.5); }
}  // namespace

Device::Device(sc_core::sc_module_name name, sim::Npu& npu)
    : sc_module(name), mmio_socket("mmio_socket"), mem_socket("mem_socket"), irq("irq"), npu_(npu) {
  SC_HAS_PROCESS(Device);
  mmio_socket.bind(npu.mmio);
  mem_socket.bind(npu.dram().host);
  irq.bind(npu.irq);
  SC_THREAD(access_thread);
  SC_METHOD(on_irq_rise);
  sensitive << irq.pos();
  dont_initialize();
}

void Device::set_tracer(trace::Tracer* tracer) {
  tracer_ = tracer;
  if (!tracer_) return;
  register_track_ = tracer_->track("driver", "registers");
  msix_track_ = tracer_->track("vp", "msix");
}

void Device::on_irq_rise() {
  ++irq_rises_;
  if (tracer_) tracer_->instant(msix_track_, "MSI-X vector 0", now_ns());
  if (on_rise_) on_rise_();
  if (running_) sc_core::sc_pause();
}

// The transaction as SimPort::transport makes it: the payload ends before the bus time is waited.
void Device::access_thread() {
  for (;;) {
    sc_core::wait(request_);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    {
      tlm::tlm_generic_payload gp;
      gp.set_command(req_write_ ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
      gp.set_address(req_offset_);
      gp.set_data_ptr(reinterpret_cast<unsigned char*>(&req_value_));
      gp.set_data_length(4);
      gp.set_streaming_width(4);
      gp.set_byte_enable_ptr(nullptr);
      gp.set_dmi_allowed(false);
      gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      mmio_socket->b_transport(gp, delay);
      req_ok_ = gp.is_response_ok();
    }
    sc_core::wait(delay);
    req_done_ = true;
    sc_core::sc_pause();
  }
}

bool Device::access(bool write, uint32_t offset, uint32_t& value) {
  req_write_ = write;
  req_offset_ = offset;
  req_value_ = write ? value : 0;
  req_ok_ = req_done_ = false;
  request_.notify(sc_core::SC_ZERO_TIME);
  // Ends at the thread's sc_pause(); a rise during a run() pauses earlier, so go on until it is done.
  while (!req_done_) sc_core::sc_start();
  if (!write) value = req_ok_ ? req_value_ : 0;
  if (!req_ok_) ++bus_errors_;
  return req_ok_;
}

bool Device::read32(uint32_t offset, uint32_t& value) {
  const bool ok = access(false, offset, value);
  ++reads_;
  static auto log = log::get("driver.regs");
  if (log->should_log(spdlog::level::trace))
    log->trace("read  {:<22} = 0x{:08x}{}", regs::register_name(offset), value, ok ? "" : " (bus error)");
  if (tracer_)
    tracer_->instant(register_track_, "read " + std::string(regs::register_name(offset)), now_ns(),
                     {{"offset", offset}, {"value", value}});
  return ok;
}

bool Device::write32(uint32_t offset, uint32_t value) {
  ++writes_;
  static auto log = log::get("driver.regs");
  if (log->should_log(spdlog::level::trace))
    log->trace("write {:<22} = 0x{:08x}", regs::register_name(offset), value);
  if (tracer_)
    tracer_->instant(register_track_, "write " + std::string(regs::register_name(offset)), now_ns(),
                     {{"offset", offset}, {"value", value}});
  const bool ok = access(true, offset, value);
  if (!ok && log->should_log(spdlog::level::trace))
    log->trace("write {:<22} refused (bus error)", regs::register_name(offset));
  return ok;
}

Device::Step Device::run(const sc_core::sc_time& limit) {
  if (npu_.irq.read()) return Step::IRQ;
  if (!sc_core::sc_pending_activity()) return Step::IDLE;
  // Up to `limit`, or to the next event when it lies beyond (an idle stretch costs no wall time), so every
  // call makes progress; starvation ends it at the last event, a rise at once (on_irq_rise).
  running_ = true;
  sc_core::sc_start(std::max(limit, sc_core::sc_time_to_pending_activity()), sc_core::SC_EXIT_ON_STARVATION);
  running_ = false;
  if (npu_.irq.read()) return Step::IRQ;
  return sc_core::sc_pending_activity() ? Step::MORE : Step::IDLE;
}

}  // namespace npu::vp
