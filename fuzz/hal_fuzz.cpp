// The HAL as an app drives it, with a model decoded from the bytes (model JSON, as apps hand models to
// npusim): validated, then prepared and executed on the CPU reference device and on the NPU device with
// the same seeded inputs, as Android's DriverFuzzTest does with its random graphs, control flow (IF,
// WHILE, nested) included. Properties: no
// crash or sanitizer report on either device, whatever the model; where both execute, quantised outputs
// are identical and float outputs agree within a tolerance scaled to the output's magnitude.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "npu/hal/device.h"
#include "npu/models/builder.h"
#include "npu/models/model_json.h"
#include "npu/models/validate.h"
#include "platform.h"

namespace {

using namespace npu;

// A model this size executes on the simulated NPU within the input's time bound.
constexpr uint64_t kMaxOperandBytes = 1 << 20;

bool small_graph(const models::Subgraph& g) {
  for (const auto& o : g.operands)
    if (!o.fully_specified() || o.byte_size() > kMaxOperandBytes) return false;
  return g.operations.size() <= 16;
}

// Control flow included (IF, WHILE and their referenced subgraphs, nested): the paths that held the
// unbounded recursion and the endless WHILE are reached. A few subgraphs bound the nesting;
// a WHILE that never ends is a hang past the simulated-time limit (NNAPI's loop timeout ends it first).
bool small_enough(const models::Model& m) {
  return small_graph(m.main) && m.referenced.size() <= 8 &&
         std::all_of(m.referenced.begin(), m.referenced.end(), small_graph);
}

void check_agree(const hal::TensorMap& cpu, const hal::TensorMap& npu, bool relaxed) {
  if (cpu.size() != npu.size()) std::abort();
  for (const auto& [idx, want] : cpu) {
    const auto it = npu.find(idx);
    if (it == npu.end()) std::abort();
    const models::Tensor& got = it->second;
    if (want.dimensions != got.dimensions || want.data.size() != got.data.size()) std::abort();
    if (!models::is_float_type(want.type)) {
      if (want.data != got.data) {
        std::fprintf(stderr, "hal fuzz: operand %u differs between the CPU and the NPU\n", idx);
        std::abort();
      }
      continue;
    }
    double scale = 0;
    for (uint64_t i = 0; i < want.element_count(); ++i) {
      const double e = models::read_element(want.type, want.data, i);
      if (std::isfinite(e)) scale = std::max(scale, std::fabs(e));
    }
    const double tol =
        (relaxed || want.type == models::OperandType::TENSOR_FLOAT16 ? 1e-2 : 1e-3) * (1 + scale);
    for (uint64_t i = 0; i < want.element_count(); ++i) {
      const double e = models::read_element(want.type, want.data, i);
      const double a = models::read_element(got.type, got.data, i);
      if (!std::isfinite(e) || !std::isfinite(a)) continue;  // overflow paths may differ in order
      if (std::fabs(e - a) > tol) {
        std::fprintf(stderr, "hal fuzz: operand %u element %llu: CPU %g, NPU %g\n", idx,
                     static_cast<unsigned long long>(i), e, a);
        std::abort();
      }
    }
  }
}

// Seeds: small models of the kinds the NPU lowers, quantised and float (NPUSIM_FUZZ_WRITE_SEEDS=DIR).
// The control-flow seeds (if_add_mul_float.json, while_count_float.json) are hand-written model JSON in
// fuzz/corpus/hal.
void write_seeds(const std::string& dir) {
  using models::OperandType;
  using models::OperationType;
  const models::QuantParams q{0.05f, 128};
  {
    models::ModelBuilder b(3);
    uint32_t x = b.input(OperandType::TENSOR_QUANT8_ASYMM, {1, 6, 6, 3}, q);
    x = b.conv_2d(x, 4, 3, 3, 1, 1, fx::FusedActivation::RELU6, {0.02f, 128}, q);
    x = b.pool_2d(OperationType::AVERAGE_POOL_2D, x, 2, 2, 2, 2);
    x = b.fully_connected(b.reshape(x, {1, 36}), 5, fx::FusedActivation::NONE, {0.02f, 128}, q);
    b.mark_output(b.softmax(x, 1.0f));
    std::ofstream(dir + "/conv_pool_fc_softmax_quant8.json") << models::to_json(b.model()).dump();
  }
  {
    models::ModelBuilder b(4);
    const uint32_t x = b.input(OperandType::TENSOR_FLOAT32, {1, 5, 5, 4});
    const uint32_t d = b.depthwise_conv_2d(x, 3, 3, 1, 1, fx::FusedActivation::RELU);
    const uint32_t m = b.pool_2d(OperationType::MAX_POOL_2D, d, 2, 2, 1, 1);
    b.mark_output(b.elementwise(OperationType::ADD, m, m, fx::FusedActivation::RELU1));
    std::ofstream(dir + "/depthwise_maxpool_add_float.json") << models::to_json(b.model()).dump();
  }
  {
    models::ModelBuilder b(5);
    const uint32_t x = b.input(OperandType::TENSOR_FLOAT32, {4, 8});
    const uint32_t y = b.fully_connected(x, 8, fx::FusedActivation::NONE);
    b.mark_output(b.logistic(b.elementwise(OperationType::MUL, x, y, fx::FusedActivation::NONE)));
    std::ofstream(dir + "/fc_mul_logistic_float.json") << models::to_json(b.model()).dump();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (const char* dir = std::getenv("NPUSIM_FUZZ_WRITE_SEEDS")) {
    write_seeds(dir);
    std::exit(0);
  }
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto doc = models::parse_json_text(text, "fuzz.json");
  if (!doc) return 0;
  auto model = models::parse_model_json(*doc, "fuzz.json", "");
  if (!model || !models::validate_model(*model) || !small_enough(*model)) return 0;
  // Index inputs (GATHER, EMBEDDING_LOOKUP) mostly in range, so executions get past their checks.
  const hal::TensorMap inputs = models::random_inputs(*model, 1, 3);
  const bool ok = fuzz::run_input(
      [&](system::System& s) {
        static hal::NpuDevice* npu_device = &s.npu_device();  // one device (and its threads) for the run
        auto cpu = s.cpu_device().prepare_model(*model);
        auto npu = npu_device->prepare_model(*model);
        static const bool verbose = std::getenv("NPUSIM_FUZZ_VERBOSE") != nullptr;  // why an input stops
        if (verbose)
          std::fprintf(stderr, "prepare: cpu %s, npu %s\n", cpu.status.message.c_str(),
                       npu.status.message.c_str());
        if (!cpu.status.ok() || !npu.status.ok()) return;
        auto want = cpu.model->execute_synchronously(inputs, false);
        auto got = npu.model->execute_synchronously(inputs, false);
        if (verbose)
          std::fprintf(stderr, "execute: cpu %s, npu %s\n", want.status.message.c_str(),
                       got.status.message.c_str());
        if (want.status.ok() && got.status.ok())
          check_agree(want.outputs, got.outputs, model->relax_computation_float32_to_float16);
      },
      10.0);
  if (!ok) std::abort();
  return 0;
}
