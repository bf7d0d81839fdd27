// The channel's registers, command processor, engine scheduling, completion and context save/restore.
// What each descriptor does on its engine is in channel_exec.cpp.
#include "npu/sim/channel.h"

#include <algorithm>

#include "npu/common/log.h"
#include "npu/sim/save_area.h"

namespace npu::sim {

using regs::ChannelError;
using regs::ChannelState;
using regs::FaultKind;

namespace {

std::string stat(const sc_core::sc_module& m, const std::string& leaf) {
  return std::string(m.name()) + "." + leaf;
}

uint64_t to_ns(const sc_core::sc_time& t) { return static_cast<uint64_t>(t.to_seconds() * 1e9 + 0.5); }

}  // namespace

Channel::Channel(sc_core::sc_module_name name, uint32_t index, const ChannelConfig& cfg, bool functional,
                 bool fast, const ClockDomain& clock, Dram& dram, std::unique_ptr<ComputeCore> core,
                 PowerModel& power, stats::Registry& stats)
    : sc_module(name),
      index_(index),
      cfg_(cfg),
      functional_default_(functional),
      fast_(fast),
      clock_(clock),
      dram_(dram),
      core_(std::move(core)),
      power_(power),
      power_id_(power.component(this->name())),
      sram_(static_cast<uint64_t>(cfg.sram_kib) * 1024, cfg.sram_banks, cfg.sram_bank_bytes_per_cycle),
      vector_unit_(VectorUnitConfig{cfg.vector_lanes, cfg.fp32_macs_per_cycle, cfg.vector_pipeline_cycles}),
      busy_cycles_(
          stats.counter(stat(*this, "busy_cycles"), "cycles", "Cycles between doorbell and completion")),
      idle_cycles_(stats.counter(stat(*this, "idle_cycles"), "cycles",
                                 "Elapsed cycles with no command buffer in progress (update_stats)")),
      compute_cycles_(stats.counter(stat(*this, "compute_cycles"), "cycles",
                                    "Cycles the compute engine (MAC array, vector unit, FILL) was busy")),
      dma_cycles_(stats.counter(stat(*this, "dma_cycles"), "cycles",
                                "Cycles the dma_in and dma_out engines were busy (summed)")),
      fetch_cycles_(stats.counter(stat(*this, "cmd.fetch_cycles"), "cycles",
                                  "Cycles the command processor spent fetching and decoding descriptors")),
      issue_stall_cycles_(stats.counter(stat(*this, "cmd.stall_cycles"), "cycles",
                                        "Cycles the command processor waited for queue space or a barrier")),
      macs_(stats.counter(stat(*this, "macs"), "MAC", "Multiply-accumulates performed")),
      dma_bytes_in_(stats.counter(stat(*this, "dma.bytes_in"), "B", "Bytes DMA'd into SRAM")),
      dma_bytes_out_(stats.counter(stat(*this, "dma.bytes_out"), "B", "Bytes DMA'd out of SRAM")),
      bank_conflict_cycles_(
          stats.counter(stat(*this, "sram.bank_conflict_cycles"), "cycles",
                        "Extra DMA cycles lost to rows of one cycle falling in the same SRAM bank")),
      descriptors_(stats.counter(stat(*this, "descriptors"), "", "Descriptors completed")),
      jobs_(stats.counter(stat(*this, "command_buffers"), "", "Command buffers completed")),
      preemptions_(stats.counter(stat(*this, "preemptions"), "", "Preemptions honoured (context saved)")),
      resets_(stats.counter(stat(*this, "resets"), "", "Channel resets")),
      errors_(stats.counter(stat(*this, "errors"), "", "Command buffers ended by an error")),
      faults_(stats.counter(stat(*this, "faults_injected"), "", "Injected faults that struck")),
      save_bytes_total_(stats.counter(stat(*this, "save.bytes"), "B", "SRAM bytes saved by preemptions")),
      restore_bytes_total_(stats.counter(stat(*this, "restore.bytes"), "B", "SRAM bytes restored on resume")),
      save_cycles_(stats.counter(stat(*this, "save.cycles"), "cycles", "Cycles spent saving contexts")),
      restore_cycles_(
          stats.counter(stat(*this, "restore.cycles"), "cycles", "Cycles spent restoring contexts")),
      utilisation_(stats.value(stat(*this, "utilisation"), "",
                               "Whole run: compute-engine busy cycles over elapsed cycles since time 0")),
      window_utilisation_(stats.value(stat(*this, "window_utilisation"), "",
                                      "Compute-engine busy cycles over the NPU's execution window "
                                      "(npu.execution_window_ns: any command buffer in flight)")) {
  for (size_t e = 0; e < kEngines; ++e) {
    const std::string p = std::string(to_string(static_cast<Engine>(e))) + ".";
    EngineState& es = engines_[e];
    es.busy_cycles = &stats.counter(stat(*this, p + "busy_cycles"), "cycles", "Cycles executing descriptors");
    es.stall_cycles = &stats.counter(stat(*this, p + "stall_cycles"), "cycles",
                                     "Cycles a queued descriptor waited for its dependencies");
    es.idle_cycles = &stats.counter(stat(*this, p + "idle_cycles"), "cycles",
                                    "Elapsed cycles neither busy nor stalled (update_stats)");
    es.descriptors = &stats.counter(stat(*this, p + "descriptors"), "", "Descriptors this engine completed");
    es.utilisation = &stats.value(stat(*this, p + "utilisation"), "", "Busy cycles over elapsed cycles");
  }
  SC_HAS_PROCESS(Channel);
  SC_THREAD(command_processor);
  SC_THREAD(dma_in_engine);
  SC_THREAD(compute_engine);
  SC_THREAD(dma_out_engine);
}

uint32_t Channel::read_reg(uint32_t offset) const {
  switch (offset) {
    case regs::CH_CMD_BASE_LO:
      return static_cast<uint32_t>(cmd_base_);
    case regs::CH_CMD_BASE_HI:
      return static_cast<uint32_t>(cmd_base_ >> 32);
    case regs::CH_CMD_COUNT:
      return cmd_count_;
    case regs::CH_STATUS:
      return regs::CH_STATUS_STATE.put(static_cast<uint32_t>(state_)) |
             regs::CH_STATUS_ERROR.put(static_cast<uint32_t>(error_));
    case regs::CH_PROGRESS:
      return progress_;
    case regs::CH_CYCLES_LO:
      return static_cast<uint32_t>(last_cycles_);
    case regs::CH_CYCLES_HI:
      return static_cast<uint32_t>(last_cycles_ >> 32);
    case regs::CH_IRQ_STATUS:
      return irq_status_;
    case regs::CH_CMD_START:
      return cmd_start_;
    case regs::CH_SAVE_BASE_LO:
      return static_cast<uint32_t>(save_base_);
    case regs::CH_SAVE_BASE_HI:
      return static_cast<uint32_t>(save_base_ >> 32);
    case regs::CH_SAVE_BYTES:
      return save_bytes_;
    case regs::CH_ENERGY_LO:
      return static_cast<uint32_t>(last_energy_pj_);
    case regs::CH_ENERGY_HI:
      return static_cast<uint32_t>(last_energy_pj_ >> 32);
    case regs::CH_ERROR_INDEX:
      return error_index_;
    default:
      return 0;
  }
}

void Channel::write_reg(uint32_t offset, uint32_t value, const sc_core::sc_time& delay) {
  auto set_lo = [value](uint64_t& r) { r = (r & ~0xFFFFFFFFull) | value; };
  auto set_hi = [value](uint64_t& r) { r = (r & 0xFFFFFFFFull) | (static_cast<uint64_t>(value) << 32); };
  switch (offset) {
    case regs::CH_CMD_BASE_LO:
      set_lo(cmd_base_);
      break;
    case regs::CH_CMD_BASE_HI:
      set_hi(cmd_base_);
      break;
    case regs::CH_CMD_COUNT:
      cmd_count_ = value;
      break;
    case regs::CH_CMD_START:
      cmd_start_ = value;
      break;
    case regs::CH_SAVE_BASE_LO:
      set_lo(save_base_);
      break;
    case regs::CH_SAVE_BASE_HI:
      set_hi(save_base_);
      break;
    case regs::CH_DOORBELL:
      // A doorbell while busy is ignored: the driver must wait for the channel to stop (or reset it).
      if ((value & regs::CH_DOORBELL_START) && state_ != ChannelState::BUSY) {
        state_ = ChannelState::BUSY;
        error_ = ChannelError::NONE;
        preempt_requested_ = false;
        start_pending_ = true;
        restore_pending_ = value & regs::CH_DOORBELL_RESTORE;
        timing_only_pending_ = value & regs::CH_DOORBELL_TIMING_ONLY;
        if (activity_) activity_();
        doorbell_.notify(delay);
      }
      break;
    case regs::CH_CTRL:
      if (value & regs::CH_CTRL_RESET) {
        abort();
      } else if ((value & regs::CH_CTRL_PREEMPT) && state_ == ChannelState::BUSY) {
        preempt_requested_ = true;
        preempt_.notify(delay);
      }
      break;
    case regs::CH_FAULT_INJECT:
      arm_fault(static_cast<FaultKind>(regs::CH_FAULT_INJECT_KIND.get(value)),
                regs::CH_FAULT_INJECT_INDEX.get(value), true, regs::CH_FAULT_INJECT_SRAM_BIT.get(value));
      break;
    default:
      break;
  }
}

void Channel::clear_reg(uint32_t offset, uint32_t bits) {
  if (offset != regs::CH_IRQ_STATUS) return;
  irq_status_ &= ~bits;
  if (irq_changed_) irq_changed_();
}

void Channel::set_tracer(trace::Tracer* tracer) {
  tracer_ = tracer;
  if (!tracer_) return;
  track_ = tracer_->track("npu", name());
  for (size_t e = 0; e < kEngines; ++e)
    engines_[e].track = tracer_->track("npu", stat(*this, to_string(static_cast<Engine>(e))));
}

void Channel::span(uint32_t track, const std::string& name, const sc_core::sc_time& start,
                   nlohmann::json args) {
  if (!tracer_) return;
  const uint64_t t0 = to_ns(start);
  tracer_->span(track, name, t0, to_ns(sc_core::sc_time_stamp()) - t0, std::move(args));
}

void Channel::arm_fault(FaultKind kind, uint32_t at_descriptor, bool next_buffer_only, uint32_t sram_bit) {
  fault_ = {kind, at_descriptor, next_buffer_only, sram_bit};
}

void Channel::raise(uint32_t bits) {
  irq_status_ |= bits;
  if (irq_changed_) irq_changed_();
}

void Channel::abort() {
  ++epoch_;
  ++resets_;
  abort_.notify();
  for (auto& es : engines_) {
    es.queue.clear();
    es.changed.notify(sc_core::SC_ZERO_TIME);
  }
  scoreboard_.clear();
  run_.stopping = false;
  start_pending_ = false;
  preempt_requested_ = false;
  state_ = ChannelState::IDLE;
  error_ = ChannelError::NONE;
  error_index_ = 0;
  progress_ = 0;
  irq_status_ = 0;
  if (tracer_) tracer_->instant(track_, "reset", to_ns(sc_core::sc_time_stamp()));
  if (irq_changed_) irq_changed_();
}

bool Channel::wait_for(const sc_core::sc_time& t, uint64_t epoch) {
  if (epoch != epoch_) return false;
  const sc_core::sc_time until = sc_core::sc_time_stamp() + t;
  sc_core::wait(t, abort_);
  return sc_core::sc_time_stamp() >= until && epoch == epoch_;
}

bool Channel::wait_cycles(uint64_t cycles, uint64_t epoch) { return wait_for(clock_.cycles(cycles), epoch); }

double Channel::ns_per_dma_byte() const {
  return clock_.period().to_seconds() * 1e9 / cfg_.dma_bytes_per_cycle;
}

uint64_t Channel::cycles_between(const sc_core::sc_time& a, const sc_core::sc_time& b) const {
  return static_cast<uint64_t>((b - a) / clock_.period() + 0.5);
}

// --- command processor -------------------------------------------------------------------------------

void Channel::command_processor() {
  for (;;) {
    while (!start_pending_) sc_core::wait(doorbell_);
    start_pending_ = false;
    if (run_changed_) run_changed_(true);
    run_command_buffer();
    if (run_changed_) run_changed_(false);
  }
}

bool Channel::fetch(uint32_t index, desc::Raw* raw) {
  const uint64_t addr = cmd_base_ + static_cast<uint64_t>(index) * desc::kDescriptorBytes;
  if (!dram_.in_range(addr, desc::kDescriptorBytes)) return false;
  const sc_core::sc_time t0 = sc_core::sc_time_stamp();
  if (fast_) {
    // One wait: latency, the bytes through the port, decode.
    if (!dram_.share(desc::kDescriptorBytes, ns_per_dma_byte(), sc_core::SC_ZERO_TIME,
                     clock_.cycles(cfg_.descriptor_fetch_cycles), &abort_) ||
        aborted())
      return true;
    power_.add_dram_bytes(power_id_, desc::kDescriptorBytes);
    dram_.read(addr, raw->bytes, sizeof raw->bytes);
    fetch_cycles_ += cycles_between(t0, sc_core::sc_time_stamp());
    return true;
  }
  if (!dram_.transfer(desc::kDescriptorBytes, ns_per_dma_byte(), &abort_)) return true;
  power_.add_dram_bytes(power_id_, desc::kDescriptorBytes);
  dram_.read(addr, raw->bytes, sizeof raw->bytes);
  wait_cycles(cfg_.descriptor_fetch_cycles, run_.epoch);
  fetch_cycles_ += cycles_between(t0, sc_core::sc_time_stamp());
  return true;
}

void Channel::run_command_buffer() {
  auto log = log::get(name());
  run_ = Run{};
  run_.epoch = epoch_;
  run_.functional = functional_default_ && !timing_only_pending_;
  run_.start = cmd_start_;
  run_.start_time = sc_core::sc_time_stamp();
  run_.energy_start_pj = power_.component_energy_pj(name());
  progress_ = cmd_start_;
  error_index_ = 0;
  scoreboard_.clear();
  log->debug("start: descriptors {}..{} at 0x{:x}{}{}", cmd_start_, cmd_count_, cmd_base_,
             restore_pending_ ? ", restoring" : "", run_.functional ? "" : ", timing only");

  if (restore_pending_) {
    restore_pending_ = false;
    const ChannelError e = restore_context();
    if (aborted()) return;
    if (e != ChannelError::NONE) {
      run_.error = e;
      run_.error_index = cmd_start_;
      finish_run(false);
      return;
    }
  }

  bool preempted = false;
  for (uint32_t i = cmd_start_; i < cmd_count_; ++i) {
    if (aborted()) return;
    if (preempt_requested_) {
      preempted = true;
      break;
    }
    if (run_.error_index) break;
    if (fault_.kind == FaultKind::HANG && i >= fault_.at) {
      // The command processor stops dead: no progress, no interrupt, until a reset.
      fault_.kind = FaultKind::NONE;
      ++faults_;
      log->warn("injected hang at descriptor {}", i);
      while (!aborted()) sc_core::wait(abort_);
      return;
    }
    if (fault_.kind == FaultKind::THERMAL_RUNAWAY && i >= fault_.at) {
      fault_.kind = FaultKind::NONE;
      ++faults_;
      if (runaway_) runaway_();
    }
    desc::Raw raw;
    if (!fetch(i, &raw)) {
      run_.error = ChannelError::DMA_FAULT;
      run_.error_index = i;
      break;
    }
    if (aborted()) return;
    Op op;
    op.index = i;
    op.epoch = run_.epoch;
    op.raw = raw;
    op.opcode = desc::opcode_of(raw);
    if (const ChannelError e = decode(raw, &op); e != ChannelError::NONE) {
      run_.error = e;
      run_.error_index = i;
      break;
    }
    op.fault = fault_for(op);
    const sc_core::sc_time stall_from = sc_core::sc_time_stamp();
    switch (op.opcode) {
      case desc::Opcode::NOP:
        complete(op, ChannelError::NONE);
        continue;
      case desc::Opcode::PREEMPT_POINT: {
        const auto p = desc::decode<desc::PreemptPoint>(raw);
        PointRecord rec{i, false, {}};
        for (size_t r = 0; r < 4; ++r) rec.ranges.push_back({p.offset[r], p.bytes[r]});
        run_.points.push_back(std::move(rec));
        complete(op, ChannelError::NONE);
        continue;
      }
      case desc::Opcode::BARRIER:
      case desc::Opcode::FENCE:
        while (!scoreboard_.empty() && !aborted() && !preempt_requested_ && !run_.error_index)
          sc_core::wait(completion_ | abort_ | preempt_);
        issue_stall_cycles_ += cycles_between(stall_from, sc_core::sc_time_stamp());
        if (aborted()) return;
        if (!scoreboard_.empty()) {  // preempted or failed while waiting: the barrier is not passed
          preempted = preempt_requested_;
          break;
        }
        complete(op, ChannelError::NONE);
        continue;
      case desc::Opcode::DMA_IN:
      case desc::Opcode::DMA_GATHER:
        if (!issue(std::move(op), Engine::DMA_IN)) break;
        continue;
      case desc::Opcode::DMA_OUT:
        if (!issue(std::move(op), Engine::DMA_OUT)) break;
        continue;
      default:
        if (!issue(std::move(op), Engine::COMPUTE)) break;
        continue;
    }
    // A switch case broke out: the descriptor was not issued.
    if (aborted()) return;
    preempted = preempted || preempt_requested_;
    break;
  }
  if (aborted()) return;
  if (preempt_requested_) preempted = true;
  if (preempted) {
    // Drain: engines finish what they started and everything before it; the rest is dropped.
    run_.stopping = true;
    cancel_queued_after(run_.max_started);
  }
  if (run_.error_index) cancel_queued_after(*run_.error_index);
  wait_for_drain();
  if (aborted()) return;
  finish_run(preempted && !run_.error_index && progress_ < cmd_count_);
}

bool Channel::issue(Op op, Engine e) {
  EngineState& es = engines_[static_cast<size_t>(e)];
  const sc_core::sc_time stall_from = sc_core::sc_time_stamp();
  while (es.queue.size() >= cfg_.queue_depth && !aborted() && !preempt_requested_ && !run_.error_index)
    sc_core::wait(es.changed | abort_ | preempt_ | completion_);
  issue_stall_cycles_ += cycles_between(stall_from, sc_core::sc_time_stamp());
  if (aborted() || preempt_requested_ || run_.error_index) return false;
  op.deps = scoreboard_.dependencies(op.fp);
  // The scoreboard keeps the footprint until the descriptor completes (moved, not copied: its ranges
  // are heap vectors, and this runs once per descriptor).
  scoreboard_.issue(op.index, std::move(op.fp));
  es.queue.push_back(std::move(op));
  es.changed.notify(sc_core::SC_ZERO_TIME);
  return true;
}

void Channel::cancel_queued_after(int64_t index) {
  for (auto& es : engines_) {
    const size_t before = es.queue.size();
    std::erase_if(es.queue, [&](const Op& op) {
      if (static_cast<int64_t>(op.index) <= index) return false;
      scoreboard_.retire(op.index);
      return true;
    });
    if (es.queue.size() != before) es.changed.notify(sc_core::SC_ZERO_TIME);
  }
}

void Channel::wait_for_drain() {
  const sc_core::sc_time from = sc_core::sc_time_stamp();
  while (!scoreboard_.empty() && !aborted()) {
    sc_core::wait(completion_ | abort_);
    // An error found while draining drops what was queued behind it.
    if (run_.error_index) cancel_queued_after(*run_.error_index);
  }
  issue_stall_cycles_ += cycles_between(from, sc_core::sc_time_stamp());
}

regs::FaultKind Channel::fault_for(const Op& op) {
  if (op.index < fault_.at) return FaultKind::NONE;
  const bool is_dma = op.opcode == desc::Opcode::DMA_IN || op.opcode == desc::Opcode::DMA_OUT ||
                      op.opcode == desc::Opcode::DMA_GATHER;
  const bool reads_sram = !op.fp.sram.reads.empty();
  const FaultKind k = fault_.kind;
  if ((k == FaultKind::DMA_ERROR && is_dma) || (k == FaultKind::SRAM_ECC && reads_sram)) {
    fault_.kind = FaultKind::NONE;
    struck_sram_bit_ = fault_.sram_bit;
    ++faults_;
    return k;
  }
  return FaultKind::NONE;
}

ChannelError Channel::sram_upset(const Op& op) {
  if (cfg_.sram_ecc) return ChannelError::SRAM_ECC;
  const Footprint* fp = scoreboard_.footprint(op.index);
  if (run_.functional && fp && !fp->sram.reads.empty()) {
    const uint32_t at = fp->sram.reads.front().offset;
    sram_.data()[at] ^= static_cast<uint8_t>(1u << struck_sram_bit_);
    log::get(name())->warn(
        "SRAM upset without ECC at descriptor {}: bit {} of SRAM byte 0x{:x} flipped, undetected", op.index,
        struck_sram_bit_, at);
  }
  return ChannelError::NONE;
}

void Channel::finish_run(bool preempted) {
  auto log = log::get(name());
  if (preempted) {
    const uint32_t resume = progress_;
    const ChannelError e = save_context(resume);
    if (aborted()) return;
    if (e != ChannelError::NONE) {
      run_.error = e;
      run_.error_index = resume;
    }
  }
  if (fault_.next_buffer_only) fault_.kind = FaultKind::NONE;
  last_cycles_ = cycles_between(run_.start_time, sc_core::sc_time_stamp());
  busy_cycles_ += last_cycles_;
  last_energy_pj_ = static_cast<uint64_t>(power_.component_energy_pj(name()) - run_.energy_start_pj + 0.5);
  preempt_requested_ = false;
  run_.stopping = false;
  std::string outcome;
  if (run_.error_index) {
    state_ = ChannelState::ERROR;
    error_ = run_.error;
    error_index_ = *run_.error_index;
    ++errors_;
    outcome = "error";
    log->warn("descriptor {} failed with error {}", error_index_, static_cast<uint32_t>(error_));
  } else if (preempted) {
    state_ = ChannelState::PREEMPTED;
    ++preemptions_;
    outcome = "preempted";
  } else {
    state_ = ChannelState::DONE;
    ++jobs_;
    outcome = "done";
  }
  // Built only when tracing: the arguments' allocations would show in every command buffer.
  if (tracer_)
    span(track_, "command buffer", run_.start_time,
         {{"first", run_.start},
          {"count", cmd_count_},
          {"progress", progress_},
          {"outcome", outcome},
          {"energy_pj", last_energy_pj_},
          {"functional", run_.functional}});
  log->debug("end: {} after {} cycles, progress {}", outcome, last_cycles_, progress_);
  raise(state_ == ChannelState::ERROR       ? regs::CH_IRQ_ERROR
        : state_ == ChannelState::PREEMPTED ? regs::CH_IRQ_PREEMPTED
                                            : regs::CH_IRQ_DONE);
}

// --- engines -----------------------------------------------------------------------------------------

bool Channel::may_start(const Op& op) const {
  if (run_.stopping && static_cast<int64_t>(op.index) > run_.max_started) return false;
  if (run_.error_index && op.index > *run_.error_index) return false;
  for (uint32_t d : op.deps) {
    if (scoreboard_.in_flight(d)) return false;
  }
  return true;
}

void Channel::engine_loop(Engine e) {
  EngineState& es = engines_[static_cast<size_t>(e)];
  for (;;) {
    if (es.queue.empty()) {
      sc_core::wait(es.changed);
      continue;
    }
    if (!may_start(es.queue.front())) {
      const sc_core::sc_time from = sc_core::sc_time_stamp();
      sc_core::wait(es.changed | completion_);
      *es.stall_cycles += cycles_between(from, sc_core::sc_time_stamp());
      continue;
    }
    const Op op = std::move(es.queue.front());
    es.queue.pop_front();
    es.changed.notify(sc_core::SC_ZERO_TIME);  // queue space for the command processor
    run_.max_started = std::max<int64_t>(run_.max_started, op.index);
    const uint64_t epoch = epoch_;
    const sc_core::sc_time t0 = sc_core::sc_time_stamp();
    const ChannelError err = execute(op);
    const uint64_t cycles = cycles_between(t0, sc_core::sc_time_stamp());
    *es.busy_cycles += cycles;
    (e == Engine::COMPUTE ? compute_cycles_ : dma_cycles_) += cycles;
    if (epoch != epoch_) continue;  // reset meanwhile: the result is dropped
    if (err == ChannelError::NONE) ++*es.descriptors;
    // Built only when tracing: once per descriptor, the arguments' allocations would show in every run.
    if (tracer_)
      span(es.track, desc::opcode_name(op.opcode), t0,
           {{"index", op.index}, {"id", desc::decode<desc::Header>(op.raw).id}});
    complete(op, err);
  }
}

void Channel::complete(const Op& op, ChannelError error) {
  Footprint fp;  // as issued (descriptors that take no engine write nothing)
  scoreboard_.retire(op.index, &fp);
  if (error != ChannelError::NONE) {
    if (!run_.error_index || op.index < *run_.error_index) {
      run_.error_index = op.index;
      run_.error = error;
    }
  } else {
    ++descriptors_;
    if (!fp.sram.writes.empty()) run_.writes.push_back({op.index, std::move(fp.sram.writes)});
    if (op.index == progress_) {
      ++progress_;
      while (!run_.completed_ahead.empty() && *run_.completed_ahead.begin() == progress_) {
        run_.completed_ahead.erase(run_.completed_ahead.begin());
        ++progress_;
      }
    } else {
      run_.completed_ahead.insert(op.index);
    }
  }
  completion_.notify(sc_core::SC_ZERO_TIME);
}

void Channel::update_stats(double elapsed_cycles, double window_cycles) {
  for (auto& es : engines_) {
    const double active = static_cast<double>(*es.busy_cycles + *es.stall_cycles);
    *es.idle_cycles = elapsed_cycles > active ? static_cast<uint64_t>(elapsed_cycles - active + 0.5) : 0;
    *es.utilisation = elapsed_cycles > 0 ? static_cast<double>(*es.busy_cycles) / elapsed_cycles : 0.0;
  }
  utilisation_ = *engines_[static_cast<size_t>(Engine::COMPUTE)].utilisation;
  const auto compute_busy = static_cast<double>(*engines_[static_cast<size_t>(Engine::COMPUTE)].busy_cycles);
  window_utilisation_ = window_cycles > 0 ? std::min(1.0, compute_busy / window_cycles) : 0.0;
  const auto busy = static_cast<double>(busy_cycles_);
  idle_cycles_ = elapsed_cycles > busy ? static_cast<uint64_t>(elapsed_cycles - busy + 0.5) : 0;
}

// --- context save and restore ------------------------------------------------------------------------

// Points are recorded in program order (a restored set first), so the last one before `resume` is in force.
const Channel::PointRecord* Channel::point_before(uint32_t resume) const {
  const PointRecord* point = nullptr;
  for (const auto& p : run_.points) {
    if (p.restored || p.index < resume) point = &p;
  }
  return point;
}

std::vector<SramRange> Channel::live_ranges(uint32_t resume) const {
  std::vector<SramRange> live;
  if (const PointRecord* point = point_before(resume)) {
    live = point->ranges;
    for (const auto& w : run_.writes) {
      const bool after_point = point->restored || w.index > point->index;
      if (after_point && w.index < resume) live.insert(live.end(), w.ranges.begin(), w.ranges.end());
    }
  } else {
    uint64_t high = run_.restored_high_water;
    for (const auto& w : run_.writes) {
      if (w.index >= resume) continue;
      for (const auto& r : w.ranges) high = std::max(high, uint64_t{r.offset} + r.bytes);
    }
    if (high) live.push_back({0, static_cast<uint32_t>(high)});
  }
  return coalesce_ranges(std::move(live), kMaxSaveRanges);
}

ChannelError Channel::save_context(uint32_t resume) {
  const sc_core::sc_time t0 = sc_core::sc_time_stamp();
  SaveHeader h;
  h.resume_index = resume;
  h.sram_bytes = static_cast<uint32_t>(sram_.size());
  h.ranges = live_ranges(resume);
  h.flags = point_before(resume) ? kSaveDeclared : 0;
  const uint64_t bytes = h.saved_bytes();
  if (!dram_.in_range(save_base_, regs::kSaveAreaHeader + bytes)) return ChannelError::DMA_FAULT;
  if (!wait_cycles(cfg_.dma_setup_cycles, run_.epoch)) return ChannelError::NONE;
  if (!dram_.transfer(regs::kSaveAreaHeader + bytes, ns_per_dma_byte(), &abort_)) return ChannelError::NONE;
  const auto header = encode_save_header(h);
  dram_.write(save_base_, header.data(), header.size());
  uint64_t at = save_base_ + regs::kSaveAreaHeader;
  for (const auto& r : h.ranges) {
    if (run_.functional) dram_.write(at, sram_.data() + r.offset, r.bytes);
    at += r.bytes;
  }
  power_.add_sram_bytes(power_id_, bytes);
  power_.add_dram_bytes(power_id_, regs::kSaveAreaHeader + bytes);
  save_bytes_ = static_cast<uint32_t>(bytes);
  save_bytes_total_ += bytes;
  save_cycles_ += cycles_between(t0, sc_core::sc_time_stamp());
  span(track_, "save", t0, {{"bytes", bytes}, {"ranges", h.ranges.size()}, {"resume", resume}});
  return ChannelError::NONE;
}

ChannelError Channel::restore_context() {
  const sc_core::sc_time t0 = sc_core::sc_time_stamp();
  if (!dram_.in_range(save_base_, regs::kSaveAreaHeader)) return ChannelError::DMA_FAULT;
  std::vector<uint8_t> header(regs::kSaveAreaHeader);
  dram_.read(save_base_, header.data(), header.size());
  const auto h = decode_save_header(header.data(), sram_.size());
  if (!h) return ChannelError::BAD_DESCRIPTOR;
  const uint64_t bytes = h->saved_bytes();
  if (!dram_.in_range(save_base_, regs::kSaveAreaHeader + bytes)) return ChannelError::DMA_FAULT;
  if (!wait_cycles(cfg_.dma_setup_cycles, run_.epoch)) return ChannelError::NONE;
  if (!dram_.transfer(regs::kSaveAreaHeader + bytes, ns_per_dma_byte(), &abort_)) return ChannelError::NONE;
  uint64_t at = save_base_ + regs::kSaveAreaHeader;
  for (const auto& r : h->ranges) {
    if (run_.functional) dram_.read(at, sram_.data() + r.offset, r.bytes);
    at += r.bytes;
  }
  // What was live at the save stays live until the command buffer declares otherwise.
  if (h->flags & kSaveDeclared) {
    run_.points.push_back({run_.start, true, h->ranges});
  } else {
    for (const auto& r : h->ranges)
      run_.restored_high_water = std::max<uint64_t>(run_.restored_high_water, uint64_t{r.offset} + r.bytes);
  }
  power_.add_sram_bytes(power_id_, bytes);
  power_.add_dram_bytes(power_id_, regs::kSaveAreaHeader + bytes);
  restore_bytes_total_ += bytes;
  restore_cycles_ += cycles_between(t0, sc_core::sc_time_stamp());
  span(track_, "restore", t0, {{"bytes", bytes}, {"ranges", h->ranges.size()}});
  return ChannelError::NONE;
}

}  // namespace npu::sim
