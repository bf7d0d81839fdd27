// Pins adapters for serve_cycle()/apply_command(): one over the fields of a verilated C++ model, one
// over the sc_signals bound to a verilated SystemC model. Both expose the same member functions.
#pragma once

#include <cstdint>

#include "port_bytes.h"
#include "tile_memory.h"

namespace npu::rtl::detail {

template <class Model>
class ModelPins {
 public:
  ModelPins(Model& m, uint32_t rows, uint32_t cols) : m_(m), rows_(rows), cols_(cols) {}

  bool done() const { return m_.done; }
  bool o_wr_en() const { return m_.o_wr_en; }
  uint32_t o_wr_addr() const { return m_.o_wr_addr; }
  uint32_t o_wr_bytes() const { return m_.o_wr_bytes; }
  void o_wr_data(Lanes& l) const { get_lanes(m_.o_wr_data, l, cols_); }
  bool a_rd_en() const { return m_.a_rd_en; }
  uint32_t a_rd_addr() const { return m_.a_rd_addr; }
  uint32_t a_rd_bytes() const { return m_.a_rd_bytes; }
  void set_a_rd_data(const Lanes& l) { put_lanes(m_.a_rd_data, l, rows_); }
  bool w_rd_en() const { return m_.w_rd_en; }
  uint32_t w_rd_addr() const { return m_.w_rd_addr; }
  uint32_t w_rd_bytes() const { return m_.w_rd_bytes; }
  void set_w_rd_data(const Lanes& l) { put_lanes(m_.w_rd_data, l, cols_); }
  bool p_rd_en() const { return m_.p_rd_en; }
  uint32_t p_rd_idx() const { return m_.p_rd_idx; }
  void set_params(uint32_t bias, uint32_t multiplier, uint32_t shift) {
    m_.p_rd_bias = bias;
    m_.p_rd_mult = multiplier;
    m_.p_rd_shift = shift;
  }
  void set_command(uint32_t m, uint32_t k, uint32_t n, uint32_t lda, uint32_t ldw, uint32_t ldo, uint32_t wo,
                   uint32_t zp, uint32_t lo, uint32_t hi) {
    m_.cmd_m = m;
    m_.cmd_k = k;
    m_.cmd_n = n;
    m_.cmd_lda = lda;
    m_.cmd_ldw = ldw;
    m_.cmd_ldo = ldo;
    m_.cmd_weight_offset = wo;
    m_.cmd_out_zero_point = zp;
    m_.cmd_clamp_lo = lo;
    m_.cmd_clamp_hi = hi;
  }

 private:
  Model& m_;
  uint32_t rows_, cols_;
};

}  // namespace npu::rtl::detail
