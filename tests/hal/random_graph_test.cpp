// Random-graph conformance (tests/hal/random_graph.h): seeds 0 to kSeeds - 1 (chains on even seeds,
// registry cells on odd ones), split over cases so each stays a few seconds, each graph run on the NPU
// device and the CPU reference with 0 mismatches allowed. A failing graph is written to
// $NPUSIM_RANDOM_GRAPH_DIR (default: the test temp directory) and named in the failure message with its
// seed and operations. Coverage: every (operation, type) cell the CPU reference accepts is drawn.
#include "random_graph.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "npu/hal/op_table.h"
#include "npu/hal/ops/operation.h"
#include "npu/hal/ops/reference_executor.h"
#include "npu/models/extensions.h"
#include "npu/models/io_json.h"
#include "npu/models/model_json.h"
#include "npu/models/validate.h"

namespace npu::hal::test {
namespace {

using models::OperandType;
using models::OperationType;

constexpr uint64_t kSeeds = 3000;

// Per-operation and per-type counts of the cells drawn, as one line each.
void print_counts(const std::map<std::pair<OperationType, OperandType>, int>& cells) {
  std::map<std::string, int> per_op, per_type;
  for (const auto& [cell, n] : cells) {
    per_op[std::string(models::to_string(cell.first))] += n;
    per_type[std::string(models::to_string(cell.second))] += n;
  }
  std::string line = "per type:";
  for (const auto& [t, n] : per_type) line += " " + t + " " + std::to_string(n);
  std::printf("%s\n", line.c_str());
  line = "per operation:";
  for (const auto& [op, n] : per_op) line += " " + op + " " + std::to_string(n);
  std::printf("%s\n", line.c_str());
}

void run_seeds(uint64_t first, uint64_t count) {
  const char* env = std::getenv("NPUSIM_RANDOM_GRAPH_DIR");
  const std::string dir = env ? env : ::testing::TempDir();
  auto cfg = system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", {});
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  auto sys = system::System::create(*cfg);
  ASSERT_TRUE(sys.ok()) << sys.error();
  int failures = 0, all_on_npu = 0;
  std::map<std::pair<OperationType, OperandType>, int> drawn;
  auto end = (*sys)->run(
      [&](system::System& s) {
        for (uint64_t seed = first; seed < first + count; ++seed) {
          std::string placement;
          const std::string problem = check_random_graph(s, seed, dir, &placement);
          if (placement == "npu") ++all_on_npu;
          const RandomGraph g = make_conformance_graph(seed);
          for (const auto& cell : g.cells) ++drawn[cell];
          if (seed <= first + 1)
            std::printf("seed %llu: %s on %s\n", static_cast<unsigned long long>(seed), g.summary.c_str(),
                        placement.c_str());
          if (!problem.empty()) {
            ++failures;
            ADD_FAILURE() << problem << " (saved under " << dir << ")";
          }
        }
      },
      600.0);
  ASSERT_TRUE(end.ok()) << end.error();
  EXPECT_EQ(failures, 0);
  // The comparison means something only if the NPU runs the graphs: over a sixth must be wholly on it.
  std::printf("%d of %llu graphs wholly on the NPU\n", all_on_npu, static_cast<unsigned long long>(count));
  EXPECT_GT(all_on_npu, static_cast<int>(count / 6));
  print_counts(drawn);
}

TEST(RandomGraph, GeneratorIsDeterministic) {
  const RandomGraph a = make_random_graph(42), b = make_random_graph(42), c = make_random_graph(43);
  EXPECT_EQ(a.summary, b.summary);
  EXPECT_EQ(a.model.main.operands.size(), b.model.main.operands.size());
  EXPECT_EQ(a.inputs.begin()->second.data, b.inputs.begin()->second.data);
  EXPECT_NE(a.summary + std::to_string(a.model.main.operands.size()),
            c.summary + std::to_string(c.model.main.operands.size()));
}

// What a failure writes loads back as the same model and inputs (the files `npusim run` replays): a few
// chains and the registry graph of every cell, so every operand type goes through the JSON.
TEST(RandomGraph, SavedGraphLoadsBack) {
  std::vector<uint64_t> seeds{0, 2, 124};
  for (uint64_t seed = 1; seed < 2 * registry_cells().size(); seed += 2) seeds.push_back(seed);
  for (uint64_t seed : seeds) {
    const std::string path = save_random_graph(seed, ::testing::TempDir());
    auto m = models::load_model_json(path);
    ASSERT_TRUE(m.ok()) << m.error();
    const RandomGraph g = make_conformance_graph(seed);
    EXPECT_EQ(m->main.operations.size(), g.model.main.operations.size());
    EXPECT_EQ(m->main.operands.size(), g.model.main.operands.size());
    auto in = models::load_io_json(path.substr(0, path.size() - 5) + ".inputs.json", *m);
    ASSERT_TRUE(in.ok()) << in.error();
    ASSERT_EQ(in->size(), g.inputs.size());
    for (const auto& [idx, t] : g.inputs) EXPECT_EQ(in->at(idx).data, t.data) << "seed " << seed;
  }
}

// NN HAL 1.3's rule that a TENSOR_QUANT8_ASYMM_SIGNED operation equals its TENSOR_QUANT8_ASYMM form
// shifted by 128, over the quantised random graphs of seeds 0-1999 on the CPU reference.
TEST(RandomGraph, SignedQuant8IsUnsignedShiftedBy128) {
  int compared = 0;
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    const RandomGraph u = make_random_graph(seed, models::OperandType::TENSOR_QUANT8_ASYMM);
    const RandomGraph sg = make_random_graph(seed, models::OperandType::TENSOR_QUANT8_ASYMM_SIGNED);
    ASSERT_EQ(u.summary, sg.summary) << "seed " << seed;
    for (const auto& [idx, t] : u.inputs) {
      const std::vector<uint8_t>& signed_bytes = sg.inputs.at(idx).data;
      for (size_t i = 0; i < t.data.size(); ++i)
        ASSERT_EQ(static_cast<int>(t.data[i]) - 128, static_cast<int8_t>(signed_bytes[i])) << "seed " << seed;
    }
    auto ru = ops::run_reference(u.model, u.inputs);
    auto rs = ops::run_reference(sg.model, sg.inputs);
    ASSERT_TRUE(ru.ok()) << "seed " << seed << ": " << ru.error();
    ASSERT_TRUE(rs.ok()) << "seed " << seed << ": " << rs.error();
    for (const auto& [idx, t] : *ru) {
      const models::Tensor& st = rs->at(idx);
      ASSERT_EQ(st.type, models::OperandType::TENSOR_QUANT8_ASYMM_SIGNED);
      ASSERT_EQ(t.data.size(), st.data.size());
      for (size_t i = 0; i < t.data.size(); ++i)
        EXPECT_EQ(static_cast<int>(t.data[i]) - 128, static_cast<int8_t>(st.data[i]))
            << "seed " << seed << " (" << u.summary << ") output " << idx << " element " << i;
    }
    ++compared;
  }
  EXPECT_EQ(compared, 2000);
}

// Every cell of the operation x type table the CPU reference accepts is drawn over the seeds the cases
// below run, every registered operation has at least one cell, and every registry graph is valid; so
// coverage cannot shrink without this failing. Prints the per-operation and per-type counts.
TEST(RandomGraph, EveryRegistryCellIsDrawnOverTheTestSeeds) {
  const auto& cells = registry_cells();
  std::set<OperationType> ops_with_cells;
  for (const auto& cell : cells) ops_with_cells.insert(cell.first);
  for (OperationType op : ops::registered_operations())
    EXPECT_TRUE(ops_with_cells.count(op))
        << models::to_string(op) << " has no cell the CPU reference accepts";
  std::map<std::pair<OperationType, OperandType>, int> drawn;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    const RandomGraph g = make_conformance_graph(seed);
    if (seed % 2 == 1) {
      auto v = models::validate_model(g.model);
      ASSERT_TRUE(v.ok()) << "seed " << seed << " (" << g.summary << "): " << v.error();
      auto o = ops::validate_operations(g.model);
      ASSERT_TRUE(o.ok()) << "seed " << seed << " (" << g.summary << "): " << o.error();
    }
    for (const auto& cell : g.cells) ++drawn[cell];
  }
  for (const auto& cell : cells)
    EXPECT_GT(drawn[cell], 0) << models::to_string(cell.first) << " in " << models::to_string(cell.second)
                              << " is never drawn";
  std::printf("%zu registry cells over %zu operations; %zu cells drawn over seeds 0-%llu\n", cells.size(),
              ops_with_cells.size(), drawn.size(), static_cast<unsigned long long>(kSeeds - 1));
  print_counts(drawn);
}

