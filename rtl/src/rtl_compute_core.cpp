#include "npu/rtl/rtl_compute_core.h"

#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

// verilated_sc.h first: it includes systemc.h, which the SystemC flavour of verilated.h expects (the
// target is built with VM_SC=0, see rtl/CMakeLists.txt, so verilated.h does not include it itself).
#include <verilated_sc.h>
// clang-format off
#include <verilated.h>
// clang-format on
#include <verilated_vcd_c.h>

#include "Vnpu_core_sc_16x16.h"
#include "Vnpu_core_sc_4x4.h"
#include "port_bytes.h"
#include "tile_memory.h"

namespace npu::rtl {

class RtlComputeCore::Impl {
 public:
  virtual ~Impl() = default;
  virtual uint64_t run(const sim::Int8TileCommand& cmd, sc_core::sc_time period) = 0;
};

namespace {

using detail::Lanes;

std::string geometry_name(sim::ArrayGeometry g) {
  return std::to_string(g.rows) + "x" + std::to_string(g.cols);
}

bool has_sc_build(sim::ArrayGeometry g) { return g.rows == g.cols && (g.rows == 4 || g.rows == 16); }

const sc_core::sc_module_name& require_sc_build(const sc_core::sc_module_name& name, sim::ArrayGeometry g) {
  if (!has_sc_build(g)) {
    throw std::invalid_argument(std::string(static_cast<const char*>(name)) +
                                ": no verilated SystemC build of the compute core for a " + geometry_name(g) +
                                " array (built: 4x4, 16x16)");
  }
  return name;
}

// A signal for a verilated port: same value type. Many writers, because successive tiles may be
// issued by different processes of the channel (never two in the same delta cycle).
template <class Port>
using SignalFor =
    sc_core::sc_signal<typename std::remove_reference_t<Port>::data_type, sc_core::SC_MANY_WRITERS>;

template <class Model>
struct CoreSignals {
  SignalFor<decltype(Model::clk)> clk{"clk"};
  SignalFor<decltype(Model::rst_n)> rst_n{"rst_n"};
  SignalFor<decltype(Model::start)> start{"start"};
  SignalFor<decltype(Model::cmd_m)> cmd_m{"cmd_m"};
  SignalFor<decltype(Model::cmd_k)> cmd_k{"cmd_k"};
  SignalFor<decltype(Model::cmd_n)> cmd_n{"cmd_n"};
  SignalFor<decltype(Model::cmd_lda)> cmd_lda{"cmd_lda"};
  SignalFor<decltype(Model::cmd_ldw)> cmd_ldw{"cmd_ldw"};
  SignalFor<decltype(Model::cmd_ldo)> cmd_ldo{"cmd_ldo"};
  SignalFor<decltype(Model::cmd_weight_offset)> cmd_weight_offset{"cmd_weight_offset"};
  SignalFor<decltype(Model::cmd_out_zero_point)> cmd_out_zero_point{"cmd_out_zero_point"};
  SignalFor<decltype(Model::cmd_clamp_lo)> cmd_clamp_lo{"cmd_clamp_lo"};
  SignalFor<decltype(Model::cmd_clamp_hi)> cmd_clamp_hi{"cmd_clamp_hi"};
  SignalFor<decltype(Model::busy)> busy{"busy"};
  SignalFor<decltype(Model::done)> done{"done"};
  SignalFor<decltype(Model::a_rd_en)> a_rd_en{"a_rd_en"};
  SignalFor<decltype(Model::a_rd_addr)> a_rd_addr{"a_rd_addr"};
  SignalFor<decltype(Model::a_rd_bytes)> a_rd_bytes{"a_rd_bytes"};
  SignalFor<decltype(Model::a_rd_data)> a_rd_data{"a_rd_data"};
  SignalFor<decltype(Model::w_rd_en)> w_rd_en{"w_rd_en"};
  SignalFor<decltype(Model::w_rd_addr)> w_rd_addr{"w_rd_addr"};
  SignalFor<decltype(Model::w_rd_bytes)> w_rd_bytes{"w_rd_bytes"};
  SignalFor<decltype(Model::w_rd_data)> w_rd_data{"w_rd_data"};
  SignalFor<decltype(Model::p_rd_en)> p_rd_en{"p_rd_en"};
  SignalFor<decltype(Model::p_rd_idx)> p_rd_idx{"p_rd_idx"};
  SignalFor<decltype(Model::p_rd_bias)> p_rd_bias{"p_rd_bias"};
  SignalFor<decltype(Model::p_rd_mult)> p_rd_mult{"p_rd_mult"};
  SignalFor<decltype(Model::p_rd_shift)> p_rd_shift{"p_rd_shift"};
  SignalFor<decltype(Model::o_wr_en)> o_wr_en{"o_wr_en"};
  SignalFor<decltype(Model::o_wr_addr)> o_wr_addr{"o_wr_addr"};
  SignalFor<decltype(Model::o_wr_bytes)> o_wr_bytes{"o_wr_bytes"};
  SignalFor<decltype(Model::o_wr_data)> o_wr_data{"o_wr_data"};

