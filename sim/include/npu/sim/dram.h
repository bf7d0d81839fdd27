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

  Dram(sc_core::sc_module_name name, const DramConfig& cfg, stats::Registry& stats);

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
  bool transfer(uint64_t bytes, double requester_ns_per_byte, const sc_core::sc_event* abort = nullptr);

  // Brings the average-bandwidth stats up to the present time: since time 0, and over `window_ns`, the
  // NPU's execution window (time with any command buffer in flight).
  void update_stats(double window_ns);

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  static constexpr uint64_t kPageBytes = 64 * 1024;
  uint8_t* page(uint64_t index);

  DramConfig cfg_;
  uint64_t size_;
  double ns_per_byte_;
  // The port's time for a whole arbitration quantum, built once (constructing an sc_time is costly).
  sc_core::sc_time quantum_port_time_;
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
