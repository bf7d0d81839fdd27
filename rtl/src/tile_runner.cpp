#include "npu/rtl/tile_runner.h"

#include <verilated.h>
#include <verilated_vcd_c.h>

#include <stdexcept>
#include <string>

#include "Vnpu_core_16x16.h"
#include "Vnpu_core_32x32.h"
#include "Vnpu_core_4x16.h"
#include "Vnpu_core_4x4.h"
#include "Vnpu_core_8x8.h"
#include "tile_memory.h"
#include "verilated_pins.h"

namespace npu::rtl {
namespace {

using detail::Lanes;

// Half a cycle of the nominal clock the waveforms are drawn with (1 GHz), in the RTL's 1 ps precision.
constexpr uint64_t kHalfCyclePs = 500;

template <class Model>
class VerilatedTileRunner final : public TileRunner {
 public:
  VerilatedTileRunner(sim::ArrayGeometry g, const std::string& vcd_path)
      : geometry_(g), context_(std::make_unique<VerilatedContext>()) {
    // Signals only waveforms need are computed only if tracing was enabled before construction.
    if (!vcd_path.empty()) context_->traceEverOn(true);
    model_ = std::make_unique<Model>(context_.get(), "npu_compute_core");
    // Building a model makes its context the thread's current one; a verilated SystemC model built
    // later takes that current context, which must not be ours (it dies with this runner).
    Verilated::threadContextp(Verilated::defaultContextp());
    if (!vcd_path.empty()) {
      vcd_ = std::make_unique<VerilatedVcdC>();
      model_->trace(vcd_.get(), 99);
      vcd_->open(vcd_path.c_str());
      if (!vcd_->isOpen()) throw std::invalid_argument("cannot open waveform file " + vcd_path);
    }
    model_->rst_n = 0;
    model_->start = 0;
    for (int i = 0; i < 2; ++i) cycle();
    model_->rst_n = 1;
    cycle();
  }

  ~VerilatedTileRunner() override {
    model_->final();
    if (vcd_) vcd_->close();
  }

  sim::ArrayGeometry geometry() const override { return geometry_; }
  uint64_t total_cycles() const override { return total_cycles_; }

  uint64_t run(const sim::Int8TileCommand& cmd) override {
    const detail::TileMemory mem(cmd, geometry_);
    const uint64_t limit = detail::hang_limit_cycles(cmd, geometry_);
    detail::ModelPins<Model> pins(*model_, geometry_.rows, geometry_.cols);
    detail::apply_command(pins, cmd);
    model_->start = 1;
    Lanes lanes{};
    for (uint64_t cycles = 1;; ++cycles) {
      edge(1);
      model_->start = 0;
      const bool done = detail::serve_cycle(pins, mem, lanes);
      edge(0);
      if (done) return cycles;
      if (cycles > limit) {
        throw std::runtime_error("RTL compute core hung: no done after " + std::to_string(cycles) +
                                 " cycles");
      }
    }
  }

 private:
  void edge(uint8_t level) {
    model_->clk = level;
    model_->eval();
    if (vcd_) vcd_->dump(time_ps_);
    time_ps_ += kHalfCyclePs;
    if (level) ++total_cycles_;
  }
  void cycle() {
    edge(1);
    edge(0);
  }

  sim::ArrayGeometry geometry_;
  std::unique_ptr<VerilatedContext> context_;  // outlives the model
  std::unique_ptr<Model> model_;
  std::unique_ptr<VerilatedVcdC> vcd_;
  uint64_t time_ps_ = 0;
  uint64_t total_cycles_ = 0;
};

std::string geometry_name(sim::ArrayGeometry g) {
  return std::to_string(g.rows) + "x" + std::to_string(g.cols);
}

}  // namespace

std::vector<sim::ArrayGeometry> tile_runner_geometries() {
  return {{4, 4}, {8, 8}, {16, 16}, {32, 32}, {4, 16}};
}

std::unique_ptr<TileRunner> make_tile_runner(sim::ArrayGeometry g, const std::string& vcd_path) {
  const auto is = [&](uint32_t rows, uint32_t cols) { return g.rows == rows && g.cols == cols; };
  if (is(4, 4)) return std::make_unique<VerilatedTileRunner<Vnpu_core_4x4>>(g, vcd_path);
  if (is(8, 8)) return std::make_unique<VerilatedTileRunner<Vnpu_core_8x8>>(g, vcd_path);
  if (is(16, 16)) return std::make_unique<VerilatedTileRunner<Vnpu_core_16x16>>(g, vcd_path);
  if (is(32, 32)) return std::make_unique<VerilatedTileRunner<Vnpu_core_32x32>>(g, vcd_path);
  if (is(4, 16)) return std::make_unique<VerilatedTileRunner<Vnpu_core_4x16>>(g, vcd_path);
  throw std::invalid_argument("no verilated C++ build of the compute core for a " + geometry_name(g) +
                              " array (built: 4x4, 8x8, 16x16, 32x32, 4x16)");
}

}  // namespace npu::rtl
