// Random-graph conformance (tests/hal/random_graph.h): 2,000 seeded graphs, split over four cases so
// each stays a few seconds, each graph run on the NPU device and the CPU reference with 0 mismatches
// allowed. A failing graph is written to $NPUSIM_RANDOM_GRAPH_DIR (default: the test temp directory)
// and named in the failure message with its seed and operations.
#include "random_graph.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "npu/hal/ops/reference_executor.h"
#include "npu/models/io_json.h"
#include "npu/models/model_json.h"

namespace npu::hal::test {
namespace {

void run_seeds(uint64_t first, uint64_t count) {
  const char* env = std::getenv("NPUSIM_RANDOM_GRAPH_DIR");
  const std::string dir = env ? env : ::testing::TempDir();
  auto cfg = system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", {});
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  auto sys = system::System::create(*cfg);
  ASSERT_TRUE(sys.ok()) << sys.error();
  int failures = 0, all_on_npu = 0;
  auto end = (*sys)->run(
      [&](system::System& s) {
        for (uint64_t seed = first; seed < first + count; ++seed) {
          std::string placement;
          const std::string problem = check_random_graph(s, seed, dir, &placement);
          if (placement == "npu") ++all_on_npu;
          if (seed == first)
            std::printf("seed %llu: %s on %s\n", static_cast<unsigned long long>(seed),
                        make_random_graph(seed).summary.c_str(), placement.c_str());
          if (!problem.empty()) {
            ++failures;
            ADD_FAILURE() << problem << " (saved under " << dir << ")";
          }
        }
      },
      600.0);
  ASSERT_TRUE(end.ok()) << end.error();
  EXPECT_EQ(failures, 0);
  // The comparison means something only if the NPU runs the graphs: over a quarter must be wholly on it.
  std::printf("%d of %llu graphs wholly on the NPU\n", all_on_npu, static_cast<unsigned long long>(count));
  EXPECT_GT(all_on_npu, static_cast<int>(count / 4));
}

TEST(RandomGraph, GeneratorIsDeterministic) {
  const RandomGraph a = make_random_graph(42), b = make_random_graph(42), c = make_random_graph(43);
  EXPECT_EQ(a.summary, b.summary);
  EXPECT_EQ(a.model.main.operands.size(), b.model.main.operands.size());
  EXPECT_EQ(a.inputs.begin()->second.data, b.inputs.begin()->second.data);
  EXPECT_NE(a.summary + std::to_string(a.model.main.operands.size()),
            c.summary + std::to_string(c.model.main.operands.size()));
}

// What a failure writes loads back as the same model and inputs (the files `npusim run` replays).
TEST(RandomGraph, SavedGraphLoadsBack) {
  for (uint64_t seed : {3u, 17u, 123u}) {
    const std::string path = save_random_graph(seed, ::testing::TempDir());
    auto m = models::load_model_json(path);
    ASSERT_TRUE(m.ok()) << m.error();
    const RandomGraph g = make_random_graph(seed);
    EXPECT_EQ(m->main.operations.size(), g.model.main.operations.size());
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
      ++compared;
    }
  }
  EXPECT_EQ(compared, 2000);
}

TEST(RandomGraph, Seeds0To499NpuEqualsCpu) { run_seeds(0, 500); }
TEST(RandomGraph, Seeds500To999NpuEqualsCpu) { run_seeds(500, 500); }
TEST(RandomGraph, Seeds1000To1499NpuEqualsCpu) { run_seeds(1000, 500); }
TEST(RandomGraph, Seeds1500To1999NpuEqualsCpu) { run_seeds(1500, 500); }

}  // namespace
}  // namespace npu::hal::test
