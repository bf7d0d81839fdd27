// One execution channel: a command processor feeding three engines, a banked scratchpad SRAM, a MAC-array
// compute core (TLM or RTL, see ComputeCore) and a vector unit. Its registers are the CH_* block of the
// register map.
//
// Pipeline. The command processor fetches 128-byte descriptors from device memory in order, decodes and
// validates them, asks the hazard scoreboard for each one's dependencies (RAW/WAR/WAW on SRAM byte ranges
// and on device-memory ranges) and queues it for its engine: DMA_IN to dma_in, DMA_OUT to dma_out, CONV_*,
// FILL and the vector-unit opcodes to compute. Each engine runs its queue in order, starting a descriptor
// only when every descriptor it depends on has completed, so DMA and compute overlap when the compiler
// double-buffers and the bytes are those of sequential execution. BARRIER and FENCE wait for every earlier
// descriptor; PREEMPT_POINT and NOP take no engine. Time is advanced once per descriptor, never per clock.
//
// Preemption (CH_CTRL bit0): the command processor issues nothing more; engines finish the descriptors
// already started and every earlier one (so the completed descriptors form a prefix), later queued ones
// are dropped; then the live SRAM is saved by DMA to CH_SAVE_BASE: a kSaveAreaHeader-byte header (see
// save_area.h) followed by the bytes of the live ranges. Live = the ranges of the latest PREEMPT_POINT
// before the resume point plus whatever later completed descriptors wrote; without a PREEMPT_POINT, SRAM
// from 0 to the highest byte written by this command buffer. CH_PROGRESS is the resume index,
// CH_SAVE_BYTES the bytes saved, then PREEMPTED is raised. A doorbell with RESTORE first DMAs the saved
// bytes back, then starts at CH_CMD_START. Save and restore take DMA setup, time through the shared DRAM
// and energy, and count towards the command buffer's cycles and CH_ENERGY.
//
// Reset (CH_CTRL bit1, or GLOBAL_CTRL): aborts at once, even while busy — every engine wait is
// interruptible and a generation number makes late wake-ups drop their results, so no stale completion is
// ever raised; the channel is IDLE with its interrupt status clear and accepts a new doorbell at once
// (an RTL tile in flight finishes its clocking first, see ComputeCore).
//
// Faults (FaultKind) armed through arm_fault() strike at a descriptor index: HANG stops the command
// processor (BUSY forever, no interrupt until reset); DMA_ERROR fails the first DMA from that index with
// DMA_FAULT; SRAM_ECC is an upset in the SRAM the first descriptor from that index reads: with ECC
// (npu.channel.sram.ecc) it fails that descriptor with SRAM_ECC; both raise ERROR with CH_ERROR_INDEX.
// Without ECC nothing notices: bit `sram_bit` of the first byte the descriptor reads is flipped in the SRAM
// and the descriptor runs on it (silent data corruption; the command buffer completes). THERMAL_RUNAWAY calls
// the runaway callback (the Npu heats the junction).
//
// Timing-only (npu.functional = false, or the doorbell's TIMING_ONLY bit): every descriptor takes its time
// and energy but no byte of SRAM or device memory is read or written (the save-area header excepted).
//
// Fast mode (npu.timing.mode=fast, `fast` below): a descriptor fetch (DRAM latency, its 128 bytes through
// the port, decode) and a DMA descriptor (setup, latency and all its bytes, sharing the DRAM port with
// the other transfers in flight through Dram::share) each take one wait instead of one per step and per
// arbitration quantum. A DMA with a fault armed on it, a gather, and context save and restore keep the
// exact path.
//
// Not modelled: descriptor prefetch beyond one fetch at a time, SRAM port contention between engines,
// DMA reads of the command buffer being written by the same channel.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <systemc>
#include <vector>

#include "npu/common/enum_table.h"
#include "npu/common/stats.h"
#include "npu/common/trace.h"
#include "npu/regmap/descriptors.h"
#include "npu/regmap/npu_regs.h"
#include "npu/sim/clock.h"
#include "npu/sim/core/compute_core.h"
#include "npu/sim/dram.h"
#include "npu/sim/npu_config.h"
#include "npu/sim/power/power_model.h"
#include "npu/sim/scoreboard.h"
#include "npu/sim/sram.h"
#include "npu/sim/vector_unit.h"

namespace npu::sim {

enum class Engine : uint8_t { DMA_IN = 0, COMPUTE = 1, DMA_OUT = 2 };
inline constexpr size_t kEngines = 3;
inline constexpr enums::Entry<Engine> kEngineNames[] = {
    {Engine::DMA_IN, "dma_in"}, {Engine::COMPUTE, "compute"}, {Engine::DMA_OUT, "dma_out"}};
constexpr const auto& enum_table(Engine) { return kEngineNames; }
inline const char* to_string(Engine e) { return enums::to_string(e); }

class Channel : public sc_core::sc_module {
 public:
  // `functional` = npu.functional (a doorbell may still ask for timing-only); `fast` = npu.timing.mode
  // is fast.
  Channel(sc_core::sc_module_name name, uint32_t index, const ChannelConfig& cfg, bool functional, bool fast,
          const ClockDomain& clock, Dram& dram, std::unique_ptr<ComputeCore> core, PowerModel& power,
          stats::Registry& stats);