  void bind(Model& m) {
    m.clk(clk);
    m.rst_n(rst_n);
    m.start(start);
    m.cmd_m(cmd_m);
    m.cmd_k(cmd_k);
    m.cmd_n(cmd_n);
    m.cmd_lda(cmd_lda);
    m.cmd_ldw(cmd_ldw);
    m.cmd_ldo(cmd_ldo);
    m.cmd_weight_offset(cmd_weight_offset);
    m.cmd_out_zero_point(cmd_out_zero_point);
    m.cmd_clamp_lo(cmd_clamp_lo);
    m.cmd_clamp_hi(cmd_clamp_hi);
    m.busy(busy);
    m.done(done);
    m.a_rd_en(a_rd_en);
    m.a_rd_addr(a_rd_addr);
    m.a_rd_bytes(a_rd_bytes);
    m.a_rd_data(a_rd_data);
    m.w_rd_en(w_rd_en);
    m.w_rd_addr(w_rd_addr);
    m.w_rd_bytes(w_rd_bytes);
    m.w_rd_data(w_rd_data);
    m.p_rd_en(p_rd_en);
    m.p_rd_idx(p_rd_idx);
    m.p_rd_bias(p_rd_bias);
    m.p_rd_mult(p_rd_mult);
    m.p_rd_shift(p_rd_shift);
    m.o_wr_en(o_wr_en);
    m.o_wr_addr(o_wr_addr);
    m.o_wr_bytes(o_wr_bytes);
    m.o_wr_data(o_wr_data);
  }
};

// serve_cycle()'s view of the signals.
template <class Model>
class SignalPins {
 public:
  SignalPins(CoreSignals<Model>& s, uint32_t rows, uint32_t cols) : s_(s), rows_(rows), cols_(cols) {}

