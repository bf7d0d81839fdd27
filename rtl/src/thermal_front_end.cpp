#include "npu/rtl/thermal_front_end.h"

#include <verilated.h>
#include <verilated_vcd_c.h>

#include <stdexcept>

#include "Vnpu_thermal_fe.h"

namespace npu::rtl {

class ThermalFrontEnd::Impl {
 public:
  explicit Impl(const std::string& vcd_path) : context_(std::make_unique<VerilatedContext>()) {
    if (!vcd_path.empty()) context_->traceEverOn(true);
    model_ = std::make_unique<Vnpu_thermal_fe>(context_.get(), "npu_thermal_fe");
    // Do not leave our short-lived context as the thread's current one (see tile_runner.cpp).
    Verilated::threadContextp(Verilated::defaultContextp());
    if (!vcd_path.empty()) {
      vcd_ = std::make_unique<VerilatedVcdC>();
      model_->trace(vcd_.get(), 99);
      vcd_->open(vcd_path.c_str());
      if (!vcd_->isOpen()) throw std::invalid_argument("cannot open waveform file " + vcd_path);
    }
  }
  ~Impl() {
    model_->final();
    if (vcd_) vcd_->close();
  }

  Vnpu_thermal_fe& model() { return *model_; }
  const Vnpu_thermal_fe& model() const { return *model_; }
  uint64_t cycles() const { return cycles_; }

  void tick() {
    for (const uint8_t level : {uint8_t{1}, uint8_t{0}}) {
      model_->clk = level;
      model_->eval();
      if (vcd_) vcd_->dump(time_ps_);
      time_ps_ += 500;
    }
    ++cycles_;
  }

 private:
  std::unique_ptr<VerilatedContext> context_;  // outlives the model
  std::unique_ptr<Vnpu_thermal_fe> model_;
  std::unique_ptr<VerilatedVcdC> vcd_;
  uint64_t time_ps_ = 0;
  uint64_t cycles_ = 0;
};

ThermalFrontEnd::ThermalFrontEnd(const ThermalFrontEndConfig& config, const std::string& vcd_path)
    : impl_(std::make_unique<Impl>(vcd_path)) {
  auto& m = impl_->model();
  m.sample_valid = 0;
  m.irq_clear = 0;
  configure(config);
  reset();
}

ThermalFrontEnd::~ThermalFrontEnd() = default;

void ThermalFrontEnd::configure(const ThermalFrontEndConfig& config) {
  auto& m = impl_->model();
  m.thr_warn = config.warn_threshold;
  m.thr_crit = config.crit_threshold;
  m.hysteresis = config.hysteresis;
  m.irq_enable = config.irq_enable & kThermalIrqAll;
  m.eval();  // the level irq output follows irq_enable combinationally
}

void ThermalFrontEnd::reset() {
  auto& m = impl_->model();
  m.rst_n = 0;
  impl_->tick();
  m.rst_n = 1;
}

void ThermalFrontEnd::push_sample(uint16_t code) {
  auto& m = impl_->model();
  m.sample = code;
  m.sample_valid = 1;
  impl_->tick();  // sample register and running sum
  m.sample_valid = 0;
  impl_->tick();  // trip state and interrupt status
}

void ThermalFrontEnd::clear_irq(uint8_t bits) {
  auto& m = impl_->model();
  m.irq_clear = bits & kThermalIrqAll;
  impl_->tick();
  m.irq_clear = 0;
}

void ThermalFrontEnd::tick(unsigned cycles) {
  for (unsigned i = 0; i < cycles; ++i) impl_->tick();
}

ThermalFrontEndState ThermalFrontEnd::state() const {
  const auto& m = impl_->model();
  ThermalFrontEndState s;
  s.last_sample = m.last_sample;
  s.average = m.average;
  s.primed = m.primed;
  s.warn = (m.trip & 1) != 0;
  s.crit = (m.trip & 2) != 0;
  s.irq_status = m.irq_status;
  s.irq = m.irq;
  return s;
}

uint64_t ThermalFrontEnd::cycles() const { return impl_->cycles(); }

}  // namespace npu::rtl
