#include "npu/sim/npu.h"

#include <sysc/kernel/sc_dynamic_processes.h>

#include <cmath>
#include <cstring>
#include <stdexcept>

#include "npu/common/enum_table.h"
#include "npu/common/factory_table.h"
#include "npu/sim/core/tlm_compute_core.h"

namespace npu::sim {

std::unique_ptr<ComputeCore> make_tlm_compute_core(const ComputeCoreArgs& args, std::string*) {
  return std::make_unique<TlmComputeCore>(ArrayGeometry{args.channel.array_rows, args.channel.array_cols},
                                          args.clock);
}

ComputeCoreFactory compute_core_factory(ComputeCoreTable cores, std::string waves_prefix) {
  return [cores, waves_prefix = std::move(waves_prefix)](const std::string& name, const ChannelConfig& cfg,
                                                         const ClockDomain& clock,
                                                         std::string* error) -> std::unique_ptr<ComputeCore> {
    const ComputeCoreRow* row = factory::find(cores, cfg.compute_core);
    if (!row) {
      *error = "npu.channel.compute_core.model: unknown compute core \"" + cfg.compute_core +
               "\" (one of: " + factory::joined_names(cores) + ")";
      return nullptr;
    }
    return row->make({name, cfg, clock, waves_prefix}, error);
  };
}

namespace {

const NpuConfig& validated(const NpuConfig& cfg) {
  if (auto r = cfg.validate(); !r) throw std::invalid_argument(r.error());
  return cfg;
}

PowerParams power_params(const NpuConfig& cfg) {
  auto p = cfg.power.resolve();
  if (!p) throw std::invalid_argument(p.error());
  return *p;
}

regs::FaultKind fault_kind(const std::string& name) {
  return enums::parse<regs::FaultKind>(name).value_or(regs::FaultKind::NONE);
}

int32_t to_mc(double celsius) { return static_cast<int32_t>(std::lround(celsius * 1000.0)); }

uint64_t to_ns(const sc_core::sc_time& t) { return static_cast<uint64_t>(t.to_seconds() * 1e9 + 0.5); }

}  // namespace

Npu::Npu(sc_core::sc_module_name name, const NpuConfig& cfg, stats::Registry& stats,
         const ComputeCoreFactory& core_factory)
    : sc_module(name),
      mmio("mmio"),
      irq("irq"),
      cfg_(validated(cfg)),
      clock_(cfg.clock_mhz()),
      mmio_reads_(stats.counter(std::string(this->name()) + ".mmio.reads", "", "Register reads")),
      mmio_writes_(stats.counter(std::string(this->name()) + ".mmio.writes", "", "Register writes")),
      window_ns_(stats.value(std::string(this->name()) + ".execution_window_ns", "ns",
                             "Time with at least one command buffer in flight on any channel")) {
  SC_HAS_PROCESS(Npu);
  mmio.register_b_transport(this, &Npu::b_transport);
  power_ = std::make_unique<PowerModel>(power_params(cfg_), stats, this->name());
  dram_ = std::make_unique<Dram>("dram", cfg_.dram, stats, cfg_.timing.fast());
  for (uint32_t i = 0; i < cfg_.channels; ++i) {
    const std::string ch_name = "ch" + std::to_string(i);
    std::string error;
    // Created while this module is being built, so the core becomes the child npu.<ch>_core.
    auto core = core_factory(ch_name + "_core", cfg_.channel, clock_, &error);
    if (!core) throw std::invalid_argument(error);
    channels_.push_back(std::make_unique<Channel>(ch_name.c_str(), i, cfg_.channel, cfg_.functional,
                                                  cfg_.timing.fast(), clock_, *dram_, std::move(core),
                                                  *power_, stats));
    Channel& ch = *channels_.back();
    ch.on_irq_change([this] { update_irq(); });
    ch.on_activity([this] { thermal_->wake(); });
    ch.on_run([this](bool running) { on_channel_run(running); });
    ch.on_thermal_runaway([this] { inject_thermal_runaway(cfg_.faults.thermal_runaway_w); });
  }
  thermal_ = std::make_unique<ThermalMonitor>("thermal", cfg_.thermal, *power_, stats);
  thermal_->set_idle_check([this] { return !any_channel_busy(); });
  thermal_->on_sample([this](const sc_core::sc_time& at) { on_thermal_sample(at); });
  dvfs_ = std::make_unique<DvfsController>("dvfs", cfg_.dvfs, clock_, *power_, stats);
  dvfs_->on_change([this](size_t point) {
    dvfs_pending_irq_ = true;
    update_irq();
    if (tracer_)
      tracer_->counter("npu", "npu.clock_mhz", to_ns(sc_core::sc_time_stamp()), dvfs_->point(point).mhz);
  });
  arm_configured_fault();
  SC_METHOD(drive_irq);
  sensitive << irq_update_;
  dont_initialize();
}

Npu::~Npu() = default;

void Npu::arm_configured_fault() {
  const auto kind = fault_kind(cfg_.faults.kind);
  if (kind == regs::FaultKind::NONE) return;
  if (cfg_.faults.trigger == "descriptor") {
    channels_[cfg_.faults.channel]->arm_fault(kind, cfg_.faults.at_descriptor, false, cfg_.faults.sram_bit);
    return;
  }
  // At a simulated time: the fault strikes the channel's next descriptor from then on.
  sc_core::sc_spawn_options opts;
  sc_core::sc_spawn(
      [this, kind] {
        sc_core::wait(sc_core::sc_time(cfg_.faults.at_time_us, sc_core::SC_US));
        if (kind == regs::FaultKind::THERMAL_RUNAWAY) {
          inject_thermal_runaway(cfg_.faults.thermal_runaway_w);
        } else {
          channels_[cfg_.faults.channel]->arm_fault(kind, 0, false, cfg_.faults.sram_bit);
        }
      },
      "fault_timer", &opts);
}

bool Npu::inject_fault(uint32_t channel, regs::FaultKind kind, uint32_t at_descriptor) {
  if (channel >= channels_.size() || kind == regs::FaultKind::NONE) return false;
  channels_[channel]->arm_fault(kind, at_descriptor, true);
  return true;
}

void Npu::inject_thermal_runaway(double watts) { thermal_->inject_thermal_runaway(watts); }

void Npu::set_tracer(trace::Tracer* tracer) {
  tracer_ = tracer;
  for (auto& ch : channels_) ch->set_tracer(tracer);
  if (tracer_) tracer_->counter("npu", "npu.clock_mhz", to_ns(sc_core::sc_time_stamp()), clock_.mhz());
}

bool Npu::any_channel_busy() const {
  for (const auto& ch : channels_) {
    if (ch->busy()) return true;
  }
  return false;
}

uint64_t Npu::cycle() const { return static_cast<uint64_t>(clock_.cycle_count()); }

void Npu::on_channel_run(bool running) {
  if (running) {
    if (channels_running_++ == 0) {
      window_since_ = sc_core::sc_time_stamp();
      window_since_cycles_ = clock_.cycle_count();
    }
    return;
  }
  if (channels_running_ == 0 || --channels_running_ > 0) return;
  window_ns_ += (sc_core::sc_time_stamp() - window_since_).to_seconds() * 1e9;
  window_closed_cycles_ += clock_.cycle_count() - window_since_cycles_;
}

void Npu::update_stats() {
  thermal_->wake();
  // A window still open counts up to now (stats read mid-run), without closing it.
  const bool open = channels_running_ > 0;
  const double window_ns =
      window_ns_ + (open ? (sc_core::sc_time_stamp() - window_since_).to_seconds() * 1e9 : 0.0);
  const double window_cycles =
      window_closed_cycles_ + (open ? clock_.cycle_count() - window_since_cycles_ : 0.0);
  for (auto& ch : channels_) ch->update_stats(clock_.cycle_count(), window_cycles);
  dram_->update_stats(window_ns);
  dvfs_->update_stats();
}

void Npu::finish() {
  thermal_->finish();
  update_stats();
}

void Npu::on_thermal_sample(const sc_core::sc_time& at) {
  const ThermalSensor& s = thermal_->sensor();
  if (s.pending() || s.rearm_pending()) update_irq();
  if (!tracer_) return;
  const uint64_t ns = to_ns(at);
  tracer_->counter("npu", "npu.thermal.junction_c", ns, thermal_->junction_c());
  tracer_->counter("npu", "npu.thermal.skin_c", ns, thermal_->rc().temperature_c(thermal_->rc().size() - 1));
  tracer_->counter("npu", "npu.power_w", ns, thermal_->last_power_w());
}

uint32_t Npu::irq_status() const {
  uint32_t s = 0;
  for (uint32_t i = 0; i < channels_.size(); ++i)
    s |= channels_[i]->irq_status() ? regs::IRQ_CHANNELS.bit(i) : 0u;
  const ThermalSensor& sensor = thermal_->sensor();
  if (sensor.pending() || sensor.rearm_pending()) s |= regs::IRQ_THERMAL;
  if (dvfs_pending_irq_) s |= regs::IRQ_DVFS;
  return s;
}

uint32_t Npu::read_reg(uint32_t offset) {
  const uint64_t dram_mib = cfg_.dram.size_mib;
  switch (offset) {
    case regs::NPU_ID:
      return regs::kNpuIdValue;
    case regs::NPU_VERSION:
      return regs::kGlobalRegisters[1].reset;
    case regs::NPU_CONFIG:
      return regs::CONFIG_CHANNELS.put(cfg_.channels) | regs::CONFIG_ARRAY_ROWS.put(cfg_.channel.array_rows) |
             regs::CONFIG_ARRAY_COLS.put(cfg_.channel.array_cols);
    case regs::NPU_CONFIG2:
      return regs::CONFIG2_VECTOR_LANES.put(cfg_.channel.vector_lanes) |
             regs::CONFIG2_SRAM_BANKS.put(cfg_.channel.sram_banks) |
             regs::CONFIG2_DVFS_POINTS.put(static_cast<uint32_t>(dvfs_->num_points()));
    case regs::NPU_SRAM_KIB:
      return cfg_.channel.sram_kib;
    case regs::IRQ_STATUS:
      return irq_status();
    case regs::IRQ_MASK:
      return irq_mask_;
    case regs::CYCLE_LO:
      return static_cast<uint32_t>(cycle());
    case regs::CYCLE_HI:
      return static_cast<uint32_t>(cycle() >> 32);
    case regs::WEIGHT_MEM_BASE_MIB:
      return static_cast<uint32_t>(dram_mib - cfg_.weight_memory_mib);
    case regs::WEIGHT_MEM_MIB:
      return cfg_.weight_memory_mib;
    case regs::DRAM_MIB:
      return static_cast<uint32_t>(dram_mib);
    case regs::NPU_CAPS:
      return regs::CAPS_SAVE_RESTORE | (cfg_.functional ? regs::CAPS_FUNCTIONAL : 0) |
             regs::CAPS_FAULT_INJECT;
    default:
      break;
  }
  if (offset >= regs::THERM_TEMP && offset < regs::kChannelBase) return read_thermal_reg(offset);
  if (offset >= regs::kChannelBase) {
    const uint32_t ch = (offset - regs::kChannelBase) / regs::kChannelStride;
    if (ch < channels_.size())
      return channels_[ch]->read_reg((offset - regs::kChannelBase) % regs::kChannelStride);
  }
  return 0;
}

uint32_t Npu::read_thermal_reg(uint32_t offset) {
  thermal_->wake();  // a paused sensor catches up to the present before it is read
  const ThermalSensor& s = thermal_->sensor();
  for (uint32_t i = 0; i < regs::kThermalTrips && i < s.num_trips(); ++i) {
    if (offset == regs::THERM_TRIP(i)) return static_cast<uint32_t>(s.trip(i).threshold_mc);
    if (offset == regs::THERM_HYST(i)) return static_cast<uint32_t>(s.trip(i).hysteresis_mc);
  }
  for (uint32_t i = 0; i < regs::kDvfsPoints && i < dvfs_->num_points(); ++i) {
    if (offset == regs::DVFS_OPP_MHZ(i)) return static_cast<uint32_t>(std::lround(dvfs_->point(i).mhz));
    if (offset == regs::DVFS_OPP_MV(i))
      return static_cast<uint32_t>(std::lround(dvfs_->point(i).voltage_v * 1000));
  }
  switch (offset) {
    case regs::THERM_TEMP:
      return static_cast<uint32_t>(s.temp_mc());
    case regs::THERM_SKIN_TEMP:
      return static_cast<uint32_t>(to_mc(thermal_->rc().temperature_c(thermal_->rc().size() - 1)));
    case regs::THERM_TRIP_STATUS:
      return regs::THERM_TRIP_ASSERTED.put(s.tripped());
    case regs::THERM_IRQ_STATUS:
      return regs::THERM_IRQ_UP.put(s.pending()) | regs::THERM_IRQ_REARM.put(s.rearm_pending());
    case regs::PWR_POWER_MW:
      return static_cast<uint32_t>(std::lround(thermal_->last_power_w() * 1000.0));
    case regs::PWR_ENERGY_UJ_LO:
    case regs::PWR_ENERGY_UJ_HI: {
      const auto uj = static_cast<uint64_t>(power_->total_energy_pj() / 1e6);
      return offset == regs::PWR_ENERGY_UJ_LO ? static_cast<uint32_t>(uj) : static_cast<uint32_t>(uj >> 32);
    }
    case regs::DVFS_OPP:
      return static_cast<uint32_t>(dvfs_->pending_point().value_or(dvfs_->current_point()));
    case regs::DVFS_STATUS:
      return regs::DVFS_STATUS_POINT.put(static_cast<uint32_t>(dvfs_->current_point())) |
             regs::DVFS_STATUS_PENDING.put(dvfs_->pending_point() ? 1 : 0);
    default:
      return 0;
  }
}

void Npu::write_thermal_reg(uint32_t offset, uint32_t value) {
  thermal_->wake();
  ThermalSensor& s = thermal_->sensor();
  for (uint32_t i = 0; i < regs::kThermalTrips && i < s.num_trips(); ++i) {
    // A negative hysteresis is refused by the sensor; the register keeps its value.
    if (offset == regs::THERM_TRIP(i))
      (void)s.set_trip(i, static_cast<int32_t>(value), s.trip(i).hysteresis_mc);
    if (offset == regs::THERM_HYST(i))
      (void)s.set_trip(i, s.trip(i).threshold_mc, static_cast<int32_t>(value));
  }
  // An index outside the table is ignored.
  if (offset == regs::DVFS_OPP) (void)dvfs_->set_operating_point(value);
}

void Npu::write_reg(uint32_t offset, uint32_t value) {
  switch (offset) {
    case regs::IRQ_MASK:
      irq_mask_ = value;
      update_irq();
      return;
    case regs::GLOBAL_CTRL:
      if (value & regs::GLOBAL_CTRL_SOFT_RESET) {
        for (auto& ch : channels_) ch->write_reg(regs::CH_CTRL, regs::CH_CTRL_RESET);
      }
      return;
    default:
      break;
  }
  if (offset >= regs::THERM_TEMP && offset < regs::kChannelBase) {
    write_thermal_reg(offset, value);
    return;
  }
  if (offset >= regs::kChannelBase) {
    const uint32_t ch = (offset - regs::kChannelBase) / regs::kChannelStride;
    if (ch < channels_.size())
      channels_[ch]->write_reg((offset - regs::kChannelBase) % regs::kChannelStride, value, access_delay_);
  }
}

void Npu::clear_reg(uint32_t offset, uint32_t bits) {
  if (offset == regs::IRQ_STATUS) {
    // Only the DVFS bit latches here; channel and thermal bits clear at their source.
    if (bits & regs::IRQ_DVFS) dvfs_pending_irq_ = false;
    update_irq();
  } else if (offset == regs::THERM_IRQ_STATUS) {
    thermal_->wake();
    ThermalSensor& s = thermal_->sensor();
    s.acknowledge(regs::THERM_IRQ_UP.get(bits));
    s.acknowledge_rearm(regs::THERM_IRQ_REARM.get(bits));
    update_irq();
  } else if (offset >= regs::kChannelBase) {
    const uint32_t ch = (offset - regs::kChannelBase) / regs::kChannelStride;
    channels_[ch]->clear_reg((offset - regs::kChannelBase) % regs::kChannelStride, bits);
  }
}

const regs::Register* Npu::mapped_register(uint32_t offset) const {
  // A channel block past the configured channels is unmapped, like any other hole.
  if (offset >= regs::channel_base(channel_count())) return nullptr;
  return regs::find_register(offset);
}

bool Npu::access(bool write, uint32_t offset, uint32_t& value) {
  const regs::Register* reg = mapped_register(offset);
  if (!reg) {
    // Unmapped: reads 0 (read_reg's default), writes are dropped.
    if (!write) value = read_reg(offset);
    return true;
  }
  if (!write) {
    value = reg->access == regs::Access::WO ? 0 : read_reg(offset);
    return true;
  }
  switch (reg->access) {
    case regs::Access::RO:
      return false;  // no effect
    case regs::Access::W1C:
      clear_reg(offset, value);
      return true;
    case regs::Access::RW:
    case regs::Access::WO:
      write_reg(offset, value);
      return true;
  }
  return true;
}

void Npu::update_irq() {
  irq_level_ = (irq_status() & irq_mask_) != 0;
  irq_update_.notify(sc_core::SC_ZERO_TIME);
}

void Npu::drive_irq() { irq.write(irq_level_); }

void Npu::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  if (gp.get_data_length() != 4 || (gp.get_address() & 3) || gp.get_byte_enable_ptr()) {
    gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  const auto offset = static_cast<uint32_t>(gp.get_address());
  uint32_t v = 0;
  bool ok = true;
  if (cfg_.timing.fast()) access_delay_ = delay;
  if (gp.is_read()) {
    ok = access(false, offset, v);
    std::memcpy(gp.get_data_ptr(), &v, 4);
    ++mmio_reads_;
  } else if (gp.is_write()) {
    std::memcpy(&v, gp.get_data_ptr(), 4);
    ok = access(true, offset, v);
    ++mmio_writes_;
  }
  access_delay_ = sc_core::SC_ZERO_TIME;
  // A refused write still took its bus cycle.
  delay += sc_core::sc_time(cfg_.mmio_access_ns, sc_core::SC_NS);
  gp.set_response_status(ok ? tlm::TLM_OK_RESPONSE : tlm::TLM_COMMAND_ERROR_RESPONSE);
}

}  // namespace npu::sim
