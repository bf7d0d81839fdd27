// The global registers a driver probes (configuration, capabilities, weight memory), timing-only mode
// globally (npu.functional = false) and per command buffer (the doorbell's TIMING_ONLY bit), and the
// register table itself: every register's access kind holds in the register file, and the named fields
// round-trip and do not overlap.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "npu/sim/npu.h"
#include "sim_bench.h"

namespace {

using namespace npu;
using test::Firmware;

// Fields: get/put round-trip and no two fields of one register share a bit, checked at compile time.
constexpr bool fields_round_trip() {
  for (const auto& f : regs::kFields) {
    if (f.field.width == 0 || f.field.shift + f.field.width > 32) return false;
    for (uint32_t v : {0u, 1u, 0x5A5A5A5Au, 0xA5A5A5A5u, ~0u}) {
      const uint32_t low = f.field.width >= 32 ? v : v & ((1u << f.field.width) - 1u);
      if (f.field.get(f.field.put(v)) != low) return false;
      if (f.field.put(f.field.get(v)) != (v & f.field.mask())) return false;
    }
    for (uint32_t i = 0; i < f.field.width; ++i) {
      if (f.field.get(f.field.bit(i)) != 1u << i) return false;
    }
    if (f.field.bit(f.field.width) != 0) return false;
  }
  return true;
}
static_assert(fields_round_trip(), "a field does not round-trip through put and get");

constexpr bool fields_disjoint() {
  for (size_t i = 0; i < regs::kFields.size(); ++i) {
    for (size_t j = i + 1; j < regs::kFields.size(); ++j) {
      const auto &a = regs::kFields[i], &b = regs::kFields[j];
      if (a.reg == b.reg && (a.field.mask() & b.field.mask())) return false;
    }
  }
  return true;
}
static_assert(fields_disjoint(), "two fields of one register overlap");
static_assert(regs::Field::of_mask(regs::IRQ_DVFS).shift == 17 &&
              regs::Field::of_mask(regs::IRQ_DVFS).width == 1);
static_assert(regs::Field::of_mask(0xF0).shift == 4 && regs::Field::of_mask(0xF0).width == 4);

std::vector<const regs::Register*> all_registers() {
  std::vector<const regs::Register*> v;
  for (const auto& r : regs::kGlobalRegisters) v.push_back(&r);
  for (const auto& r : regs::kThermalRegisters) v.push_back(&r);
  for (const auto& r : regs::kChannelRegisters) v.push_back(&r);
  return v;
}

// Each field is named in its register's description as the Field constant places it: "state[3:0]",
// "pending[8]".
TEST(RegisterTable, DescriptionsNameEachFieldWhereItLies) {
  std::map<std::string, const regs::Register*> by_name;
  for (const auto* r : all_registers()) by_name[std::string(r->name)] = r;
  for (const auto& f : regs::kFields) {
    const auto it = by_name.find(std::string(f.reg));
    ASSERT_NE(it, by_name.end()) << f.reg << " is not in the register table";
    const uint32_t lo = f.field.shift, hi = f.field.shift + f.field.width - 1;
    const std::string text =
        std::string(f.name) + "[" + std::to_string(hi) + (hi == lo ? "" : ":" + std::to_string(lo)) + "]";
    EXPECT_NE(std::string(it->second->description).find(text), std::string::npos)
        << f.reg << ": description \"" << it->second->description << "\" does not name " << text;
  }
}

TEST(RegisterTable, OffsetsAreUniqueAlignedAndFoundByLookup) {
  std::set<uint32_t> seen;
  for (const auto& r : regs::kGlobalRegisters) EXPECT_TRUE(seen.insert(r.offset).second) << r.name;
  for (const auto& r : regs::kThermalRegisters) EXPECT_TRUE(seen.insert(r.offset).second) << r.name;
  for (const auto& r : regs::kChannelRegisters) {
    EXPECT_LT(r.offset, regs::kChannelStride) << r.name;
    EXPECT_TRUE(seen.insert(regs::channel_base(regs::kMaxChannels - 1) + r.offset).second) << r.name;
    EXPECT_EQ(regs::find_register(regs::channel_base(3) + r.offset), &r);
  }
  for (uint32_t off : seen) {
    EXPECT_EQ(off % 4, 0u) << std::hex << off;
    ASSERT_NE(regs::find_register(off), nullptr) << std::hex << off;
  }
  EXPECT_EQ(regs::find_register(0x100), nullptr);
  EXPECT_EQ(regs::find_register(regs::channel_base(regs::kMaxChannels)), nullptr);
}

// One register access at the present instant, its bus delay not waited: the checks below see the
// register file at one point in time, so counters and sensors cannot move between a read and a write.
// Returns whether the register file accepted the access.
bool poke(Firmware& fw, tlm::tlm_command cmd, uint32_t offset, uint32_t& value) {
  sc_core::sc_time delay;
  tlm::tlm_generic_payload gp;
  gp.set_command(cmd);
  gp.set_address(offset);
  gp.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
  gp.set_data_length(4);
  gp.set_streaming_width(4);
  fw.mmio->b_transport(gp, delay);
  return gp.is_response_ok();
}
uint32_t peek(Firmware& fw, uint32_t offset) {
  uint32_t v = 0;
  EXPECT_TRUE(poke(fw, tlm::TLM_READ_COMMAND, offset, v)) << regs::register_name(offset);
  return v;
}
bool put(Firmware& fw, uint32_t offset, uint32_t value) {
  return poke(fw, tlm::TLM_WRITE_COMMAND, offset, value);
}

// Every register of every table (each channel block of the NPU), by its access kind: RO ignores and
// refuses writes, WO reads 0, RW stores what is written, W1C ignores 0s and clears exactly the 1s written.
// Driven by the tables, so a new register is covered as soon as it is listed.
TEST(RegisterTable, EveryRegisterObeysItsAccessKind) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config({"npu.channels=2"}), stats);
  Firmware fw("fw", npu);
  // RW registers whose write is a request, not a store: checked by their own tests.
  const std::set<std::string> rw_with_side_effects{
      "DVFS_OPP",  // starts a DVFS transition; reads the point requested or in force
      "THERM_TRIP0", "THERM_TRIP1", "THERM_TRIP2", "THERM_TRIP3",  // the sensor validates trip and
      "THERM_HYST0", "THERM_HYST1", "THERM_HYST2", "THERM_HYST3",  // hysteresis pairs, may refuse
  };
  // How to make the model set bits in each W1C register (and wait until it has).
  const std::map<std::string, std::function<void()>> raise{
      {"IRQ_STATUS",
       [&] {
         fw.write32(regs::DVFS_OPP, 1);
         while (!(fw.read32(regs::IRQ_STATUS) & regs::IRQ_DVFS)) sc_core::wait(1, sc_core::SC_US);
       }},
      {"THERM_IRQ_STATUS",
       [&] {
         fw.write32(regs::THERM_TRIP(0), 26000);
         npu.inject_thermal_runaway(30.0);
         while (!fw.read32(regs::THERM_IRQ_STATUS)) sc_core::wait(10, sc_core::SC_US);
         npu.inject_thermal_runaway(0.0);
       }},
      {"CH_IRQ_STATUS",
       [&] {
         for (uint32_t ch = 0; ch < npu.channel_count(); ++ch) {
           fw.load(ch, 0x1000 + 0x1000 * ch, {test::fence()});
           fw.ring(ch);
         }
         for (uint32_t ch = 0; ch < npu.channel_count(); ++ch)
           while (!fw.ch_reg(ch, regs::CH_IRQ_STATUS)) sc_core::wait(1, sc_core::SC_US);
       }},
  };
  struct At {
    const regs::Register* reg;
    uint32_t offset;
    std::string name;
  };
  std::vector<At> all;
  for (const auto& r : regs::kGlobalRegisters) all.push_back({&r, r.offset, std::string(r.name)});
  for (const auto& r : regs::kThermalRegisters) all.push_back({&r, r.offset, std::string(r.name)});
  for (uint32_t ch = 0; ch < npu.channel_count(); ++ch)
    for (const auto& r : regs::kChannelRegisters)
      all.push_back(
          {&r, regs::channel_base(ch) + r.offset, regs::register_name(regs::channel_base(ch) + r.offset)});
  for (const auto& a : all) {
    if (a.reg->access != regs::Access::W1C) continue;
    ASSERT_TRUE(raise.count(std::string(a.reg->name))) << a.name << ": W1C with no way to raise it here";
  }
  size_t checked = 0;
  sc_core::sc_spawn([&] {
    for (const auto& a : all) {
      SCOPED_TRACE(a.name);
      const uint32_t before = peek(fw, a.offset);
      switch (a.reg->access) {
        case regs::Access::RO:
          EXPECT_FALSE(put(fw, a.offset, ~0u)) << "a write to a read-only register is refused";
          EXPECT_EQ(peek(fw, a.offset), before);
          EXPECT_FALSE(put(fw, a.offset, 0));
          EXPECT_EQ(peek(fw, a.offset), before);
          break;
        case regs::Access::WO:
          EXPECT_EQ(before, 0u) << "a write-only register reads 0";
          break;
        case regs::Access::RW:
          if (rw_with_side_effects.count(std::string(a.reg->name))) break;
          for (uint32_t v : {0xA5A5A5A5u, 0x5A5A5A5Au, ~0u, 0u, before}) {
            EXPECT_TRUE(put(fw, a.offset, v));
            EXPECT_EQ(peek(fw, a.offset), v);
          }
          break;
        case regs::Access::W1C:
          EXPECT_EQ(before, a.reg->reset) << "nothing has raised it yet";
          EXPECT_TRUE(put(fw, a.offset, ~0u));
          EXPECT_EQ(peek(fw, a.offset), 0u) << "writing 1s sets nothing";
          break;
      }
      ++checked;
    }
    // W1C with bits set by the model: 0s clear nothing, a 1 clears exactly its bit.
    for (const auto& a : all) {
      if (a.reg->access != regs::Access::W1C) continue;
      SCOPED_TRACE(a.name);
      if (a.offset < regs::kChannelBase || a.offset == regs::channel_base(0) + a.reg->offset)
        raise.at(std::string(a.reg->name))();
      // IRQ_STATUS: only the DVFS bit clears here, the channel and thermal bits at their source.
      const uint32_t set = peek(fw, a.offset) & (a.reg->offset == regs::IRQ_STATUS ? regs::IRQ_DVFS : ~0u);
      ASSERT_NE(set, 0u) << "the model did not raise it";
      const uint32_t full = peek(fw, a.offset);
      EXPECT_TRUE(put(fw, a.offset, 0));
      EXPECT_EQ(peek(fw, a.offset), full) << "writing 0s clears nothing";
      EXPECT_TRUE(put(fw, a.offset, ~set));
      EXPECT_EQ(peek(fw, a.offset) & set, set) << "writing 1s elsewhere clears none of the set bits";
      const uint32_t one = set & (~set + 1);  // the lowest set bit
      EXPECT_TRUE(put(fw, a.offset, one));
      EXPECT_EQ(peek(fw, a.offset) & set, set & ~one) << "exactly the bit written clears";
    }
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_EQ(checked, all.size());
}

// Offsets the table does not list behave as before the table was enforced: reads 0, writes accepted
// and dropped (a hole in the global block, a channel block past the NPU's channels).
TEST(RegisterTable, UnmappedOffsetsReadZeroAndDropWrites) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config({"npu.channels=2"}), stats);
  Firmware fw("fw", npu);
  sc_core::sc_spawn([&] {
    for (uint32_t off : {0x100u, regs::channel_base(1) + 0x80, regs::channel_base(2) + regs::CH_STATUS,
                         regs::channel_base(2) + regs::CH_CMD_COUNT}) {
      EXPECT_TRUE(put(fw, off, ~0u)) << std::hex << off;
      EXPECT_EQ(peek(fw, off), 0u) << std::hex << off;
    }
    sc_core::sc_stop();
  });
  sc_core::sc_start();
}

