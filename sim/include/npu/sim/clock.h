// A clock domain: the period every block of the NPU core times itself by. The DVFS controller changes
// it between descriptors; blocks read period() when they start an action.
#pragma once

#include <systemc>

namespace npu::sim {

class ClockDomain {
 public:
  explicit ClockDomain(double mhz) { set_mhz(mhz); }
  void set_mhz(double mhz) {
    mhz_ = mhz;
    period_ = sc_core::sc_time(1000.0 / mhz, sc_core::SC_NS);
  }
  double mhz() const { return mhz_; }
  const sc_core::sc_time& period() const { return period_; }
  sc_core::sc_time cycles(uint64_t n) const { return period_ * static_cast<double>(n); }

 private:
  double mhz_ = 0;
  sc_core::sc_time period_;
};

}  // namespace npu::sim