  bool done() const { return s_.done.read(); }
  bool o_wr_en() const { return s_.o_wr_en.read(); }
  uint32_t o_wr_addr() const { return s_.o_wr_addr.read(); }
  uint32_t o_wr_bytes() const { return s_.o_wr_bytes.read(); }
  void o_wr_data(Lanes& l) const { detail::get_lanes(s_.o_wr_data.read(), l, cols_); }
  bool a_rd_en() const { return s_.a_rd_en.read(); }
  uint32_t a_rd_addr() const { return s_.a_rd_addr.read(); }
  uint32_t a_rd_bytes() const { return s_.a_rd_bytes.read(); }
  void set_a_rd_data(const Lanes& l) { s_.a_rd_data.write(pack(s_.a_rd_data, l, rows_)); }
  bool w_rd_en() const { return s_.w_rd_en.read(); }
  uint32_t w_rd_addr() const { return s_.w_rd_addr.read(); }
  uint32_t w_rd_bytes() const { return s_.w_rd_bytes.read(); }
  void set_w_rd_data(const Lanes& l) { s_.w_rd_data.write(pack(s_.w_rd_data, l, cols_)); }
  bool p_rd_en() const { return s_.p_rd_en.read(); }
  uint32_t p_rd_idx() const { return s_.p_rd_idx.read(); }
  void set_params(uint32_t bias, uint32_t multiplier, uint32_t shift) {
    s_.p_rd_bias.write(bias);
    s_.p_rd_mult.write(multiplier);
    s_.p_rd_shift.write(shift);
  }
  void set_command(uint32_t m, uint32_t k, uint32_t n, uint32_t lda, uint32_t ldw, uint32_t ldo, uint32_t wo,
                   uint32_t zp, uint32_t lo, uint32_t hi) {
    s_.cmd_m.write(m);
    s_.cmd_k.write(k);
    s_.cmd_n.write(n);
    s_.cmd_lda.write(lda);
    s_.cmd_ldw.write(ldw);
    s_.cmd_ldo.write(ldo);
    s_.cmd_weight_offset.write(wo);
    s_.cmd_out_zero_point.write(zp);
    s_.cmd_clamp_lo.write(lo);
    s_.cmd_clamp_hi.write(hi);
  }

 private:
  template <class Signal>
  static auto pack(const Signal& s, const Lanes& l, uint32_t count) {
    auto v = s.read();
    detail::put_lanes(v, l, count);
    return v;
  }

  CoreSignals<Model>& s_;
  uint32_t rows_, cols_;
};

uint64_t now_ps() {
  return static_cast<uint64_t>(sc_core::sc_time_stamp() / sc_core::sc_time(1, sc_core::SC_PS));
}

template <class Model>
class ScCore final : public RtlComputeCore::Impl {
 public:
  ScCore(sim::ArrayGeometry g, std::string vcd_path) : geometry_(g), vcd_path_(std::move(vcd_path)) {
    // Signals only waveforms need are computed only if tracing was enabled before construction.
    // Verilated SystemC models take the thread's current context; make sure it is the process-wide
    // default one, not the context of some plain C++ model that may already be gone.
    Verilated::threadContextp(Verilated::defaultContextp());
    if (!vcd_path_.empty()) Verilated::defaultContextp()->traceEverOn(true);
    model_ = std::make_unique<Model>("rtl");
    signals_.bind(*model_);
  }

  ~ScCore() override {
    if (vcd_) vcd_->close();
  }

  uint64_t run(const sim::Int8TileCommand& cmd, sc_core::sc_time period) override {
    const detail::TileMemory mem(cmd, geometry_);
    // Two half periods that add up to the period exactly, each at least one resolution step so the
    // RTL has evaluated the edge before its outputs are read.
    const uint64_t steps = period.value();
    if (steps < 2) {
      throw std::invalid_argument("RtlComputeCore: clock period " + period.to_string() +
                                  " is shorter than two SystemC time-resolution steps");
    }
    const auto high = sc_core::sc_time::from_value(steps / 2);
    const auto low = sc_core::sc_time::from_value(steps - steps / 2);
    if (!reset_done_) reset();

    const uint64_t limit = detail::hang_limit_cycles(cmd, geometry_);
    SignalPins<Model> pins(signals_, geometry_.rows, geometry_.cols);
    detail::apply_command(pins, cmd);
    signals_.start.write(true);
    Lanes lanes{};
    for (uint64_t cycles = 1;; ++cycles) {
      const uint64_t edge_ps = now_ps();
      signals_.clk.write(true);
      sc_core::wait(high);
      const uint64_t fall_ps = now_ps();
      if (vcd_) vcd_->dump(edge_ps);  // the values the rising edge produced
      signals_.start.write(false);
      const bool done = detail::serve_cycle(pins, mem, lanes);
      signals_.clk.write(false);
      sc_core::wait(low);
      if (vcd_) vcd_->dump(fall_ps);  // the answers served for the next edge
      if (done) return cycles;
      if (cycles > limit) {
        throw std::runtime_error("RtlComputeCore: RTL hung, no done after " + std::to_string(cycles) +
                                 " cycles");
      }
    }
  }