// Registry graphs draw their inputs' sizes: over the test seeds, most operations are run with input
// shapes other than the table's (sizes tied to a constant keep theirs). Prints the count.
TEST(RandomGraph, RegistryGraphsDrawInputShapes) {
  std::set<OperationType> ops_all, ops_reshaped;
  for (uint64_t seed = 1; seed < kSeeds; seed += 2) {
    const RandomGraph g = make_conformance_graph(seed);
    const auto [op, column] = g.cells[g.cells.size() > 1 && g.summary.rfind("ADD -> ", 0) == 0 ? 1 : 0];
    ops_all.insert(op);
    const models::Model probe = operation_probe_model(op, column);
    // The cell's own operation's first input, in the drawn graph and in the table's.
    const models::Operation* drawn = nullptr;
    for (const auto& o : g.model.main.operations)
      if (o.type == op) drawn = &o;
    ASSERT_NE(drawn, nullptr) << "seed " << seed;
    const auto& in_drawn = g.model.main.operands[drawn->inputs[0]].dimensions;
    const auto& in_probe = probe.main.operands[probe.main.operations[0].inputs[0]].dimensions;
    if (in_drawn != in_probe) ops_reshaped.insert(op);
  }
  std::printf("%zu of %zu operations drawn with an input shape other than the table's\n", ops_reshaped.size(),
              ops_all.size());
  EXPECT_GE(ops_reshaped.size() * 2, ops_all.size());
}

