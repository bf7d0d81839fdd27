// ThermalFrontEnd: the verilated thermal-sensor front end (rtl/npu_thermal_fe.sv) with a small API:
// feed ADC samples, configure the two trip points, read the moving average, trip states and the
// level interrupt, clear interrupt bits. The sample, average and thresholds are raw W-bit codes.
//
// Plain C++ (no SystemC, no time): each call clocks the block for a fixed number of cycles. Not the
// thermal RC model (the platform's) and not a driver: it only shows what the registers would show.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace npu::rtl {

// irq_status bits, as in the RTL.
enum ThermalIrq : uint8_t {
  kThermalWarnRise = 1u << 0,
  kThermalWarnFall = 1u << 1,
  kThermalCritRise = 1u << 2,
  kThermalCritFall = 1u << 3,
  kThermalIrqAll = 0xF,
};

struct ThermalFrontEndConfig {
  uint16_t warn_threshold = 0xFFFF;  // trip when average >= threshold
  uint16_t crit_threshold = 0xFFFF;
  uint16_t hysteresis = 0;  // clear when average < threshold - hysteresis
  uint8_t irq_enable = kThermalIrqAll;
};

struct ThermalFrontEndState {
  uint16_t last_sample = 0;
  uint16_t average = 0;  // floor of the mean of the last kWindow samples
  bool primed = false;   // a sample arrived since reset
  bool warn = false;
  bool crit = false;
  uint8_t irq_status = 0;  // sticky ThermalIrq bits
  bool irq = false;        // level: irq_status & irq_enable != 0
};

class ThermalFrontEnd {
 public:
  static constexpr unsigned kWindow = 8;  // RTL parameter LOG2_WINDOW = 3

  // Resets the block. A non-empty `vcd_path` writes a VCD waveform (1000 ps per cycle).
  explicit ThermalFrontEnd(const ThermalFrontEndConfig& config = {}, const std::string& vcd_path = {});
  ~ThermalFrontEnd();
  ThermalFrontEnd(const ThermalFrontEnd&) = delete;
  ThermalFrontEnd& operator=(const ThermalFrontEnd&) = delete;

  void configure(const ThermalFrontEndConfig& config);  // applies from the next cycle
  void reset();                                         // synchronous reset; keeps the config
  // One sample; returns once the average and trip state reflect it (2 cycles).
  void push_sample(uint16_t code);
  void clear_irq(uint8_t bits);  // write-1-to-clear for one cycle
  void tick(unsigned cycles = 1);
  ThermalFrontEndState state() const;
  uint64_t cycles() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace npu::rtl
