#include "npu/vp/server.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>

#include "npu/common/log.h"
#include "npu/regmap/npu_regs.h"
#include "npusim_vp.h"

namespace npu::vp {
namespace {

// The mailbox is shared with another machine's CPU: fields are read and written with atomic accesses,
// req_seq acquired (the request's fields were written before it) and ack_seq released (after the answer).
template <class T>
T load(const T& field, int order = __ATOMIC_RELAXED) {
  return __atomic_load_n(&field, order);
}
template <class T>
void store(T& field, T value, int order = __ATOMIC_RELAXED) {
  __atomic_store_n(&field, value, order);
}

uint64_t sim_time_ps() { return static_cast<uint64_t>(sc_core::sc_time_stamp().to_seconds() * 1e12 + 0.5); }

const char* op_name(uint32_t op) {
  switch (op) {
    case NPUSIM_VP_OP_READ32:
      return "READ32";
    case NPUSIM_VP_OP_WRITE32:
      return "WRITE32";
    case NPUSIM_VP_OP_RUN:
      return "RUN";
  }
  return "unknown";
}

}  // namespace

uint64_t mailbox_offset(uint64_t memory_bytes) { return memory_bytes - NPUSIM_VP_MAILBOX_BYTES; }

uint64_t shared_memory_bytes(uint64_t dram_bytes) {
  uint64_t bytes = 1;
  while (bytes < dram_bytes + NPUSIM_VP_MAILBOX_BYTES) bytes <<= 1;
  return bytes;
}

Result<ServeReport> serve(Device& device, IvshmemServer& server, uint64_t dram_bytes,
                          const ServeOptions& options) {
  static_assert(sizeof(npusim_vp_mailbox) <= NPUSIM_VP_MAILBOX_BYTES);
  if (server.memory_bytes() < shared_memory_bytes(dram_bytes))
    return make_error("the shared memory (" + std::to_string(server.memory_bytes()) +
                      " B) cannot hold the device memory and the mailbox");
  auto log = log::get("vp");
  auto* mb = reinterpret_cast<npusim_vp_mailbox*>(server.memory() + mailbox_offset(server.memory_bytes()));
  ServeReport report;
  bool running = false;
  // The acknowledgement watch: armed by an MSI-X, it fires when the line is still high and the guest has
  // sent nothing for options.ack_timeout since the MSI-X or its last request.
  using Clock = std::chrono::steady_clock;
  bool ack_watch = false;
  Clock::time_point quiet_since = Clock::now();
  uint64_t msix_watched = 0;  // the MSI-X that armed it
  // MSI-X on each rise of the line; RUN's "still high" case is raised below.
  device.set_interrupt_callback([&] {
    ++report.msix;
    ack_watch = options.ack_timeout.count() > 0;
    quiet_since = Clock::now();
    msix_watched = report.msix;
    server.interrupt_guest();
  });
  // Elaboration and time-zero initialisation, before the first request.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  if (!sc_core::sc_start_of_simulation_invoked()) sc_core::sc_start(sc_core::SC_ZERO_TIME);

  store(mb->version, NPUSIM_VP_VERSION);
  store(mb->dram_bytes, static_cast<__u64>(dram_bytes));
  store(mb->sim_time_ps, static_cast<__u64>(sim_time_ps()));
  store(mb->status, static_cast<__u32>(NPUSIM_VP_OK));
  store(mb->ack_seq, load(mb->req_seq), __ATOMIC_RELEASE);  // nothing pending from before we served
  store(mb->state, static_cast<__u32>(NPUSIM_VP_STATE_READY));
  store(mb->magic, NPUSIM_VP_MAGIC, __ATOMIC_RELEASE);
  log->info("serving: {} B of device memory, mailbox at BAR2 + 0x{:x}", dram_bytes,
            mailbox_offset(server.memory_bytes()));

  // Answers request `seq`: value, status and time first, ack_seq last.
  auto answer = [&](uint32_t seq, uint32_t value, uint32_t status) {
    store(mb->value, value);
    store(mb->status, status);
    store(mb->sim_time_ps, static_cast<__u64>(sim_time_ps()));
    store(mb->ack_seq, seq, __ATOMIC_RELEASE);
  };
  uint32_t run_seq = 0;  // the RUN being simulated (answered when it ends)
  sc_core::sc_time run_until;
  // Performs every request waiting in the mailbox (the guest posts one at a time); stops at a RUN that
  // has to simulate.
  auto take_requests = [&] {
    while (!running) {
      const uint32_t seq = load(mb->req_seq, __ATOMIC_ACQUIRE);
      if (seq == load(mb->ack_seq)) return;
      const uint32_t op = load(mb->op), offset = load(mb->offset);
      uint32_t value = load(mb->value);
      uint32_t status = NPUSIM_VP_OK;
      ++report.requests;
      quiet_since = Clock::now();
      switch (op) {
        case NPUSIM_VP_OP_READ32:
          ++report.reads;
          if (!device.read32(offset, value)) status = NPUSIM_VP_BUS_ERROR;
          break;
        case NPUSIM_VP_OP_WRITE32:
          ++report.writes;
          if (!device.write32(offset, value)) status = NPUSIM_VP_BUS_ERROR;
          break;
        case NPUSIM_VP_OP_RUN:
          ++report.runs;
          value = 0;
          // Still high: the guest is told again rather than the model run past an unserved interrupt.
          if (device.irq_high()) {
            ++report.msix;
            ack_watch = options.ack_timeout.count() > 0;
            msix_watched = report.msix;
            server.interrupt_guest();
          } else {
            running = true;
            run_seq = seq;
            run_until = sc_core::sc_time_stamp() + options.run_limit;
            continue;  // answered when the run ends
          }
          break;
        default:
          status = NPUSIM_VP_BAD_OP;
          value = 0;
          ++report.bad_ops;
          break;
      }
      if (status == NPUSIM_VP_BUS_ERROR) {
        ++report.bus_errors;
        log->warn("request {}: {} at 0x{:x} ({}): the register file answered a bus error", seq, op_name(op),
                  offset, regs::register_name(offset));
      } else if (status == NPUSIM_VP_BAD_OP) {
        log->warn("request {}: op {} is not a mailbox operation (READ32 1, WRITE32 2, RUN 3): BAD_OP", seq,
                  op);
      }
      answer(seq, value, status);
    }
  };

  for (;;) {
    // Running, the loop only looks (timeout 0) between steps; frozen, it sleeps until something happens.
    struct pollfd fds[3] = {
        {server.doorbell_fd(), POLLIN, 0}, {server.client_fd(), POLLIN, 0}, {options.stop_fd, POLLIN, 0}};
    // Frozen with the line high and the guest silent, it wakes when the acknowledgement is due.
    int timeout_ms = running ? 0 : -1;
    const bool watching = !running && ack_watch && device.irq_high();
    if (watching) {
      const auto left =
          std::chrono::ceil<std::chrono::milliseconds>(quiet_since + options.ack_timeout - Clock::now());
      timeout_ms = static_cast<int>(std::max<int64_t>(0, left.count()));
    }
    const int n = ::poll(fds, options.stop_fd >= 0 ? 3 : 2, timeout_ms);
    if (n < 0 && errno != EINTR) return make_error(std::string("poll: ") + std::strerror(errno));
    if (n > 0 && (fds[0].revents & POLLIN)) server.take_doorbell();
    // A request rung just before the end is still answered; the doorbell is not needed to see one.
    take_requests();
    if (n > 0 && options.stop_fd >= 0 && (fds[2].revents & POLLIN)) {
      report.reason = EndReason::STOPPED;
      break;
    }
    if (n > 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) && server.client_gone()) {
      report.reason = EndReason::CLIENT_GONE;
      report.client_gone_mid_request = running || load(mb->req_seq, __ATOMIC_ACQUIRE) != load(mb->ack_seq);
      break;
    }
    if (!running && ack_watch && !device.irq_high()) ack_watch = false;  // acknowledged
    if (!running && ack_watch && Clock::now() - quiet_since >= options.ack_timeout) {
      ack_watch = false;  // once per interrupt: a late answer is still served
      ++report.unacked_interrupts;
      const std::string warning = "the NPU interrupt (MSI-X " + std::to_string(msix_watched) +
                                  ") is still pending and the guest has sent no request for " +
                                  std::to_string(options.ack_timeout.count()) +
                                  " ms: is its interrupt handler running? (still serving)";
      if (options.on_unacked)
        options.on_unacked(warning);
      else
        log->warn("{}", warning);
    }
    if (running) {
      const Device::Step step = device.run(options.run_step);
      if (step == Device::Step::MORE && sc_core::sc_time_stamp() >= run_until) {
        ++report.runs_at_limit;
        log->warn("RUN {}: no interrupt within {} of simulated time; answered (a hung channel?)", run_seq,
                  options.run_limit.to_string());
        running = false;
        answer(run_seq, 0, NPUSIM_VP_OK);
      } else if (step != Device::Step::MORE) {
        running = false;
        log->debug("RUN {} ended at {} ps: {}", run_seq, sim_time_ps(),
                   step == Device::Step::IRQ ? "interrupt" : "nothing left to simulate");
        answer(run_seq, 0, NPUSIM_VP_OK);
      }
    }
  }
  report.running_at_end = running;
  store(mb->state, static_cast<__u32>(NPUSIM_VP_STATE_STOPPED), __ATOMIC_RELEASE);
  log->info("stopped: {}; {} requests ({} reads, {} writes, {} RUN), {} MSI-X",
            report.reason == EndReason::STOPPED ? "signal" : "the client disconnected", report.requests,
            report.reads, report.writes, report.runs, report.msix);
  return report;
}

}  // namespace npu::vp