TEST(Registers, ConfigurationCapabilitiesAndWeightMemory) {
  stats::Registry stats;
  sim::Npu npu("npu",
               test::npu_config({"npu.channels=3", "npu.channel.vector.lanes=128", "npu.channel.sram.banks=8",
                                 "npu.dram.size_mib=2048", "npu.weight_memory.mib=256"}),
               stats);
  Firmware fw("fw", npu);
  std::vector<uint32_t> v;
  sc_core::sc_spawn([&] {
    for (uint32_t r : {regs::NPU_CONFIG, regs::NPU_CONFIG2, regs::NPU_CAPS, regs::DRAM_MIB,
                       regs::WEIGHT_MEM_BASE_MIB, regs::WEIGHT_MEM_MIB, regs::DVFS_OPP_MHZ(0),
                       regs::DVFS_OPP_MV(3), regs::THERM_TRIP(2), regs::THERM_TEMP})
      v.push_back(fw.read32(r));
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  ASSERT_EQ(v.size(), 10u);
  EXPECT_EQ(regs::CONFIG_CHANNELS.get(v[0]), 3u);
  EXPECT_EQ(regs::CONFIG_ARRAY_ROWS.get(v[0]), 16u);
  EXPECT_EQ(regs::CONFIG_ARRAY_COLS.get(v[0]), 16u);
  EXPECT_EQ(v[1], regs::CONFIG2_VECTOR_LANES.put(128) | regs::CONFIG2_SRAM_BANKS.put(8) |
                      regs::CONFIG2_DVFS_POINTS.put(4));
  EXPECT_EQ(v[2], regs::CAPS_SAVE_RESTORE | regs::CAPS_FUNCTIONAL | regs::CAPS_FAULT_INJECT);
  EXPECT_EQ(v[3], 2048u);
  EXPECT_EQ(v[4], 2048u - 256u);  // the region sits at the top of device memory
  EXPECT_EQ(v[5], 256u);
  EXPECT_EQ(v[6], 1000u);
  EXPECT_EQ(v[7], 550u);
  EXPECT_EQ(v[8], 85000u);
  EXPECT_EQ(v[9], 25000u);  // ambient before the first sample
}

TEST(Registers, WeightMemoryMustLeaveRoomInDram) {
  stats::Registry stats;
  try {
    sim::Npu npu("npu", test::npu_config({"npu.dram.size_mib=512", "npu.weight_memory.mib=512"}), stats);
    ADD_FAILURE() << "built an NPU whose weight memory fills all of DRAM";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("npu.weight_memory.mib"), std::string::npos) << e.what();
  }
}

// The tile program of ChannelTiming (weights, band, 1×1 CONV, output) run functionally, then with the
// doorbell's TIMING_ONLY bit: same cycles, same energy, and the timing-only run writes no output byte.
TEST(TimingOnly, DoorbellBitTakesTheSameTimeAndEnergyButMovesNoData) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config(), stats);
  Firmware fw("fw", npu);
  const std::vector<desc::Raw> cmds{test::dma_in(0x100000, 0, 1216), test::dma_in(0x200000, 4096, 4096),
                                    test::conv1x1(4096, 8, 8, 64, 0, 16, 1024, 1088, 12288),
                                    test::dma_out(0x300000, 12288, 1024), test::fence()};
  uint64_t cyc[2] = {}, energy[2] = {};
  std::vector<uint8_t> out[2];
  sc_core::sc_spawn([&] {
    const auto w = test::weights_block(64, 16, 5);
    const auto a = test::pattern(4096, 6);
    fw.write_mem(0x100000, w.data(), w.size());
    fw.write_mem(0x200000, a.data(), a.size());
    for (int i = 0; i < 2; ++i) {
      const std::vector<uint8_t> zeros(1024, 0);
      fw.write_mem(0x300000, zeros.data(), zeros.size());
      const uint32_t bits = regs::CH_DOORBELL_START | (i ? regs::CH_DOORBELL_TIMING_ONLY : 0);
      EXPECT_EQ(fw.run(0, 0x1000, cmds, bits), regs::CH_IRQ_DONE);
      cyc[i] = fw.cycles(0);
      energy[i] = fw.read64(regs::channel_base(0) + regs::CH_ENERGY_LO);
      out[i] = fw.read_mem(0x300000, 1024);
    }
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_EQ(cyc[0], cyc[1]);
  EXPECT_EQ(energy[0], energy[1]);
  EXPECT_NE(out[0], std::vector<uint8_t>(1024, 0));
  EXPECT_EQ(out[1], std::vector<uint8_t>(1024, 0));
}

// npu.functional = false: NPU_CAPS says so and no command buffer moves data.
TEST(TimingOnly, GlobalSwitchClearsTheCapabilityAndMovesNoData) {
  stats::Registry stats;
  sim::Npu npu("npu", test::npu_config({"npu.functional=false"}), stats);
  Firmware fw("fw", npu);
  uint32_t caps = 0;
  std::vector<uint8_t> out;
  sc_core::sc_spawn([&] {
    caps = fw.read32(regs::NPU_CAPS);
    const auto a = test::pattern(4096, 6);
    fw.write_mem(0x200000, a.data(), a.size());
    EXPECT_EQ(fw.run(0, 0x1000, {test::dma_in(0x200000, 0, 4096), test::dma_out(0x300000, 0, 4096)}),
              regs::CH_IRQ_DONE);
    out = fw.read_mem(0x300000, 4096);
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  EXPECT_EQ(caps & regs::CAPS_FUNCTIONAL, 0u);
  EXPECT_EQ(out, std::vector<uint8_t>(4096, 0));
  EXPECT_EQ(*stats.find_counter("npu.ch0.dma.bytes_out"), 4096u) << "the bytes are still counted as moved";
}

}  // namespace