 private:
  // Two clock pulses with rst_n low, in delta cycles: the RTL is reset without simulated time passing.
  void reset() {
    auto delta = [] {
      sc_core::wait(sc_core::SC_ZERO_TIME);
      sc_core::wait(sc_core::SC_ZERO_TIME);
    };
    signals_.rst_n.write(false);
    signals_.start.write(false);
    for (int i = 0; i < 2; ++i) {
      signals_.clk.write(true);
      delta();
      signals_.clk.write(false);
      delta();
    }
    signals_.rst_n.write(true);
    delta();
    reset_done_ = true;
    if (!vcd_path_.empty()) {
      // Tracing attaches to an elaborated, evaluated model: here, not in the constructor.
      vcd_ = std::make_unique<VerilatedVcdC>();
      model_->trace(vcd_.get(), 99);
      vcd_->open(vcd_path_.c_str());
      if (!vcd_->isOpen())
        throw std::invalid_argument("RtlComputeCore: cannot open waveform file " + vcd_path_);
    }
  }

  sim::ArrayGeometry geometry_;
  std::string vcd_path_;
  CoreSignals<Model> signals_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<VerilatedVcdC> vcd_;
  bool reset_done_ = false;
};

std::unique_ptr<RtlComputeCore::Impl> make_impl(sim::ArrayGeometry g, std::string vcd_path) {
  if (g.rows == 4) return std::make_unique<ScCore<Vnpu_core_sc_4x4>>(g, std::move(vcd_path));
  return std::make_unique<ScCore<Vnpu_core_sc_16x16>>(g, std::move(vcd_path));
}

}  // namespace

RtlComputeCore::RtlComputeCore(sc_core::sc_module_name name, sim::ArrayGeometry g,
                               std::function<sc_core::sc_time()> clock_period, std::string vcd_path)
    : sc_core::sc_module(require_sc_build(name, g)), geometry_(g), clock_period_(std::move(clock_period)) {
  if (!clock_period_) throw std::invalid_argument(std::string(this->name()) + ": clock_period is empty");
  // The models' timeprecision is 1 ps (rtl/CMakeLists.txt); waveform times and Verilator's own time
  // keeping assume SystemC counts in the same unit.
  if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS)) {
    throw std::invalid_argument(std::string(this->name()) + ": SystemC time resolution is " +
                                sc_core::sc_get_time_resolution().to_string() + ", the RTL needs 1 ps");
  }
  impl_ = make_impl(g, std::move(vcd_path));
}

RtlComputeCore::~RtlComputeCore() = default;

uint64_t RtlComputeCore::run_int8_tile(const sim::Int8TileCommand& cmd) {
  if (running_) throw std::invalid_argument(std::string(name()) + ": run_int8_tile while a tile is running");
  running_ = true;
  struct Clear {
    bool& flag;
    ~Clear() { flag = false; }
  } clear{running_};
  return impl_->run(cmd, clock_period_());
}

std::vector<sim::ArrayGeometry> rtl_compute_core_geometries() { return {{4, 4}, {16, 16}}; }

std::unique_ptr<sim::ComputeCore> make_rtl_compute_core(sc_core::sc_module_name name, sim::ArrayGeometry g,
                                                        std::function<sc_core::sc_time()> clock_period,
                                                        std::string waves_path) {
  require_sc_build(name, g);
  return std::make_unique<RtlComputeCore>(name, g, std::move(clock_period), std::move(waves_path));
}

}  // namespace npu::rtl
