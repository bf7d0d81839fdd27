// A bare-metal test bench for the simulated NPU: an initiator on its register and memory sockets, as
// firmware would drive it, plus helpers to place command buffers and run them on a channel. Each test
// that builds one runs in its own process (SystemC cannot be reset).
#pragma once

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <systemc>
#include <vector>

#include "npu/common/config.h"
#include "npu/regmap/descriptors.h"
#include "npu/regmap/npu_regs.h"
#include "npu/sim/npu.h"

namespace npu::test {

// The defaults (phone-class preset) with `path=value` overrides applied.
inline sim::NpuConfig npu_config(const std::vector<std::string>& overrides = {}) {
  sim::NpuConfig cfg;
  cfg::Schema schema;
  cfg.declare(schema);
  for (const auto& o : overrides) {
    auto r = schema.set(o);
    EXPECT_TRUE(r.ok()) << o << ": " << (r.ok() ? "" : r.error());
  }
  return cfg;
}

struct Firmware : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Firmware> mmio{"mmio"};
  tlm_utils::simple_initiator_socket<Firmware> mem{"mem"};
  sc_core::sc_in<bool> irq{"irq"};

  Firmware(sc_core::sc_module_name n, sim::Npu& npu) : sc_module(n) {
    mmio.bind(npu.mmio);
    mem.bind(npu.dram().host);
    irq.bind(npu.irq);
  }

  void access(tlm_utils::simple_initiator_socket<Firmware>& s, tlm::tlm_command cmd, uint64_t addr,
              void* data, uint64_t len) {
    sc_core::sc_time delay;
    {
      // Not alive across the wait: a firmware thread parked there at the end would hold it (heap).
      tlm::tlm_generic_payload gp;
      gp.set_command(cmd);
      gp.set_address(addr);
      gp.set_data_ptr(static_cast<unsigned char*>(data));
      gp.set_data_length(static_cast<unsigned>(len));
      gp.set_streaming_width(static_cast<unsigned>(len));
      s->b_transport(gp, delay);
      EXPECT_TRUE(gp.is_response_ok()) << "access at 0x" << std::hex << addr;
    }
    sc_core::wait(delay);
  }
  uint32_t read32(uint32_t off) {
    uint32_t v = 0;
    access(mmio, tlm::TLM_READ_COMMAND, off, &v, 4);
    return v;
  }
  void write32(uint32_t off, uint32_t v) { access(mmio, tlm::TLM_WRITE_COMMAND, off, &v, 4); }
  uint64_t read64(uint32_t lo) { return read32(lo) | (static_cast<uint64_t>(read32(lo + 4)) << 32); }
  void write_mem(uint64_t addr, const void* data, uint64_t len) {
    access(mem, tlm::TLM_WRITE_COMMAND, addr, const_cast<void*>(data), len);
  }
  std::vector<uint8_t> read_mem(uint64_t addr, uint64_t len) {
    std::vector<uint8_t> v(len);
    access(mem, tlm::TLM_READ_COMMAND, addr, v.data(), len);
    return v;
  }
  uint32_t ch_reg(uint32_t ch, uint32_t reg) { return read32(regs::channel_base(ch) + reg); }
  void set_ch_reg(uint32_t ch, uint32_t reg, uint32_t v) { write32(regs::channel_base(ch) + reg, v); }