  // Register block access (offset relative to channel_base); called by the register file. `delay`: how
  // far ahead of the kernel the writer is (TLM annotated delay; zero in exact mode): a doorbell or
  // preemption request takes effect then.
  uint32_t read_reg(uint32_t offset) const;
  void write_reg(uint32_t offset, uint32_t value, const sc_core::sc_time& delay = sc_core::SC_ZERO_TIME);
  // A write-1-to-clear register (CH_IRQ_STATUS): clears exactly `bits`.
  void clear_reg(uint32_t offset, uint32_t bits);

  uint32_t irq_status() const { return irq_status_; }
  bool busy() const { return state_ == regs::ChannelState::BUSY; }
  // Called whenever irq_status changes, so the interrupt controller can update the line.
  void on_irq_change(std::function<void()> cb) { irq_changed_ = std::move(cb); }
  // Called at every doorbell, before any work (the thermal monitor resumes sampling).
  void on_activity(std::function<void()> cb) { activity_ = std::move(cb); }
  // Called when a command buffer starts (true) and when it ends, completed, preempted, failed or reset
  // (false).
  void on_run(std::function<void(bool running)> cb) { run_changed_ = std::move(cb); }
  // Called when an armed THERMAL_RUNAWAY fault strikes.
  void on_thermal_runaway(std::function<void()> cb) { runaway_ = std::move(cb); }
  const ComputeCore& core() const { return *core_; }
  // Records spans on tracks `<name>` (command buffers, save/restore) and `<name>.{dma_in,compute,dma_out}`
  // (one per descriptor); nullptr = off.
  void set_tracer(trace::Tracer* tracer);

  // Arms `kind` to strike at descriptor `at_descriptor` (or the first suitable one after it). With
  // `next_buffer_only` it is disarmed when the next command buffer ends without reaching it; otherwise it
  // waits for the first command buffer that does.
  // `sram_bit`: the bit an SRAM_ECC upset flips when the SRAM has no ECC.
  void arm_fault(regs::FaultKind kind, uint32_t at_descriptor, bool next_buffer_only, uint32_t sram_bit = 7);

  // Brings derived stats (idle cycles, utilisation) up to the present time.
  // window_cycles: the NPU's execution window (cycles with any command buffer in flight) so far.
  void update_stats(double elapsed_cycles, double window_cycles);

 private:
  struct Op {
    uint32_t index = 0;
    desc::Raw raw{};
    desc::Opcode opcode = desc::Opcode::NOP;
    Footprint fp;
    std::vector<uint32_t> deps;
    regs::FaultKind fault = regs::FaultKind::NONE;
    uint64_t epoch = 0;  // of the command buffer it belongs to
  };
  struct EngineState {
    std::deque<Op> queue;
    sc_core::sc_event changed;
    uint32_t track = 0;
    uint64_t* busy_cycles = nullptr;
    uint64_t* stall_cycles = nullptr;
    uint64_t* idle_cycles = nullptr;
    uint64_t* descriptors = nullptr;
    double* utilisation = nullptr;
  };
  struct PointRecord {
    uint32_t index = 0;     // descriptor index of the PREEMPT_POINT
    bool restored = false;  // the declared set restored from a save area, in force from the start
    std::vector<SramRange> ranges;
  };
  struct WriteRecord {
    uint32_t index;
    std::vector<SramRange> ranges;
  };
  // State of the command buffer in progress.
  struct Run {
    uint64_t epoch = 0;
    bool functional = true;
    uint32_t start = 0;
    int64_t max_started = -1;  // highest descriptor index an engine has started
    bool stopping = false;     // preempting: no engine starts a descriptor beyond max_started
    std::optional<uint32_t> error_index;
    regs::ChannelError error = regs::ChannelError::NONE;
    std::set<uint32_t> completed_ahead;  // completed indices beyond progress_
    std::vector<PointRecord> points;
    std::vector<WriteRecord> writes;
    uint64_t restored_high_water = 0;
    double energy_start_pj = 0;
    sc_core::sc_time start_time;
  };
  struct ArmedFault {
    regs::FaultKind kind = regs::FaultKind::NONE;
    uint32_t at = 0;
    bool next_buffer_only = false;
    uint32_t sram_bit = 7;
  };

