// The virtual platform's main loop (docs/vp-device.md): reads the mailbox that vp/abi/npusim_vp.h lays at
// the end of the ivshmem memory, performs each request on the Device, answers it, and runs the NPU after
// RUN, until the client (QEMU) disconnects or `stop_fd` becomes readable (the CLI's SIGINT/SIGTERM).
//
// RUN is simulated in steps of at most `run_step` and answered when it ends (the interrupt line is high,
// its MSI-X already raised, or nothing is left to simulate); between steps the loop watches the client
// and `stop_fd`, so a guest that dies or a signal ends a long run at once. The mailbox has one slot, so a
// second guest process waits for the RUN in flight: at most until the next interrupt. Simulated times
// depend only on the requests, never on wall time: a lone guest sees the same times run after run.
// A bad request (unknown op) is answered BAD_OP and a refused access BUS_ERROR; both are counted and
// logged (log `vp`), never fatal. An interrupt the guest leaves pending without a word for `ack_timeout`
// of wall-clock time is warned about once and counted (a driver whose handler never runs), not fatal.
// It does not build the NPU, write files or install signal handlers: the caller does.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <systemc>

#include "npu/common/result.h"
#include "npu/vp/device.h"
#include "npu/vp/ivshmem_server.h"

namespace npu::vp {

// How serving ended.
enum class EndReason { CLIENT_GONE, STOPPED };

struct ServeReport {
  EndReason reason = EndReason::CLIENT_GONE;
  uint64_t requests = 0, reads = 0, writes = 0, runs = 0;
  uint64_t bad_ops = 0, bus_errors = 0;
  uint64_t msix = 0;           // interrupts raised in the guest
  uint64_t runs_at_limit = 0;  // RUNs answered at ServeOptions::run_limit, the line still low
  // Times the interrupt line stayed high with no request from the guest for ServeOptions::ack_timeout
  // after the MSI-X (or the guest's last request): a driver that never acknowledges.
  uint64_t unacked_interrupts = 0;
  // The client left with a request unanswered (a RUN still simulating).
  bool client_gone_mid_request = false;
  bool running_at_end = false;  // RUN was still simulating when serving ended
};

struct ServeOptions {
  sc_core::sc_time run_step = sc_core::sc_time(20, sc_core::SC_US);
  // A RUN is answered after this much simulated time without an interrupt even when events remain (a
  // hung channel keeps the thermal monitor sampling forever): the guest's own timeout then decides.
  sc_core::sc_time run_limit = sc_core::sc_time(10, sc_core::SC_SEC);
  // Wall-clock time the interrupt line may stay high without a request from the guest before a warning
  // (log `vp`) and ServeReport::unacked_interrupts; serving goes on (the guest may still answer).
  // Zero: no watch.
  std::chrono::milliseconds ack_timeout{5000};
  // Where that warning goes (the CLI: a line on stderr); unset: the `vp` log.
  std::function<void(const std::string&)> on_unacked;
  int stop_fd = -1;
};

// The mailbox's place in the memory: its last NPUSIM_VP_MAILBOX_BYTES.
uint64_t mailbox_offset(uint64_t memory_bytes);
// The size of the shared memory for `dram_bytes` of device memory: the power of two that holds both it
// and the mailbox page (QEMU maps it as a PCI BAR).
uint64_t shared_memory_bytes(uint64_t dram_bytes);

// Writes the mailbox's device fields (READY), serves until the end and marks it STOPPED. The client must
// have been accepted already.
Result<ServeReport> serve(Device& device, IvshmemServer& server, uint64_t dram_bytes,
                          const ServeOptions& options = {});

}  // namespace npu::vp
