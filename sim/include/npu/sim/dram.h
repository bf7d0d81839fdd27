// Device memory (DRAM): sparse backing store plus a shared-bandwidth timing model. The host reaches it
// through the `host` TLM target socket (loosely timed: the payload is copied and the transfer time
// annotated); DMA engines call transfer() from their thread, which arbitrates all channels round-robin
// in `arbitration_bytes` quanta, so two streaming channels each get about half the bandwidth.
// Stats: dma_bytes, host bytes, busy_ns, bandwidth_gbps (average DMA bandwidth used since time 0),
// utilisation (busy over elapsed). Not modelled: banks, row buffers, refresh.
// The data normally lives in a sparse page map; use_external() puts it in memory the caller owns instead
// (the virtual platform's shared-memory BAR, which a QEMU guest writes directly): same addresses, same
// timing, but accesses made there by others are neither timed nor counted.
#pragma once

#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <memory>
#include <systemc>
#include <tlm>
#include <unordered_map>
#include <vector>

#include "npu/common/stats.h"
#include "npu/sim/npu_config.h"

namespace npu::sim {

class Dram : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Dram> host;

  // `fast`: the port also serves share() (npu.timing.mode=fast).
  Dram(sc_core::sc_module_name name, const DramConfig& cfg, stats::Registry& stats, bool fast = false);

  uint64_t size() const { return size_; }
  bool in_range(uint64_t addr, uint64_t len) const { return addr <= size_ && len <= size_ - addr; }

  // Untimed data access (the caller accounts time). Unwritten memory reads as zero.
  void read(uint64_t addr, void* dst, uint64_t len) const;
  void write(uint64_t addr, const void* src, uint64_t len);

  // From now on the data is the size() bytes at `base` (mapped, writable, zero where never written), which
  // must outlive this Dram; what was written before is copied there first. nullptr is refused (false).
  bool use_external(uint8_t* base);
  bool external() const { return external_ != nullptr; }

  // Blocks the calling SC_THREAD for the time `bytes` take through the shared DRAM port, given that
  // the requester itself cannot go faster than `requester_ns_per_byte`. Returns false, early, when
  // `abort` is notified meanwhile (the quantum in progress keeps the port booked).
  // A Dram built `fast` serves it with share() (one wait).
  bool transfer(uint64_t bytes, double requester_ns_per_byte, const sc_core::sc_event* abort = nullptr);

  // Fast mode (npu.timing.mode=fast): the whole transfer in one wait. The transfer asks for the port
  // `before` + the latency from now, and is then arbitrated as transfer() arbitrates, quantum by
  // quantum, but in a plain loop over the transfers in flight (each books its next quantum when its
  // previous one is done, the earliest first) instead of a SystemC wait per quantum. The schedule is
  // recomputed whenever a transfer joins or leaves; the caller wakes `tail` after its last byte. Returns
  // false, early, when `abort` is notified (the transfer leaves the port; quanta booked stay booked).
  bool share(uint64_t bytes, double requester_ns_per_byte, const sc_core::sc_time& before,
             const sc_core::sc_time& tail, const sc_core::sc_event* abort);

  // Brings the average-bandwidth stats up to the present time: since time 0, and over `window_ns`, the
  // NPU's execution window (time with any command buffer in flight).
  void update_stats(double window_ns);

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  // Fast mode's port: the transfers in flight, arbitrated in a loop (share()).
  struct Flow {
    uint64_t seq = 0;        // arrival order: breaks ties between requests at the same time
    uint64_t remaining = 0;  // bytes not yet booked
    double ns_per_byte = 0;  // the requester's pace
    double ready_ns = 0;     // when it books its next quantum
    double done_ns = 0;      // when its last booked quantum is done
    sc_core::sc_time tail;
    sc_core::sc_event* done = nullptr;
    bool woken = false;  // its end was reached and its requester notified
  };
  // Books, in order, every quantum of flows_ asked for before now (busy_ns_ counts their port time).
  void commit();
  // Wakes the requesters whose transfers have ended by now, then plans (on a copy) until the next end
  // and notifies next_end_ for it.
  void settle();
  bool fast_ = false;
  std::vector<Flow> flows_, plan_;
  double free_ns_ = 0;  // the port's next free time (fast mode)
  uint64_t next_seq_ = 0;
  sc_core::sc_event next_end_;
  static constexpr uint64_t kPageBytes = 64 * 1024;
  uint8_t* page(uint64_t index);

  DramConfig cfg_;
  uint64_t size_;
  double ns_per_byte_;
  // The port's time for a whole arbitration quantum, built once (constructing an sc_time is costly).
  sc_core::sc_time quantum_port_time_;
  sc_core::sc_time latency_;
  sc_core::sc_time next_free_;
  std::unordered_map<uint64_t, std::unique_ptr<uint8_t[]>> pages_;
  uint8_t* external_ = nullptr;  // use_external(): the whole memory, pages_ unused
  uint64_t& bytes_read_;
  uint64_t& bytes_written_;
  uint64_t& dma_bytes_;
  double& busy_ns_;
  double& bandwidth_used_;
  double& utilisation_;
  double& window_bandwidth_;
  double& window_utilisation_;
};

}  // namespace npu::sim