  // Command processor.
  void command_processor();
  void run_command_buffer();
  bool fetch(uint32_t index, desc::Raw* raw);
  regs::ChannelError decode(const desc::Raw& raw, Op* op) const;
  bool issue(Op op, Engine e);
  void wait_for_drain();
  void cancel_queued_after(int64_t index);
  void finish_run(bool preempted);
  regs::FaultKind fault_for(const Op& op);
  // An SRAM_ECC upset striking `op`: SRAM_ECC with ECC; without, flips the armed bit of the first byte
  // `op` reads (functional runs) and returns NONE.
  regs::ChannelError sram_upset(const Op& op);

  // Engines.
  void dma_in_engine() { engine_loop(Engine::DMA_IN); }
  void compute_engine() { engine_loop(Engine::COMPUTE); }
  void dma_out_engine() { engine_loop(Engine::DMA_OUT); }
  void engine_loop(Engine e);
  bool may_start(const Op& op) const;
  regs::ChannelError execute(const Op& op);
  regs::ChannelError dma(const Op& op, const desc::Dma& d, bool to_sram);
  regs::ChannelError dma_gather(const Op& op, const desc::DmaGather& d);
  regs::ChannelError conv_int8(const Op& op, const desc::Conv& d);
  regs::ChannelError conv_fp32(const Op& op, const desc::Conv& d);
  regs::ChannelError fill(const Op& op, const desc::Fill& d);
  regs::ChannelError vector(const Op& op);
  void complete(const Op& op, regs::ChannelError error);

  // Context save and restore.
  const PointRecord* point_before(uint32_t resume) const;
  std::vector<SramRange> live_ranges(uint32_t resume) const;
  regs::ChannelError save_context(uint32_t resume);
  regs::ChannelError restore_context();

  // Time: waits that a reset interrupts; false when the work of `epoch` was aborted (before or during).
  bool wait_cycles(uint64_t cycles, uint64_t epoch);
  bool wait_for(const sc_core::sc_time& t, uint64_t epoch);
  bool aborted() const { return run_.epoch != epoch_; }
  double ns_per_dma_byte() const;
  uint64_t cycles_between(const sc_core::sc_time& a, const sc_core::sc_time& b) const;
  void abort();
  void raise(uint32_t bits);
  void span(uint32_t track, const std::string& name, const sc_core::sc_time& start, nlohmann::json args);

  uint32_t index_;
  ChannelConfig cfg_;
  bool functional_default_;
  bool fast_;
  const ClockDomain& clock_;
  Dram& dram_;
  std::unique_ptr<ComputeCore> core_;
  PowerModel& power_;
  PowerModel::Component power_id_;
  Sram sram_;
  VectorUnit vector_unit_;
  Scoreboard scoreboard_;
  std::array<EngineState, kEngines> engines_;
  Run run_;
  ArmedFault fault_;
  uint32_t struck_sram_bit_ = 7;  // of the SRAM_ECC upset that struck last
  std::function<void()> irq_changed_, activity_, runaway_;
  std::function<void(bool)> run_changed_;
  trace::Tracer* tracer_ = nullptr;
  uint32_t track_ = 0;

  // Abort machinery: a reset bumps epoch_ and notifies abort_.
  uint64_t epoch_ = 0;
  sc_core::sc_event abort_;
  sc_core::sc_event doorbell_, preempt_, completion_;
  bool start_pending_ = false;
  bool restore_pending_ = false;
  bool timing_only_pending_ = false;

  // Registers.
  uint64_t cmd_base_ = 0;
  uint32_t cmd_count_ = 0;
  uint32_t cmd_start_ = 0;
  uint64_t save_base_ = 0;
  uint32_t save_bytes_ = 0;
  regs::ChannelState state_ = regs::ChannelState::IDLE;
  regs::ChannelError error_ = regs::ChannelError::NONE;
  uint32_t error_index_ = 0;
  uint32_t progress_ = 0;
  uint64_t last_cycles_ = 0;
  uint64_t last_energy_pj_ = 0;
  uint32_t irq_status_ = 0;
  bool preempt_requested_ = false;

  uint64_t& busy_cycles_;
  uint64_t& idle_cycles_;
  uint64_t& compute_cycles_;
  uint64_t& dma_cycles_;
  uint64_t& fetch_cycles_;
  uint64_t& issue_stall_cycles_;
  uint64_t& macs_;
  uint64_t& dma_bytes_in_;
  uint64_t& dma_bytes_out_;
  uint64_t& bank_conflict_cycles_;
  uint64_t& descriptors_;
  uint64_t& jobs_;
  uint64_t& preemptions_;
  uint64_t& resets_;
  uint64_t& errors_;
  uint64_t& faults_;
  uint64_t& save_bytes_total_;
  uint64_t& restore_bytes_total_;
  uint64_t& save_cycles_;
  uint64_t& restore_cycles_;
  double& utilisation_;
  double& window_utilisation_;
};

}  // namespace npu::sim
