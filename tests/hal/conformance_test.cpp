// NNAPI conformance cases through both devices of the simulated phone (the CPU device and the NPU
// device, which lowers what it can and runs the rest as CPU stages), each case worked by hand below:
// validation (an IF/WHILE input without value, SQUEEZE/TRANSPOSE with one input, RESHAPE of rank 5,
// declared output shapes the operation does not produce), NNAPI's rank limits (L2_NORMALIZATION and
// LOCAL_RESPONSE_NORMALIZATION at ranks 1-3, the element-wise functions at rank 5), types NNAPI allows
// (DEQUANTIZE per channel, LSH_PROJECTION with a float16 hash, QUANTIZED_LSTM's cell scale within
// CheckedLog2's tolerance) and values (quant8 L2_NORMALIZATION of one negative value, relaxed
// LSH_PROJECTION).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "../hal_ops/quantized_16bit_lstm_cts.h"
#include "../hal_ops/quantized_lstm_13_model.h"
#include "hal_test_util.h"
#include "npu/hal/device.h"
#include "test_models.h"

namespace npu::hal::test {
namespace {

using models::Lifetime;
using models::Model;
using models::OperandType;
using models::OperationType;
using ops::test::float_tensor;
using ops::test::floats_of;
using ops::test::GraphBuilder;
using ops::test::int_tensor;
using ops::test::ints_of;

constexpr auto F32 = OperandType::TENSOR_FLOAT32;
constexpr auto F16 = OperandType::TENSOR_FLOAT16;
constexpr auto I32 = OperandType::TENSOR_INT32;
constexpr auto Q8 = OperandType::TENSOR_QUANT8_ASYMM;
constexpr auto B8 = OperandType::TENSOR_BOOL8;

std::vector<Device*> both(system::System& s) { return {&s.cpu_device(), &s.npu_device()}; }

// The prepare_model error of `m` on device `d` (empty when it prepares).
std::string prepare_error(Device& d, const Model& m) {
  auto p = d.prepare_model(m);
  if (p.status.ok()) return "";
  EXPECT_EQ(p.status.code, ErrorStatus::INVALID_ARGUMENT) << p.status.message;
  return p.status.message;
}

// Prepares and runs `m` on `d`; the outputs (empty, with a failure, when either step fails).
TensorMap run_on(Device& d, const Model& m, const TensorMap& inputs) {
  auto p = d.prepare_model(m);
  EXPECT_TRUE(p.status.ok()) << d.name() << ": " << p.status.message;
  if (!p.status.ok()) return {};
  auto r = p.model->execute_synchronously(inputs, false);
  EXPECT_TRUE(r.status.ok()) << d.name() << ": " << r.status.message;
  return r.status.ok() ? r.outputs : TensorMap{};
}

void expect_floats(const std::vector<float>& want, const TensorMap& got, uint32_t operand, const Device& d) {
  ASSERT_TRUE(got.count(operand)) << d.name();
  const std::vector<float> v = floats_of(got.at(operand));
  ASSERT_EQ(v.size(), want.size()) << d.name();
  for (size_t i = 0; i < v.size(); ++i)
    EXPECT_NEAR(v[i], want[i], 1e-5f + 1e-5f * std::fabs(want[i])) << d.name() << " element " << i;
}

// ---- 1. Validation -------------------------------------------------------------------------------

// IF (c, then, else, x) with y = x + x / x * x on [4] (tests/hal/control_flow_test.cpp's model), its
// condition replaced by a NO_VALUE operand: refused at preparation naming input 0 and the operand (on
// main the CPU device refused it only at execution and the NPU device threw map::at there).
TEST(HalConformance, ControlFlowInputWithoutValueIsRefused) {
  Model branches[2];
  for (int b = 0; b < 2; ++b) {
    GraphBuilder g;
    const uint32_t x = g.input(F32, {4});
    const uint32_t y = g.output(F32, {4});
    g.op(b == 0 ? OperationType::ADD : OperationType::MUL, {x, x, g.i32(0)}, {y});
    branches[b] = g.build();
  }
  GraphBuilder g;
  const uint32_t x = g.input(F32, {4});
  const uint32_t y = g.output(F32, {4});
  const uint32_t c = g.omitted(B8);
  g.op(OperationType::IF, {c, g.subgraph(0), g.subgraph(1), x}, {y});
  Model m = g.build();
  m.main.operands[c].dimensions = {1};
  m.referenced = {branches[0].main, branches[1].main};
  run_on_phone([&](system::System& s) {
    for (Device* d : both(s))
      EXPECT_EQ(prepare_error(*d, m), "operations[0] (IF): input 0 (condition): operand " +
                                          std::to_string(c) + " is required but has no value (NO_VALUE)")
          << d->name();
  });
}

// NNAPI 1.1-1.3 count two inputs for SQUEEZE and TRANSPOSE (the second may be NO_VALUE, not left out)
// and take RESHAPE inputs of rank <= 4. The NO_VALUE form still runs: [1, 3, 1] squeezes to [3] and a
// [2, 3] transposes to [3, 2] ([[1,2,3],[4,5,6]] -> [[1,4],[2,5],[3,6]]).
TEST(HalConformance, SqueezeTransposeTakeTwoInputsReshapeRankFour) {
  run_on_phone([&](system::System& s) {
    for (Device* d : both(s)) {
      for (const OperationType t : {OperationType::SQUEEZE, OperationType::TRANSPOSE}) {
        GraphBuilder g;
        const uint32_t in = g.input(F32, {1, 3, 1});
        const uint32_t o = g.output(F32, {});
        g.op(t, {in}, {o});
        EXPECT_EQ(prepare_error(*d, g.build()), "operations[0] (" + std::string(models::to_string(t)) +
                                                    "): expected 2 inputs (input 1 may be NO_VALUE), got 1")
            << d->name();
      }
      GraphBuilder r;
      const uint32_t rin = r.input(F32, {1, 1, 1, 3, 3});
      const uint32_t ro = r.output(F32, {9});
      r.op(OperationType::RESHAPE, {rin, r.ints(I32, {1}, {-1})}, {ro});
      EXPECT_EQ(prepare_error(*d, r.build()),
                "operations[0] (RESHAPE): input 0 (input): expected rank <= 4, got 5")
          << d->name();

      GraphBuilder sq;
      const uint32_t sin = sq.input(F32, {1, 3, 1});
      const uint32_t so = sq.output(F32, {3});
      sq.op(OperationType::SQUEEZE, {sin, sq.omitted(I32)}, {so});
      expect_floats({1, 2, 3}, run_on(*d, sq.build(), {{sin, float_tensor({1, 3, 1}, {1, 2, 3})}}), so, *d);
      GraphBuilder tr;
      const uint32_t tin = tr.input(F32, {2, 3});
      const uint32_t to = tr.output(F32, {3, 2});
      tr.op(OperationType::TRANSPOSE, {tin, tr.omitted(I32)}, {to});
      expect_floats({1, 4, 2, 5, 3, 6},
                    run_on(*d, tr.build(), {{tin, float_tensor({2, 3}, {1, 2, 3, 4, 5, 6})}}), to, *d);
    }
  });
}

// Declared output shapes are checked against what the operation produces, at preparation, on both
// devices. STRIDED_SLICE of [1, 2] taking element 1 with its only axis shrunk produces [1] (NNAPI: a
// full shrink gives [1]); declared [2] it is refused (on main it ran and wrote two elements), declared
// [1] it gives [2]. RESHAPE of 9 elements declared [10] is refused.
TEST(HalConformance, DeclaredOutputShapesAreChecked) {
  auto slice = [](std::vector<uint32_t> declared, uint32_t* in, uint32_t* out) {
    GraphBuilder g;
    *in = g.input(F32, {2});
    *out = g.output(F32, std::move(declared));
    g.op(OperationType::STRIDED_SLICE,
         {*in, g.ints(I32, {1}, {1}), g.ints(I32, {1}, {2}), g.ints(I32, {1}, {1}), g.i32(0), g.i32(0),
          g.i32(1)},
         {*out});
    return g.build();
  };
  run_on_phone([&](system::System& s) {
    for (Device* d : both(s)) {
      uint32_t in = 0;
      uint32_t out = 0;
      const Model wrong = slice({2}, &in, &out);
      EXPECT_EQ(prepare_error(*d, wrong), "operations[0] (STRIDED_SLICE): output 0 (operand " +
                                              std::to_string(out) +
                                              "): declared dimensions [2] but the operation produces [1]")
          << d->name();
      const Model right = slice({1}, &in, &out);
      expect_floats({2}, run_on(*d, right, {{in, float_tensor({2}, {1, 2})}}), out, *d);
      GraphBuilder r;
      const uint32_t rin = r.input(F32, {1, 1, 3, 3});
      const uint32_t ro = r.output(F32, {10});
      r.op(OperationType::RESHAPE, {rin, r.ints(I32, {1}, {-1})}, {ro});
      EXPECT_EQ(prepare_error(*d, r.build()),
                "operations[0] (RESHAPE): output 0 (operand " + std::to_string(ro) +
                    "): declared dimensions [10] but the operation produces [9]")
          << d->name();
    }
  });
}

// RESHAPE whose shape is a model input ([-1] at execution) for 9 elements declared [10]: preparation
// cannot know the shape, so the execution must fail on both devices. The NPU device ran it as a
// 40-byte copy of a 36-byte input and wrote [1..9, 0]; it now leaves such a RESHAPE to the CPU stage,
// which checks the produced shape. Declared [9], it runs and gives the input back on both.
TEST(HalConformance, ReshapeWithAShapeKnownOnlyAtExecutionIsChecked) {
  auto reshape = [](uint32_t declared, uint32_t* in, uint32_t* shape, uint32_t* out) {
    GraphBuilder g;
    *in = g.input(F32, {3, 3});
    *shape = g.input(I32, {1});
    *out = g.output(F32, {declared});
    g.op(OperationType::RESHAPE, {*in, *shape}, {*out});
    return g.build();
  };
  const std::vector<float> nine = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  run_on_phone([&](system::System& s) {
    for (Device* d : both(s)) {
      uint32_t in = 0, shape = 0, out = 0;
      const Model wrong = reshape(10, &in, &shape, &out);
      auto p = d->prepare_model(wrong);
      ASSERT_TRUE(p.status.ok()) << d->name() << ": " << p.status.message;
      const TensorMap inputs = {{in, float_tensor({3, 3}, nine)}, {shape, int_tensor(I32, {1}, {-1})}};
      auto r = p.model->execute_synchronously(inputs, false);
      EXPECT_FALSE(r.status.ok()) << d->name() << " wrote "
                                  << ::testing::PrintToString(floats_of(r.outputs[out]));
      EXPECT_NE(r.status.message.find("declared dimensions [10] but the operation produces [9]"),
                std::string::npos)
          << d->name() << ": " << r.status.message;
      const Model right = reshape(9, &in, &shape, &out);
      expect_floats(nine, run_on(*d, right, inputs), out, *d);
    }
  });
}

// ---- 3. Rank limits as NNAPI's ---------------------------------------------------------------------

// L2_NORMALIZATION without the axis (the last one) at ranks 1, 2, 3: [3, 4] / 5 = [0.6, 0.8] per row.
// LOCAL_RESPONSE_NORMALIZATION (radius 1, bias 1, alpha 1, beta 0.5) of [1, 2] along the last axis:
// each sum of squares over the window is 1 + 4 = 5, so out = x / sqrt(1 + 5) = [0.408248, 0.816497].
TEST(HalConformance, NormalizationsAtRanksOneToThree) {
  run_on_phone([&](system::System& s) {
    for (Device* d : both(s)) {
      for (const std::vector<uint32_t>& dims :
           {std::vector<uint32_t>{2}, std::vector<uint32_t>{1, 2}, std::vector<uint32_t>{1, 1, 2}}) {
        GraphBuilder g;
        const uint32_t in = g.input(F32, dims);
        const uint32_t o = g.output(F32, dims);
        g.op(OperationType::L2_NORMALIZATION, {in}, {o});
        expect_floats({0.6f, 0.8f}, run_on(*d, g.build(), {{in, float_tensor(dims, {3, 4})}}), o, *d);
        GraphBuilder l;
        const uint32_t lin = l.input(F32, dims);
        const uint32_t lo = l.output(F32, dims);
        const uint32_t bias = l.floats({}, {1.0f});
        const uint32_t alpha = l.floats({}, {1.0f});
        const uint32_t beta = l.floats({}, {0.5f});
        l.op(OperationType::LOCAL_RESPONSE_NORMALIZATION, {lin, l.i32(1), bias, alpha, beta}, {lo});
        Model lm = l.build();
        for (uint32_t i : {bias, alpha, beta}) lm.main.operands[i].type = OperandType::FLOAT32;
        expect_floats({0.408248f, 0.816497f}, run_on(*d, lm, {{lin, float_tensor(dims, {1, 2})}}), lo, *d);
      }
    }
  });
}

// The element-wise functions at rank 5 ([1, 1, 1, 1, 2]): ABS [-2, 3] = [2, 3], NEG = [2, -3],
// EXP [0, 1] = [1, e], LOG [1, e] = [0, 1], RSQRT [4, 16] = [0.5, 0.25], SIN [0, pi/2] = [0, 1],
// SQRT [4, 9] = [2, 3]; LOGICAL_NOT [1, 0] = [0, 1].
TEST(HalConformance, ElementwiseFunctionsAtRankFive) {
  const std::vector<uint32_t> dims{1, 1, 1, 1, 2};
  const float e = std::exp(1.0f);
  struct Case {
    OperationType op;
    std::vector<float> in, out;
  };
  const std::vector<Case> cases{
      {OperationType::ABS, {-2, 3}, {2, 3}},          {OperationType::NEG, {-2, 3}, {2, -3}},
      {OperationType::EXP, {0, 1}, {1, e}},           {OperationType::LOG, {1, e}, {0, 1}},
      {OperationType::RSQRT, {4, 16}, {0.5f, 0.25f}}, {OperationType::SIN, {0, 1.5707964f}, {0, 1}},
      {OperationType::SQRT, {4, 9}, {2, 3}}};
  run_on_phone([&](system::System& s) {
    for (Device* d : both(s)) {
      for (const Case& c : cases) {
        SCOPED_TRACE(models::to_string(c.op));
        GraphBuilder g;
        const uint32_t in = g.input(F32, dims);
        const uint32_t o = g.output(F32, dims);
        g.op(c.op, {in}, {o});
        expect_floats(c.out, run_on(*d, g.build(), {{in, float_tensor(dims, c.in)}}), o, *d);
      }
      GraphBuilder g;
      const uint32_t in = g.input(B8, dims);
      const uint32_t o = g.output(B8, dims);
      g.op(OperationType::LOGICAL_NOT, {in}, {o});
      const TensorMap r = run_on(*d, g.build(), {{in, int_tensor(B8, dims, {1, 0})}});
      ASSERT_TRUE(r.count(o)) << d->name();
      EXPECT_EQ(ints_of(r.at(o)), (std::vector<int32_t>{0, 1})) << d->name();
    }
  });
}

// ---- 4. Types NNAPI allows -------------------------------------------------------------------------

// DEQUANTIZE of a TENSOR_QUANT8_SYMM_PER_CHANNEL [2, 2] constant, channel dimension 1 with scales
// [0.5, 0.25]: q [2, 4, -6, 8] -> [2*0.5, 4*0.25, -6*0.5, 8*0.25] = [1, 1, -3, 2], plus x = [0, 0, 0, 1]
// gives [1, 1, -3, 3].
TEST(HalConformance, DequantizePerChannel) {
  GraphBuilder g;
  const uint32_t x = g.input(F32, {2, 2});
  const uint32_t q = g.per_channel({2, 2}, {2, 4, -6, 8}, {0.5f, 0.25f});
  const uint32_t dq = g.temp(F32, {2, 2});
  const uint32_t o = g.output(F32, {2, 2});
  g.op(OperationType::DEQUANTIZE, {q}, {dq});
  g.op(OperationType::ADD, {dq, x, g.i32(0)}, {o});
  Model m = g.build();
  m.main.operands[q].per_channel->channel_dim = 1;
  run_on_phone([&](system::System& s) {
    for (Device* d : both(s))
      expect_floats({1, 1, -3, 3}, run_on(*d, m, {{x, float_tensor({2, 2}, {0, 0, 0, 1})}}), o, *d);
  });
}

// LSH_PROJECTION with a TENSOR_FLOAT16 hash and weight: NNAPI widens each float16 seed to float32 before
// hashing, so seeds exactly representable in float16 give the float32 model's bits. The CTS sparse
// vector's lookups with seeds [0.5, -0.25, 1, -1, 2, 0.125, -4, 8], dense, weight [1, 1, 1]: the float16
// model equals the float32 one on both devices.
TEST(HalConformance, LshProjectionFloat16Hash) {
  const std::vector<float> seeds{0.5f, -0.25f, 1, -1, 2, 0.125f, -4, 8};
  auto model = [&](OperandType t) {
    GraphBuilder g;
    const uint32_t hash = g.floats({4, 2}, seeds, t);
    const uint32_t lookup = g.input(I32, {3, 2});
    const uint32_t w = g.floats({3}, {1, 1, 1}, t);
    const uint32_t o = g.output(I32, {8});
    g.op(OperationType::LSH_PROJECTION, {hash, lookup, w, g.i32(2)}, {o});
    return g.build();
  };
  const TensorMap in{{1, int_tensor(I32, {3, 2}, {12345, 54321, 67890, 9876, -12345678, -87654321})}};
  run_on_phone([&](system::System& s) {
    for (Device* d : both(s)) {
      const TensorMap a = run_on(*d, model(F32), in);
      const TensorMap b = run_on(*d, model(F16), in);
      ASSERT_TRUE(a.count(3) && b.count(3)) << d->name();
      EXPECT_EQ(ints_of(a.at(3)), ints_of(b.at(3))) << d->name();
    }
  });
}

// QUANTIZED_LSTM's cell scale is a power of two as NNAPI's CheckedLog2 tells one (log2 within 1e-3 of an
// integer): 0.00048828 (log2 = -11 - 3.7e-6) gives the exact 2^-11 model's results (case A of
// tests/hal_ops/quantized_lstm_13_test.cpp: cell 1577, output 66); 0.0005 (log2 = -10.966) is refused.
TEST(HalConformance, QuantizedLstmCellScaleWithinLog2Tolerance) {
  using ops::test::qlstm_basic_spec;
  using ops::test::qlstm_model;
  constexpr auto S8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  constexpr auto Q16 = OperandType::TENSOR_QUANT16_SYMM;
  run_on_phone([&](system::System& s) {
    for (Device* d : both(s)) {
      auto sp = qlstm_basic_spec();
      sp.cell_scale = 0.00048828f;
      const ops::test::Qlstm m = qlstm_model(sp);
      const TensorMap in{{m.x, int_tensor(S8, {1, 1}, {61}, sp.x_scale, sp.x_zp)},
                         {m.h_prev, int_tensor(S8, {1, 1}, {21}, sp.state_scale, sp.state_zp)},
                         {m.c_prev, int_tensor(Q16, {1, 1}, {2048}, sp.cell_scale, 0)}};
      const TensorMap r = run_on(*d, m.model, in);
      ASSERT_TRUE(r.count(m.cell_out)) << d->name();
      EXPECT_EQ(ints_of(r.at(m.cell_out)), (std::vector<int32_t>{1577})) << d->name();
      EXPECT_EQ(ints_of(r.at(m.output)), (std::vector<int32_t>{66})) << d->name();
      sp.cell_scale = 0.0005f;
      const std::string err = prepare_error(*d, qlstm_model(sp).model);
      EXPECT_NE(err.find("scale must be a power of two"), std::string::npos) << d->name() << ": " << err;
    }
  });
}

// ---- 5. Values ---------------------------------------------------------------------------------------

// Quant8 L2_NORMALIZATION of a single value (zero point 128): centred -1 normalises to -1, so
// 128 + 128 * -1 = 0; centred -28 also to -1 (0); centred +1 to +1, 256 clamped to 255. The sum of
// squares 1 hits NNAPI's special case (multiplier 1.0, no shift).
TEST(HalConformance, Quant8L2NormalizationOfOneValue) {
  run_on_phone([&](system::System& s) {
    for (Device* d : both(s)) {
      for (const auto& [q, want] : std::vector<std::pair<int32_t, int32_t>>{{127, 0}, {100, 0}, {129, 255}}) {
        GraphBuilder g;
        const uint32_t in = g.input(Q8, {1, 1, 1, 1}, 0.5f, 128);
        const uint32_t o = g.output(Q8, {1, 1, 1, 1}, 1.0f / 128, 128);
        g.op(OperationType::L2_NORMALIZATION, {in}, {o});
        const TensorMap r = run_on(*d, g.build(), {{in, int_tensor(Q8, {1, 1, 1, 1}, {q}, 0.5f, 128)}});
        ASSERT_TRUE(r.count(o)) << d->name();
        EXPECT_EQ(ints_of(r.at(o)), (std::vector<int32_t>{want})) << d->name() << " q " << q;
      }
    }
  });
}

// NNAPI's CTS vector for QUANTIZED_16BIT_LSTM (tests/hal_ops/quantized_16bit_lstm_cts.h) on both devices:
// NNAPI's reference multiplies [input, previous output] by [recurrent weights, input weights] position by
// position; the kernel did it per matrix and gave e.g. -994 where -1235 is expected.
TEST(HalConformance, Quantized16BitLstmCtsVector) {
  const auto cts = ops::test::quantized_16bit_lstm_cts();
  run_on_phone([&](system::System& s) {
    for (Device* d : both(s)) {
      const TensorMap r = run_on(*d, cts.model, cts.inputs);
      ASSERT_TRUE(r.count(cts.c_out) && r.count(cts.h_out)) << d->name();
      EXPECT_EQ(ints_of(r.at(cts.c_out)), cts.want_c) << d->name();
      EXPECT_EQ(ints_of(r.at(cts.h_out)), cts.want_h) << d->name();
    }
  });
}

// Relaxed LSH_PROJECTION hashes the float32 bytes as the unrelaxed one does: the CTS sparse vector
// (hash [0.123, 0.456, -0.321, -0.654, 1.234, 5.678, -4.321, -8.765], weight omitted) gives [1, 2, 2, 0]
// with relaxComputationFloat32toFloat16 too (rounding the seeds to float16 changed the hashes).
TEST(HalConformance, RelaxedLshProjectionHashesFloat32Bytes) {
  GraphBuilder g;
  const uint32_t hash =
      g.floats({4, 2}, {0.123f, 0.456f, -0.321f, -0.654f, 1.234f, 5.678f, -4.321f, -8.765f});
  const uint32_t lookup = g.input(I32, {3, 2});
  const uint32_t o = g.output(I32, {4});
  g.op(OperationType::LSH_PROJECTION, {hash, lookup, g.omitted(F32), g.i32(1)}, {o});
  Model m = g.build();
  m.relax_computation_float32_to_float16 = true;
  run_on_phone([&](system::System& s) {
    for (Device* d : both(s)) {
      const TensorMap r = run_on(
          *d, m, {{lookup, int_tensor(I32, {3, 2}, {12345, 54321, 67890, 9876, -12345678, -87654321})}});
      ASSERT_TRUE(r.count(o)) << d->name();
      EXPECT_EQ(ints_of(r.at(o)), (std::vector<int32_t>{1, 2, 2, 0})) << d->name();
    }
  });
}

}  // namespace
}  // namespace npu::hal::test
