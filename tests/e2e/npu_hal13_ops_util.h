// NN HAL 1.2/1.3 operations on the NPU: SLICE, SPLIT, TILE, EXPAND_DIMS, CHANNEL_SHUFFLE,
// RESIZE_NEAREST_NEIGHBOR, same-type CAST and TRANSPOSE (NN HAL 1.1) lowered to DMA patterns
// (hal/src/lower_gather_rows.cpp, lower_copy.cpp), GATHER by the DMA engine's indexed gather
// (lower_gather.cpp), quant8 HARD_SWISH as a vector-unit lookup table and float SIN, ELU and HARD_SWISH as
// vector-unit functions (lower_activation.cpp), ARGMAX/ARGMIN as vector-unit REDUCE (lower_argminmax.cpp),
// PRELU as the vector unit's ELTWISE PRELU (lower_eltwise.cpp), SELECT as its SELECT (lower_select.cpp),
// LOG_SOFTMAX as its SOFTMAX with the log flag (lower_softmax.cpp) and RESIZE_BILINEAR as its
// RESIZE_BILINEAR (lower_resize_bilinear.cpp), through the whole stack (HAL NpuDevice ->
// driver -> simulated NPU) and on the CPU reference device, for every element type they take
// (TENSOR_FLOAT32, TENSOR_FLOAT16, TENSOR_INT32 where NNAPI allows it, TENSOR_QUANT8_ASYMM,
// TENSOR_QUANT8_ASYMM_SIGNED). For the data movements the element values are 0, 1, 2, ... (exact in every
// type), so the expected outputs are the hand-listed source positions; the arithmetic cases work their
// values in comments. Every case checks placement "npu" (no CPU stage), device cycles > 0, both devices
// against the hand values, and NPU == CPU byte for byte.
// Larger cases on a 16 KiB SRAM (many chunks over all channels) compare the NPU with the CPU device.
// Helpers shared by the test files of e2e_npu_hal13_ops_test (npu_hal13_*_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "../hal_ops/test_models.h"
#include "../support/run_both.h"
#include "npu/hal/compiler.h"
#include "npu/system/system.h"

namespace npu_hal13_test {

using npu::hal::ops::test::GraphBuilder;
using npu::hal::ops::test::int_tensor;
using npu::models::Model;
using npu::models::OperandType;
using npu::models::OperationType;
using npu::models::Tensor;

inline constexpr auto I32 = OperandType::TENSOR_INT32;

using npu::testing::Outcome;
using npu::testing::run_both;

// Quantisation of the quant8 operands (any: the operations copy bytes).
inline float scale_of(OperandType t) {
  return t == OperandType::TENSOR_QUANT8_ASYMM || t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ? 0.5f : 0.0f;
}

// A tensor holding 0, 1, ..., n - 1.
inline Tensor iota(OperandType t, std::vector<uint32_t> dims) {
  Tensor x;
  x.type = t;
  x.dimensions = std::move(dims);
  x.scale = scale_of(t);
  const uint64_t n = x.element_count();
  x.data.resize(n * npu::models::element_size(t));
  for (uint64_t i = 0; i < n; ++i) npu::models::write_element(t, x.data, i, static_cast<double>(i % 100));
  return x;
}

// Placement, cycles, both devices against `expected` (element values), and NPU == CPU bytes.
inline void expect_on_npu(const Outcome& o, const std::vector<uint32_t>& outs,
                          const std::vector<std::vector<double>>& expected) {
  ASSERT_TRUE(o.npu.status.ok()) << o.npu.status.message;
  ASSERT_TRUE(o.cpu.status.ok()) << o.cpu.status.message;
  EXPECT_EQ(o.placement, "npu");
  EXPECT_GT(o.npu.device_cycles, 0u);
  for (size_t k = 0; k < outs.size(); ++k) {
    const Tensor& n = o.npu.outputs.at(outs[k]);
    const Tensor& c = o.cpu.outputs.at(outs[k]);
    EXPECT_EQ(n.data, c.data) << "output " << k;
    EXPECT_EQ(n.dimensions, c.dimensions) << "output " << k;
    if (k >= expected.size()) continue;
    ASSERT_EQ(c.element_count(), expected[k].size()) << "output " << k;
    for (size_t i = 0; i < expected[k].size(); ++i)
      EXPECT_EQ(npu::models::read_element(c.type, c.data, i), expected[k][i])
          << "output " << k << " element " << i;
  }
}

inline std::string type_name(const ::testing::TestParamInfo<OperandType>& info) {
  return std::string(npu::models::to_string(info.param)).substr(7);  // drop "TENSOR_"
}

}  // namespace npu_hal13_test
