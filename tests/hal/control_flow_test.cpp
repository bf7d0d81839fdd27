// IF and WHILE (NN HAL 1.3) through the HAL on both devices: the CPU reference runs the referenced
// subgraphs; the NPU device interprets the control flow on the host and runs each subgraph's operations
// on the NPU where they lower (the condition's comparison runs as a CPU stage). Checked: each IF branch,
// a WHILE counting loop with hand-computed results and its iteration count visible in the NPU jobs,
// nested control flow (WHILE in a WHILE body, IF in a WHILE body, three levels) hand-computed, the
// loop timeout (MISSED_DEADLINE_TRANSIENT in simulated time), invalid control-flow models
// (INVALID_ARGUMENT naming the rule), the compilation cache and graphDump of a model with subgraphs.
#include <filesystem>

#include "../hal_ops/test_models.h"
#include "hal_test_util.h"
#include "npu/hal/device.h"
#include "npu/hal/graph_dump.h"
#include "npu/models/validate.h"

namespace npu::hal::test {
namespace {

using models::Model;
using models::OperandType;
using models::OperationType;
using ops::test::float_tensor;
using ops::test::floats_of;
using ops::test::GraphBuilder;
using ops::test::int_tensor;

constexpr auto F32 = OperandType::TENSOR_FLOAT32;
constexpr auto BOOL8 = OperandType::TENSOR_BOOL8;

// IF (c, then, else, x): then y = x + x, else y = x · x, on TENSOR_FLOAT32 [4].
Model if_model() {
  Model branches[2];
  for (int b = 0; b < 2; ++b) {
    GraphBuilder g;
    const uint32_t x = g.input(F32, {4});
    const uint32_t y = g.output(F32, {4});
    g.op(b == 0 ? OperationType::ADD : OperationType::MUL, {x, x, g.i32(0)}, {y});
    branches[b] = g.build();
  }
  GraphBuilder g;
  const uint32_t c = g.input(BOOL8, {1});
  const uint32_t x = g.input(F32, {4});
  const uint32_t y = g.output(F32, {4});
  g.op(OperationType::IF, {c, g.subgraph(0), g.subgraph(1), x}, {y});
  Model m = g.build();
  m.referenced = {branches[0].main, branches[1].main};
  return m;
}

// WHILE x <= n: x = x · factor (x input-output, n input-only; TENSOR_FLOAT32 [1]). Condition
// referenced[0] = LESS_EQUAL(x, n), body referenced[1] = MUL(x, factor).
Model while_model(float factor) {
  GraphBuilder cond;
  {
    const uint32_t x = cond.input(F32, {1});
    const uint32_t n = cond.input(F32, {1});
    const uint32_t b = cond.output(BOOL8, {1});
    cond.op(OperationType::LESS_EQUAL, {x, n}, {b});
  }
  GraphBuilder body;
  {
    const uint32_t x = body.input(F32, {1});
    body.input(F32, {1});
    const uint32_t y = body.output(F32, {1});
    body.op(OperationType::MUL, {x, body.floats({1}, {factor}), body.i32(0)}, {y});
  }
  GraphBuilder g;
  const uint32_t x = g.input(F32, {1});
  const uint32_t n = g.input(F32, {1});
  const uint32_t out = g.output(F32, {1});
  g.op(OperationType::WHILE, {g.subgraph(0), g.subgraph(1), x, n}, {out});
  Model m = g.build();
  m.referenced = {cond.build().main, body.build().main};
  return m;
}

// Nested loops. Outer WHILE over (x, k, n) while x <= n: x = inner(x, k) + 1, k = k · 4 (x
// input-output, k state, n input-only); inner WHILE over (x, k) while x <= k: x = step(x), where
// step is x · 2, or with `if_in_inner` IF (x < 2, then x + 2, else x · 2), a third level.
// referenced: 0 outer condition, 1 outer body (holds the inner WHILE), 2 inner condition, 3 inner
// body, and with the IF 4 its then branch, 5 its else branch.
Model nested_while_model(bool if_in_inner) {
  auto less_equal_cond = [](int inputs) {
    GraphBuilder c;
    const uint32_t x = c.input(F32, {1});
    const uint32_t k = c.input(F32, {1});
    const uint32_t n = inputs == 3 ? c.input(F32, {1}) : k;
    const uint32_t b = c.output(BOOL8, {1});
    c.op(OperationType::LESS_EQUAL, {x, n}, {b});
    return c.build().main;
  };
  GraphBuilder outer_body;
  {
    const uint32_t x = outer_body.input(F32, {1});
    const uint32_t k = outer_body.input(F32, {1});
    outer_body.input(F32, {1});
    const uint32_t y = outer_body.output(F32, {1});
    const uint32_t k4 = outer_body.output(F32, {1});
    const uint32_t t = outer_body.temp(F32, {1});
    outer_body.op(OperationType::WHILE, {outer_body.subgraph(2), outer_body.subgraph(3), x, k}, {t});
    outer_body.op(OperationType::ADD, {t, outer_body.floats({1}, {1}), outer_body.i32(0)}, {y});
    outer_body.op(OperationType::MUL, {k, outer_body.floats({1}, {4}), outer_body.i32(0)}, {k4});
  }
  GraphBuilder inner_body;
  {
    const uint32_t x = inner_body.input(F32, {1});
    inner_body.input(F32, {1});
    const uint32_t y = inner_body.output(F32, {1});
    if (if_in_inner) {
      const uint32_t c = inner_body.temp(BOOL8, {1});
      inner_body.op(OperationType::LESS, {x, inner_body.floats({1}, {2})}, {c});
      inner_body.op(OperationType::IF, {c, inner_body.subgraph(4), inner_body.subgraph(5), x}, {y});
    } else {
      inner_body.op(OperationType::MUL, {x, inner_body.floats({1}, {2}), inner_body.i32(0)}, {y});
    }
  }
  GraphBuilder g;
  const uint32_t x = g.input(F32, {1});
  const uint32_t k = g.input(F32, {1});
  const uint32_t n = g.input(F32, {1});
  const uint32_t out = g.output(F32, {1});
  g.op(OperationType::WHILE, {g.subgraph(0), g.subgraph(1), x, k, n}, {out});
  Model m = g.build();
  m.referenced = {less_equal_cond(3), outer_body.build().main, less_equal_cond(2), inner_body.build().main};
  if (if_in_inner) {
    for (auto [type, operand] : {std::pair{OperationType::ADD, 2.0f}, std::pair{OperationType::MUL, 2.0f}}) {
      GraphBuilder b;
      const uint32_t bx = b.input(F32, {1});
      const uint32_t by = b.output(F32, {1});
      b.op(type, {bx, b.floats({1}, {operand}), b.i32(0)}, {by});
      m.referenced.push_back(b.build().main);
    }
  }
  return m;
}

// IF inside a WHILE body. WHILE (x, n) while x <= n: x = IF (x < 10, then x · 3, else x + 7).
// referenced: 0 condition, 1 body (holds the IF), 2 then, 3 else.
Model if_in_while_model() {
  GraphBuilder cond;
  {
    const uint32_t x = cond.input(F32, {1});
    const uint32_t n = cond.input(F32, {1});
    const uint32_t b = cond.output(BOOL8, {1});
    cond.op(OperationType::LESS_EQUAL, {x, n}, {b});
  }
  GraphBuilder body;
  {
    const uint32_t x = body.input(F32, {1});
    body.input(F32, {1});
    const uint32_t y = body.output(F32, {1});
    const uint32_t c = body.temp(BOOL8, {1});
    body.op(OperationType::LESS, {x, body.floats({1}, {10})}, {c});
    body.op(OperationType::IF, {c, body.subgraph(2), body.subgraph(3), x}, {y});
  }
  Model m;
  {
    GraphBuilder g;
    const uint32_t x = g.input(F32, {1});
    const uint32_t n = g.input(F32, {1});
    const uint32_t out = g.output(F32, {1});
    g.op(OperationType::WHILE, {g.subgraph(0), g.subgraph(1), x, n}, {out});
    m = g.build();
  }
  m.referenced = {cond.build().main, body.build().main};
  for (auto [type, operand] : {std::pair{OperationType::MUL, 3.0f}, std::pair{OperationType::ADD, 7.0f}}) {
    GraphBuilder b;
    const uint32_t bx = b.input(F32, {1});
    const uint32_t by = b.output(F32, {1});
    b.op(type, {bx, b.floats({1}, {operand}), b.i32(0)}, {by});
    m.referenced.push_back(b.build().main);
  }
  return m;
}

TensorMap if_inputs(bool c) {
  return {{0, int_tensor(BOOL8, {1}, {c ? 1 : 0})}, {1, float_tensor({4}, {1, 2, 3, -4})}};
}
TensorMap while_inputs(float x, float n) {
  return {{0, float_tensor({1}, {x})}, {1, float_tensor({1}, {n})}};
}

ExecutionResult run_on(system::System& s, Device& dev, const Model& m, const TensorMap& inputs,
                       uint64_t loop_timeout_ns = kDefaultLoopTimeoutNs, std::string* placement = nullptr) {
  auto p = dev.prepare_model(m);
  EXPECT_TRUE(p.status.ok()) << dev.name() << ": " << p.status.message;
  if (!p.model) {
    ExecutionResult failed;
    failed.status = {ErrorStatus::GENERAL_FAILURE, "not prepared: " + p.status.message};
    return failed;
  }
  if (placement) *placement = p.model->placement();
  Request request;
  request.inputs = inputs;
  ExecuteOptions options;
  options.loop_timeout_ns = loop_timeout_ns;
  (void)s;
  return p.model->execute_synchronously(request, options);
}

TEST(HalControlFlow, IfRunsTheSelectedBranchOnBothDevices) {
  run_on_phone([](system::System& s) {
    for (Device* dev : {static_cast<Device*>(&s.npu_device()), static_cast<Device*>(&s.cpu_device())}) {
      SCOPED_TRACE(dev->name());
      std::string placement;
      auto then_r = run_on(s, *dev, if_model(), if_inputs(true), kDefaultLoopTimeoutNs, &placement);
      ASSERT_TRUE(then_r.status.ok()) << then_r.status.message;
      EXPECT_EQ(floats_of(then_r.outputs.at(2)), (std::vector<float>{2, 4, 6, -8}));
      auto else_r = run_on(s, *dev, if_model(), if_inputs(false));
      ASSERT_TRUE(else_r.status.ok()) << else_r.status.message;
      EXPECT_EQ(floats_of(else_r.outputs.at(2)), (std::vector<float>{1, 4, 9, 16}));
      if (dev->type() == DeviceType::ACCELERATOR) {
        // Each branch is a model of its own on the NPU: the chosen one ran there.
        EXPECT_EQ(placement, "npu; 1 IF/WHILE on the host, subgraphs: referenced[0] npu, referenced[1] npu");
        EXPECT_GT(then_r.command_buffers, 0u);
        EXPECT_GT(else_r.device_cycles, 0u);
      } else {
        EXPECT_EQ(then_r.command_buffers, 0u);
      }
    }
  });
}

// 3 → 6 → 12 → 24 → 48 → 96 → 192: six body runs until x > 100; 50 → 100 → 200: two.
TEST(HalControlFlow, WhileCountingLoopOnBothDevicesWithTheBodyOnTheNpu) {
  run_on_phone([](system::System& s) {
    uint32_t jobs[2] = {0, 0};
    for (Device* dev : {static_cast<Device*>(&s.npu_device()), static_cast<Device*>(&s.cpu_device())}) {
      SCOPED_TRACE(dev->name());
      std::string placement;
      auto six = run_on(s, *dev, while_model(2.0f), while_inputs(3, 100), kDefaultLoopTimeoutNs, &placement);
      ASSERT_TRUE(six.status.ok()) << six.status.message;
      EXPECT_EQ(floats_of(six.outputs.at(2)), (std::vector<float>{192}));
      auto two = run_on(s, *dev, while_model(2.0f), while_inputs(50, 100));
      ASSERT_TRUE(two.status.ok()) << two.status.message;
      EXPECT_EQ(floats_of(two.outputs.at(2)), (std::vector<float>{200}));
      auto none = run_on(s, *dev, while_model(2.0f), while_inputs(101, 100));
      ASSERT_TRUE(none.status.ok()) << none.status.message;
      EXPECT_EQ(floats_of(none.outputs.at(2)), (std::vector<float>{101}));
      if (dev->type() == DeviceType::ACCELERATOR) {
        // The condition (LESS_EQUAL) is a CPU stage, the body's MUL runs on the NPU once per iteration.
        EXPECT_EQ(placement,
                  "npu; 1 IF/WHILE on the host, subgraphs: referenced[0] npu + cpu (1 of 1 operations on the "
                  "CPU), referenced[1] npu");
        jobs[0] = six.command_buffers;
        jobs[1] = two.command_buffers;
        EXPECT_GT(two.command_buffers, 0u);
        EXPECT_EQ(six.command_buffers * 2, two.command_buffers * 6);
        EXPECT_EQ(none.command_buffers, 0u);
        EXPECT_GT(six.device_cycles, two.device_cycles);
      } else {
        EXPECT_EQ(six.command_buffers, 0u);
      }
    }
    EXPECT_GT(jobs[0], jobs[1]);
  });
}

// x · 1 never exceeds n: the loop runs until its 1 ms timeout, in simulated time, on both devices.
TEST(HalControlFlow, WhileLongerThanTheLoopTimeoutFailsMissedDeadlineTransient) {
  run_on_phone([](system::System& s) {
    for (Device* dev : {static_cast<Device*>(&s.npu_device()), static_cast<Device*>(&s.cpu_device())}) {
      SCOPED_TRACE(dev->name());
      const uint64_t t0 = s.os().now_ns();
      auto r = run_on(s, *dev, while_model(1.0f), while_inputs(1, 2), 1'000'000);
      EXPECT_EQ(r.status.code, ErrorStatus::MISSED_DEADLINE_TRANSIENT) << r.status.message;
      EXPECT_NE(r.status.message.find("longer than its timeout of 1000000 ns"), std::string::npos)
          << r.status.message;
      EXPECT_GE(s.os().now_ns() - t0, 1'000'000u);
      EXPECT_LT(s.os().now_ns() - t0, 5'000'000u);
    }
  });
}

// WHILE nested `depth` levels: referenced[0] is the shared condition x <= n, referenced[k] the body at
// level k, whose WHILE runs body k + 1 (the innermost adds 1). From x = n = 1 every level runs its body
// once and returns 2.
Model while_chain_model(uint32_t depth) {
  Model m;
  {
    GraphBuilder g;
    const uint32_t x = g.input(F32, {1});
    const uint32_t n = g.input(F32, {1});
    const uint32_t out = g.output(F32, {1});
    g.op(OperationType::WHILE, {g.subgraph(0), g.subgraph(1), x, n}, {out});
    m = g.build();
  }
  GraphBuilder cond;
  {
    const uint32_t x = cond.input(F32, {1});
    const uint32_t n = cond.input(F32, {1});
    const uint32_t b = cond.output(BOOL8, {1});
    cond.op(OperationType::LESS_EQUAL, {x, n}, {b});
  }
  m.referenced.push_back(cond.build().main);
  for (uint32_t level = 1; level <= depth; ++level) {
    GraphBuilder body;
    const uint32_t x = body.input(F32, {1});
    const uint32_t n = body.input(F32, {1});
    const uint32_t y = body.output(F32, {1});
    if (level < depth)
      body.op(OperationType::WHILE, {body.subgraph(0), body.subgraph(level + 1), x, n}, {y});
    else
      body.op(OperationType::ADD, {x, body.floats({1}, {1}), body.i32(0)}, {y});
    (void)n;
    m.referenced.push_back(body.build().main);
  }
  return m;
}

// Control flow nested kMaxControlFlowDepth levels runs on both devices; one level more (and 4,096) is
// INVALID_ARGUMENT naming the limit, at once. The NPU device crashed at 128 levels (each level recursed
// on the SystemC thread's stack) and 4,096 levels ran for minutes.
TEST(HalControlFlow, NestingIsBoundedAtTheDocumentedDepthOnBothDevices) {
  run_on_phone([](system::System& s) {
    for (Device* dev : {static_cast<Device*>(&s.npu_device()), static_cast<Device*>(&s.cpu_device())}) {
      SCOPED_TRACE(dev->name());
      auto r = run_on(s, *dev, while_chain_model(models::kMaxControlFlowDepth), while_inputs(1, 1));
      ASSERT_TRUE(r.status.ok()) << r.status.message;
      EXPECT_EQ(floats_of(r.outputs.at(2)), (std::vector<float>{2}));
      for (uint32_t depth : {models::kMaxControlFlowDepth + 1, 4096u}) {
        auto p = dev->prepare_model(while_chain_model(depth));
        EXPECT_EQ(p.status.code, ErrorStatus::INVALID_ARGUMENT) << depth;
        EXPECT_NE(p.status.message.find("referenced[1]: IF/WHILE subgraphs nested deeper than 32 levels"),
                  std::string::npos)
            << p.status.message;
      }
    }
  });
}

// A WHILE in a WHILE body (the NPU device crashed on it: its placement recursed through the shared
// subgraph table). x = 1, k = 3, n = 100; inner doubles x while x <= k:
//   outer 1: inner(1, 3)    1 → 2 → 4       +1 = 5,   k = 12
//   outer 2: inner(5, 12)   5 → 10 → 20     +1 = 21,  k = 48
//   outer 3: inner(21, 48)  21 → 42 → 84    +1 = 85,  k = 192
//   outer 4: inner(85, 192) 85 → 170 → 340  +1 = 341; 341 > 100 ends the loop.
TEST(HalControlFlow, WhileNestedInAWhileBodyOnBothDevices) {
  run_on_phone([](system::System& s) {
    for (Device* dev : {static_cast<Device*>(&s.npu_device()), static_cast<Device*>(&s.cpu_device())}) {
      SCOPED_TRACE(dev->name());
      std::string placement;
      auto r =
          run_on(s, *dev, nested_while_model(false),
                 {{0, float_tensor({1}, {1})}, {1, float_tensor({1}, {3})}, {2, float_tensor({1}, {100})}},
                 kDefaultLoopTimeoutNs, &placement);
      ASSERT_TRUE(r.status.ok()) << r.status.message;
      EXPECT_EQ(floats_of(r.outputs.at(3)), (std::vector<float>{341}));
      if (dev->type() == DeviceType::ACCELERATOR) {
        EXPECT_EQ(placement,
                  "npu; 1 IF/WHILE on the host, subgraphs: referenced[0] npu + cpu (1 of 1 operations on the "
                  "CPU), referenced[1] npu (1 IF/WHILE on the host), referenced[2] npu + cpu (1 of 1 "
                  "operations on the CPU), referenced[3] npu");
        EXPECT_GT(r.command_buffers, 0u);
      } else {
        EXPECT_EQ(r.command_buffers, 0u);
      }
    }
  });
}

// An IF in a WHILE body. x = 1, n = 50: 1 → 3 → 9 → 27 (x · 3 while below 10), then x + 7:
// 34 → 41 → 48 → 55; 55 > 50 ends the loop.
TEST(HalControlFlow, IfInsideAWhileBodyOnBothDevices) {
  run_on_phone([](system::System& s) {
    for (Device* dev : {static_cast<Device*>(&s.npu_device()), static_cast<Device*>(&s.cpu_device())}) {
      SCOPED_TRACE(dev->name());
      std::string placement;
      auto r = run_on(s, *dev, if_in_while_model(), while_inputs(1, 50), kDefaultLoopTimeoutNs, &placement);
      ASSERT_TRUE(r.status.ok()) << r.status.message;
      EXPECT_EQ(floats_of(r.outputs.at(2)), (std::vector<float>{55}));
      // The body's LESS is a CPU stage; its IF is interpreted on the host.
      if (dev->type() == DeviceType::ACCELERATOR) {
        EXPECT_EQ(placement,
                  "npu; 1 IF/WHILE on the host, subgraphs: referenced[0] npu + cpu (1 of 1 operations on the "
                  "CPU), referenced[1] npu + cpu (1 of 2 operations on the CPU) (1 IF/WHILE on the host), "
                  "referenced[2] npu, referenced[3] npu");
      }
    }
  });
}

// Three levels: the inner loop's step is an IF (x < 2: x + 2, else x · 2). x = 1, k = 3, n = 100:
//   outer 1: inner(1, 3)    1 → 3 (IF then) → 6          +1 = 7,   k = 12
//   outer 2: inner(7, 12)   7 → 14                       +1 = 15,  k = 48
//   outer 3: inner(15, 48)  15 → 30 → 60                 +1 = 61,  k = 192
//   outer 4: inner(61, 192) 61 → 122 → 244               +1 = 245; 245 > 100 ends the loop.
TEST(HalControlFlow, IfInAWhileInAWhileOnBothDevicesAndFromTheCache) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("npusim_cf_nested_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const TensorMap inputs = {
      {0, float_tensor({1}, {1})}, {1, float_tensor({1}, {3})}, {2, float_tensor({1}, {100})}};
  run_on_phone([&](system::System& s) {
    for (Device* dev : {static_cast<Device*>(&s.npu_device()), static_cast<Device*>(&s.cpu_device())}) {
      SCOPED_TRACE(dev->name());
      std::string placement;
      auto r = run_on(s, *dev, nested_while_model(true), inputs, kDefaultLoopTimeoutNs, &placement);
      ASSERT_TRUE(r.status.ok()) << r.status.message;
      EXPECT_EQ(floats_of(r.outputs.at(3)), (std::vector<float>{245}));
      if (dev->type() == DeviceType::ACCELERATOR) {
        EXPECT_EQ(
            placement,
            "npu; 1 IF/WHILE on the host, subgraphs: referenced[0] npu + cpu (1 of 1 operations on the "
            "CPU), referenced[1] npu (1 IF/WHILE on the host), referenced[2] npu + cpu (1 of 1 operations "
            "on the CPU), referenced[3] npu + cpu (1 of 2 operations on the CPU) (1 IF/WHILE on the "
            "host), referenced[4] npu, referenced[5] npu");
      }
    }
    // The nested subgraphs' programs round-trip through the compilation cache.
    PrepareOptions options;
    options.cache_dir = dir.string();
    options.token = CacheToken{};
    (*options.token)[0] = 7;
    ASSERT_TRUE(s.npu_device().prepare_model(nested_while_model(true), options).status.ok());
    auto cached = s.npu_device().prepare_model_from_cache(options);
    ASSERT_TRUE(cached.status.ok()) << cached.status.message;
    auto r = cached.model->execute_synchronously(inputs, false);
    ASSERT_TRUE(r.status.ok()) << r.status.message;
    EXPECT_EQ(floats_of(r.outputs.at(3)), (std::vector<float>{245}));
  });
  fs::remove_all(dir);
}

// The nested models over many inputs: the NPU device's outputs equal the CPU device's byte for byte (the
// values above are hand-worked for one input each; these are not, so the CPU device is the oracle).
// Inputs x in (0.1, 3), k in (1, 10), n in (10, 300) keep every loop finite and short.
TEST(HalControlFlow, NestedControlFlowOnTheNpuEqualsTheCpuExactlyOverManyInputs) {
  run_on_phone([](system::System& s) {
    const Model models[3] = {nested_while_model(false), nested_while_model(true), if_in_while_model()};
    const uint32_t out_index[3] = {3, 3, 2};
    uint32_t state = 12345;
    auto next = [&](float lo, float hi) {
      state = state * 1664525u + 1013904223u;
      return lo + (hi - lo) * static_cast<float>(state >> 8) / static_cast<float>(1u << 24);
    };
    int compared = 0;
    for (int m = 0; m < 3; ++m) {
      SCOPED_TRACE("model " + std::to_string(m));
      for (int trial = 0; trial < 10; ++trial) {
        const float x = next(0.1f, 3.0f), k = next(1.0f, 10.0f), n = next(10.0f, 300.0f);
        const TensorMap inputs = m < 2 ? TensorMap{{0, float_tensor({1}, {x})},
                                                   {1, float_tensor({1}, {k})},
                                                   {2, float_tensor({1}, {n})}}
                                       : while_inputs(x, n);
        auto npu = run_on(s, s.npu_device(), models[m], inputs);
        auto cpu = run_on(s, s.cpu_device(), models[m], inputs);
        ASSERT_TRUE(npu.status.ok()) << npu.status.message;
        ASSERT_TRUE(cpu.status.ok()) << cpu.status.message;
        EXPECT_EQ(npu.outputs.at(out_index[m]).data, cpu.outputs.at(out_index[m]).data)
            << "x " << x << " k " << k << " n " << n << ": npu " << floats_of(npu.outputs.at(out_index[m]))[0]
            << ", cpu " << floats_of(cpu.outputs.at(out_index[m]))[0];
        EXPECT_GT(npu.command_buffers, 0u);
        ++compared;
      }
    }
    EXPECT_EQ(compared, 30);
  });
}

struct BadCase {
  const char* name;
  std::function<void(Model&)> corrupt;
  const char* reason;
};

TEST(HalControlFlow, InvalidControlFlowModelsAreInvalidArgumentWithTheRule) {
  const std::vector<BadCase> cases = {
      {"condition not BOOL8", [](Model& m) { m.main.operands[0].type = OperandType::TENSOR_INT32; },
       "input 0 (condition): expected TENSOR_BOOL8 [1], got TENSOR_INT32 [1]"},
      {"condition of 2 values", [](Model& m) { m.main.operands[0].dimensions = {2}; },
       "input 0 (condition): expected TENSOR_BOOL8 [1], got TENSOR_BOOL8 [2]"},
      {"then is not a subgraph",
       [](Model& m) { m.main.operations[0].inputs[1] = m.main.operations[0].inputs[3]; },
       "input 1 (then): expected a SUBGRAPH operand"},
      {"branch input count", [](Model& m) { m.main.operations[0].inputs.push_back(1); },
       "then branch referenced[0] has 1 inputs and 1 outputs, the IF passes 2 and takes 1"},
      {"branch output type",
       [](Model& m) {
         auto& o = m.referenced[1].operands[m.referenced[1].output_indexes[0]];
         o.dimensions = {5};
       },
       "output 0 from else branch referenced[1]: TENSOR_FLOAT32 [4] does not match the subgraph's "
       "TENSOR_FLOAT32 [5]"},
      {"subgraph index out of range",
       [](Model& m) { m.main.operands[m.main.operations[0].inputs[2]].subgraph = 7; },
       "SUBGRAPH reference 7 out of range"},
      {"recursion",
       [](Model& m) {
         // The then branch gains an IF whose branches are itself.
         auto& t = m.referenced[0];
         models::Operand sub;
         sub.type = OperandType::SUBGRAPH;
         sub.lifetime = models::Lifetime::SUBGRAPH;
         sub.subgraph = 0;
         t.operands.push_back(sub);
       },
       "references referenced[0], which leads back to it (cycle)"},
  };
  const std::vector<BadCase> while_cases = {
      {"condition gives no BOOL8",
       [](Model& m) {
         auto& c = m.referenced[0];
         c.operations[0].type = OperationType::ADD;
         c.operands[c.output_indexes[0]].type = F32;
       },
       "condition referenced[0] output 0: expected TENSOR_BOOL8 [1], got TENSOR_FLOAT32 [1]"},
      {"body output count",
       [](Model& m) {
         // A second WHILE output: the body gives only one.
         models::Operand o = m.main.operands[m.main.output_indexes[0]];
         m.main.operands.push_back(o);
         const auto idx = static_cast<uint32_t>(m.main.operands.size() - 1);
         m.main.output_indexes.push_back(idx);
         m.main.operations[0].outputs.push_back(idx);
       },
       "body referenced[1] has 1 outputs, expected between 2 (outputs) and 2 (loop inputs)"},
      {"loop input type",
       [](Model& m) {
         m.referenced[1].operands[m.referenced[1].input_indexes[1]].type = OperandType::TENSOR_INT32;
       },
       "input 3 (loop input) into body referenced[1]: TENSOR_FLOAT32 [1] does not match the subgraph's "
       "TENSOR_INT32 [1]"},
  };
  run_on_phone([&](system::System& s) {
    for (const auto* list : {&cases, &while_cases}) {
      for (const BadCase& c : *list) {
        SCOPED_TRACE(c.name);
        Model m = list == &cases ? if_model() : while_model(2.0f);
        c.corrupt(m);
        for (Device* dev : {static_cast<Device*>(&s.npu_device()), static_cast<Device*>(&s.cpu_device())}) {
          auto p = dev->prepare_model(m);
          EXPECT_EQ(p.status.code, ErrorStatus::INVALID_ARGUMENT) << dev->name();
          EXPECT_NE(p.status.message.find(c.reason), std::string::npos)
              << dev->name() << ": " << p.status.message;
          std::vector<bool> flags;
          EXPECT_EQ(dev->supported_operations(m, &flags).code, ErrorStatus::INVALID_ARGUMENT);
        }
      }
    }
  });
}

// The NPU reports IF/WHILE as supported only when every operation of their subgraphs lowers.
TEST(HalControlFlow, SupportedOperationsFollowTheSubgraphs) {
  run_on_phone([](system::System& s) {
    std::vector<bool> flags;
    ASSERT_TRUE(s.npu_device().supported_operations(if_model(), &flags).ok());
    EXPECT_EQ(flags, std::vector<bool>{true});
    ASSERT_TRUE(s.npu_device().supported_operations(while_model(2.0f), &flags).ok());
    EXPECT_EQ(flags, std::vector<bool>{false});
    EXPECT_NE(s.npu_device()
                  .unsupported_reason(while_model(2.0f), 0)
                  .find("referenced[0].operations[0] (LESS_EQUAL)"),
              std::string::npos);
  });
}

TEST(HalControlFlow, CompilationCacheRoundTripOfAModelWithSubgraphs) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("npusim_cf_cache_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  run_on_phone([&](system::System& s) {
    PrepareOptions options;
    options.cache_dir = dir.string();
    options.token = CacheToken{};
    (*options.token)[0] = 42;
    NpuDevice& dev = s.npu_device();
    const uint64_t before = dev.compilations();
    auto first = dev.prepare_model(while_model(2.0f), options);
    ASSERT_TRUE(first.status.ok()) << first.status.message;
    EXPECT_FALSE(first.from_cache);
    // The main graph and its two subgraphs (condition, body).
    EXPECT_EQ(dev.compilations(), before + 3);
    auto second = dev.prepare_model(while_model(2.0f), options);
    ASSERT_TRUE(second.status.ok()) << second.status.message;
    EXPECT_TRUE(second.from_cache) << second.cache_miss;
    auto third = dev.prepare_model_from_cache(options);
    ASSERT_TRUE(third.status.ok()) << third.status.message;
    // The cache holds the subgraphs' programs too: loading it compiles nothing.
    EXPECT_EQ(dev.compilations(), before + 3);
    EXPECT_EQ(third.model->placement(), first.model->placement());
    for (auto* prepared : {second.model.get(), third.model.get()}) {
      auto r = prepared->execute_synchronously(while_inputs(3, 100), false);
      ASSERT_TRUE(r.status.ok()) << r.status.message;
      EXPECT_EQ(floats_of(r.outputs.at(2)), (std::vector<float>{192}));
      EXPECT_GT(r.command_buffers, 0u);
    }
  });
  fs::remove_all(dir);
}

TEST(HalControlFlow, GraphDumpDrawsTheReferencedSubgraphs) {
  const std::string dot = graph_dump(while_model(2.0f));
  EXPECT_NE(dot.find("subgraph cluster_0"), std::string::npos);
  EXPECT_NE(dot.find("subgraph cluster_1"), std::string::npos);
  EXPECT_NE(dot.find("label=\"referenced[1]"), std::string::npos);
  EXPECT_NE(dot.find("WHILE"), std::string::npos);
  EXPECT_NE(dot.find("LESS_EQUAL"), std::string::npos);
}

}  // namespace
}  // namespace npu::hal::test