  // Writes `cmds` at `addr` and points channel `ch` at them (not rung).
  void load(uint32_t ch, uint64_t addr, const std::vector<desc::Raw>& cmds) {
    write_mem(addr, cmds.data(), cmds.size() * desc::kDescriptorBytes);
    set_ch_reg(ch, regs::CH_CMD_BASE_LO, static_cast<uint32_t>(addr));
    set_ch_reg(ch, regs::CH_CMD_BASE_HI, static_cast<uint32_t>(addr >> 32));
    set_ch_reg(ch, regs::CH_CMD_COUNT, static_cast<uint32_t>(cmds.size()));
    set_ch_reg(ch, regs::CH_CMD_START, 0);
  }
  // Rings channel `ch`'s doorbell with `bits` (CH_DOORBELL_*).
  void ring(uint32_t ch, uint32_t bits = regs::CH_DOORBELL_START) { set_ch_reg(ch, regs::CH_DOORBELL, bits); }
  // Waits until channel `ch` has an interrupt pending; returns and acknowledges its CH_IRQ_STATUS.
  uint32_t wait_channel(uint32_t ch) {
    write32(regs::IRQ_MASK, read32(regs::IRQ_MASK) | regs::IRQ_CHANNELS.bit(ch));
    while (!(read32(regs::IRQ_STATUS) & regs::IRQ_CHANNELS.bit(ch))) sc_core::wait(irq.posedge_event());
    const uint32_t bits = ch_reg(ch, regs::CH_IRQ_STATUS);
    set_ch_reg(ch, regs::CH_IRQ_STATUS, bits);
    return bits;
  }
  // load + ring + wait_channel; returns CH_IRQ_STATUS.
  uint32_t run(uint32_t ch, uint64_t addr, const std::vector<desc::Raw>& cmds,
               uint32_t bits = regs::CH_DOORBELL_START) {
    load(ch, addr, cmds);
    ring(ch, bits);
    return wait_channel(ch);
  }
  uint64_t cycles(uint32_t ch) { return read64(regs::channel_base(ch) + regs::CH_CYCLES_LO); }
};

inline desc::Raw dma_in(uint64_t dev, uint32_t sram, uint32_t bytes, uint32_t id = 0) {
  return desc::encode(desc::Dma{{desc::Opcode::DMA_IN, id}, dev, sram, bytes, 1, 0, 0});
}
inline desc::Raw dma_out(uint64_t dev, uint32_t sram, uint32_t bytes, uint32_t id = 0) {
  return desc::encode(desc::Dma{{desc::Opcode::DMA_OUT, id}, dev, sram, bytes, 1, 0, 0});
}
inline desc::Raw fence() { return desc::encode(desc::Fence{{desc::Opcode::FENCE, 0}, 1}); }
inline desc::Raw barrier() { return desc::encode(desc::Header{desc::Opcode::BARRIER, 0}); }

// A 1×1 int8 convolution tile: an in_h × in_w × in_c band at `in`, weights in_c × cout at `w`, bias at
// `bias`, multipliers and shifts at `quant`, output at `out`. Requantisation multiplier 2^30 (× 0.5), shift
// 0.
inline desc::Raw conv1x1(uint32_t in, uint32_t in_h, uint32_t in_w, uint32_t in_c, uint32_t w, uint32_t cout,
                         uint32_t bias, uint32_t quant, uint32_t out) {
  desc::Conv c{};
  c.h = {desc::Opcode::CONV_INT8, 0};
  c.in_sram = in;
  c.in_h = in_h;
  c.in_w = in_w;
  c.in_c = in_c;
  c.w_sram = w;
  c.kh = c.kw = 1;
  c.cout = cout;
  c.bias_sram = bias;
  c.quant_sram = quant;
  c.out_sram = out;
  c.out_h = in_h;
  c.out_w = in_w;
  c.stride_h = c.stride_w = c.dilation_h = c.dilation_w = 1;
  c.clamp_lo = -128;
  c.clamp_hi = 127;
  return desc::encode(c);
}

// Bytes of a seeded pseudo-random pattern.
inline std::vector<uint8_t> pattern(size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  uint32_t x = seed * 2654435761u + 1;
  for (auto& b : v) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<uint8_t>(x >> 24);
  }
  return v;
}

// Per-channel weights block for conv1x1: in_c × cout int8 weights, then cout int32 biases (0), then cout
// multipliers (2^30) and cout shifts (0): the layout the descriptor above expects at w, w + in_c·cout, ...
inline std::vector<uint8_t> weights_block(uint32_t in_c, uint32_t cout, uint32_t seed) {
  std::vector<uint8_t> b = pattern(static_cast<size_t>(in_c) * cout, seed);
  const size_t at = b.size();
  b.resize(at + 12ull * cout, 0);
  for (uint32_t j = 0; j < cout; ++j) {
    const int32_t m = 1 << 30;
    std::memcpy(b.data() + at + 4ull * cout + 4ull * j, &m, 4);
  }
  return b;
}

}  // namespace npu::test
