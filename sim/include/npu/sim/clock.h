// A clock domain: the period every block of the NPU core times itself by. The DVFS controller changes
// it between descriptors; blocks read period() when they start an action, so an action in progress
// keeps the period it started with. cycle_count() integrates cycles across frequency changes (the
// free-running CYCLE counter).
#pragma once

#include <systemc>

namespace npu::sim {

class ClockDomain {
 public:
  explicit ClockDomain(double mhz) { set_mhz(mhz); }
  void set_mhz(double mhz) {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if (mhz_ > 0) base_cycles_ += (now - base_time_) / period_;
    base_time_ = now;
    mhz_ = mhz;
    period_ = sc_core::sc_time(1000.0 / mhz, sc_core::SC_NS);
  }
  double mhz() const { return mhz_; }
  const sc_core::sc_time& period() const { return period_; }
  sc_core::sc_time cycles(uint64_t n) const { return period_ * static_cast<double>(n); }
  // Cycles elapsed since time 0 at the frequencies in force over time.
  double cycle_count() const { return base_cycles_ + (sc_core::sc_time_stamp() - base_time_) / period_; }

 private:
  double mhz_ = 0;
  sc_core::sc_time period_;
  double base_cycles_ = 0;
  sc_core::sc_time base_time_;
};

}  // namespace npu::sim