// Vendor extension operations are in the table (valid, NPU-lowered) but are never drawn: the CPU reference
// refuses them, so an NPU result has nothing to be compared with. Neither kind of graph holds one.
TEST(RandomGraph, ExtensionOperationsAreNotDrawn) {
  size_t extension_cells = 0;
  for (const OpTableRow& row : probe_operation_table())
    for (const OpTypeCell& c : row.cells)
      if (row.extension && c.valid) {
        ++extension_cells;
        EXPECT_FALSE(c.cpu) << row.name;
        EXPECT_TRUE(c.npu) << row.name;
      }
  EXPECT_EQ(extension_cells, 9u);  // RMS_NORM, ROPE, MATMUL in F32, Q8, S8
  for (const auto& cell : registry_cells()) EXPECT_FALSE(models::is_extension_type(cell.first));
  for (uint64_t seed = 0; seed < kSeeds; ++seed)
    for (const auto& op : make_conformance_graph(seed).model.main.operations)
      ASSERT_FALSE(models::is_extension_type(op.type)) << "seed " << seed;
  std::printf("%zu vendor-extension cells (NPU only, no CPU reference) not drawn\n", extension_cells);
}

// The same rule over the registry graphs: for every operation with both a TENSOR_QUANT8_ASYMM and a
// TENSOR_QUANT8_ASYMM_SIGNED cell (except those NN HAL 1.3 exempts: CAST, HASHTABLE_LOOKUP,
// LSH_PROJECTION, PAD_V2, QUANTIZED_16BIT_LSTM), the two graphs of a seed are drawn alike (every
// quant8 value and zero point 128 apart) and, on the CPU reference, every quant8 output of the signed
// graph is the unsigned one - 128 and every other output is equal.
TEST(RandomGraph, RegistrySignedQuant8IsUnsignedShiftedBy128) {
  const auto& cells = registry_cells();
  auto index_of = [&](OperationType op, OperandType t) -> int64_t {
    for (size_t i = 0; i < cells.size(); ++i)
      if (cells[i] == std::make_pair(op, t)) return static_cast<int64_t>(i);
    return -1;
  };
  const std::set<OperationType> exempt = {OperationType::CAST, OperationType::HASHTABLE_LOOKUP,
                                          OperationType::LSH_PROJECTION, OperationType::PAD_V2,
                                          OperationType::QUANTIZED_16BIT_LSTM};
  auto quant8 = [](OperandType t) {
    return t == OperandType::TENSOR_QUANT8_ASYMM || t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  };
  int operations = 0, compared = 0;
  for (OperationType op : ops::registered_operations()) {
    const int64_t qu = index_of(op, OperandType::TENSOR_QUANT8_ASYMM);
    const int64_t qs = index_of(op, OperandType::TENSOR_QUANT8_ASYMM_SIGNED);
    if (qu < 0 || qs < 0 || exempt.count(op)) continue;
    ++operations;
    for (uint64_t seed = 0; seed < 8; ++seed) {
      const RandomGraph u = make_registry_graph(seed, static_cast<uint64_t>(qu));
      const RandomGraph sg = make_registry_graph(seed, static_cast<uint64_t>(qs));
      const std::string what = std::string(models::to_string(op)) + " seed " + std::to_string(seed);
      ASSERT_EQ(u.model.main.operands.size(), sg.model.main.operands.size()) << what;
      for (size_t i = 0; i < u.model.main.operands.size(); ++i) {
        const models::Operand &a = u.model.main.operands[i], &b = sg.model.main.operands[i];
        if (a.type == OperandType::TENSOR_QUANT8_ASYMM) {
          ASSERT_EQ(b.type, OperandType::TENSOR_QUANT8_ASYMM_SIGNED) << what << " operand " << i;
          ASSERT_EQ(a.scale, b.scale) << what << " operand " << i;
          ASSERT_EQ(a.zero_point - 128, b.zero_point) << what << " operand " << i;
        }
      }
      auto ru = ops::run_reference(u.model, u.inputs);
      auto rs = ops::run_reference(sg.model, sg.inputs);
      // Refusing the drawn values (e.g. no box above the thresholds) must then happen to both alike.
      if (!ru.ok() && !rs.ok() && ru.error() == rs.error()) continue;
      ASSERT_TRUE(ru.ok()) << what << ": " << ru.error();
      ASSERT_TRUE(rs.ok()) << what << ": " << rs.error();
      for (const auto& [idx, t] : *ru) {
        const models::Tensor& st = rs->at(idx);
        ASSERT_EQ(t.data.size(), st.data.size()) << what;
        if (!quant8(t.type)) {
          EXPECT_EQ(t.data, st.data) << what << " (" << u.summary << ") output " << idx;
        } else {
          for (size_t i = 0; i < t.data.size(); ++i)
            EXPECT_EQ(static_cast<int>(t.data[i]) - 128, static_cast<int8_t>(st.data[i]))
                << what << " (" << u.summary << ") output " << idx << " element " << i;
        }
        ++compared;
      }
    }
  }
  std::printf("%d operations, %d outputs compared\n", operations, compared);
  EXPECT_GT(operations, 40);
}

TEST(RandomGraph, Seeds0To499NpuEqualsCpu) { run_seeds(0, 500); }
TEST(RandomGraph, Seeds500To999NpuEqualsCpu) { run_seeds(500, 500); }
TEST(RandomGraph, Seeds1000To1499NpuEqualsCpu) { run_seeds(1000, 500); }
TEST(RandomGraph, Seeds1500To1999NpuEqualsCpu) { run_seeds(1500, 500); }
TEST(RandomGraph, Seeds2000To2499NpuEqualsCpu) { run_seeds(2000, 500); }
TEST(RandomGraph, Seeds2500To2999NpuEqualsCpu) { run_seeds(2500, 500); }

}  // namespace
}  // namespace npu::hal::test
