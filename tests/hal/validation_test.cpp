// VTS-style validation (as Android's ValidateModel / ValidateRequest): every field of a valid model and
// of a valid request is mutated systematically, one mutation at a time, and each mutated model must
// be answered INVALID_ARGUMENT by getSupportedOperations and prepareModel on the NPU device, the
// minimal NPU device and the CPU device; each mutated request INVALID_ARGUMENT by execute. Mutations
// that leave a model valid are not generated (e.g. a scalar parameter's value within its range); the
// kinds tried are listed with each case's name, which a failure prints.
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "hal_test_util.h"
#include "npu/hal/device.h"
#include "test_models.h"

namespace npu::hal::test {
namespace {

using models::Lifetime;
using models::Model;
using models::OperandType;
using models::OperationType;

struct Mutation {
  std::string name;
  std::function<void(Model&)> apply;
};

std::string at(const char* what, size_t i) { return std::string(what) + "[" + std::to_string(i) + "]"; }

bool is_quant(OperandType t) {
  return t == OperandType::TENSOR_QUANT8_ASYMM || t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ||
         t == OperandType::TENSOR_QUANT8_SYMM || t == OperandType::TENSOR_QUANT16_ASYMM ||
         t == OperandType::TENSOR_QUANT16_SYMM;
}

// Every mutation of `m` that NNAPI's rules make invalid, one field at a time.
std::vector<Mutation> model_mutations(const Model& m) {
  std::vector<Mutation> out;
  const auto& g = m.main;
  for (size_t i = 0; i < g.operands.size(); ++i) {
    const auto& o = g.operands[i];
    // Types outside the enum.
    for (int32_t bad : {-1, 16, 1000, 0x7fffffff})
      out.push_back({at("operands", i) + ".type=" + std::to_string(bad),
                     [i, bad](Model& x) { x.main.operands[i].type = static_cast<OperandType>(bad); }});
    // Lifetime outside the enum.
    out.push_back({at("operands", i) + ".lifetime=99",
                   [i](Model& x) { x.main.operands[i].lifetime = static_cast<Lifetime>(99); }});
    if (is_quant(o.type)) {
      for (float bad :
           {-1.0f, 0.0f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()})
        out.push_back({at("operands", i) + ".scale=" + std::to_string(bad),
                       [i, bad](Model& x) { x.main.operands[i].scale = bad; }});
      if (o.type == OperandType::TENSOR_QUANT8_ASYMM)
        for (int32_t bad : {-1, 256})
          out.push_back({at("operands", i) + ".zeroPoint=" + std::to_string(bad),
                         [i, bad](Model& x) { x.main.operands[i].zero_point = bad; }});
    }
    if (o.is_constant()) {
      // The data's length must be the operand's byte size.
      out.push_back({at("operands", i) + ".data one byte short",
                     [i](Model& x) { x.main.operands[i].data.pop_back(); }});
      out.push_back({at("operands", i) + ".data one byte long",
                     [i](Model& x) { x.main.operands[i].data.push_back(0); }});
      // A constant the graph claims as an input, or as no value.
      out.push_back({at("operands", i) + ".lifetime=SUBGRAPH_INPUT (not listed in inputIndexes)",
                     [i](Model& x) { x.main.operands[i].lifetime = Lifetime::SUBGRAPH_INPUT; }});
    } else {
      out.push_back({at("operands", i) + " given data",
                     [i](Model& x) { x.main.operands[i].data.assign(x.main.operands[i].byte_size(), 0); }});
      out.push_back({at("operands", i) + ".lifetime=CONSTANT_COPY without data",
                     [i](Model& x) { x.main.operands[i].lifetime = Lifetime::CONSTANT_COPY; }});
    }
    if (models::is_tensor(o.type) && !o.dimensions.empty()) {
      // A tensor's rank changed: every operation here has fixed-rank operands.
      out.push_back(
          {at("operands", i) + " rank + 1", [i](Model& x) { x.main.operands[i].dimensions.push_back(1); }});
      if (o.dimensions.size() > 1)
        out.push_back(
            {at("operands", i) + " rank - 1", [i](Model& x) { x.main.operands[i].dimensions.pop_back(); }});
    }
  }
  for (size_t k = 0; k < g.operations.size(); ++k) {
    const auto& op = g.operations[k];
    for (int32_t bad : {-1, 102, 1000})
      out.push_back({at("operations", k) + ".type=" + std::to_string(bad),
                     [k, bad](Model& x) { x.main.operations[k].type = static_cast<OperationType>(bad); }});
    const auto n = static_cast<uint32_t>(g.operands.size());
    for (size_t j = 0; j < op.inputs.size(); ++j)
      out.push_back({at("operations", k) + at(".inputs", j) + " out of range",
                     [k, j, n](Model& x) { x.main.operations[k].inputs[j] = n; }});
    for (size_t j = 0; j < op.outputs.size(); ++j)
      out.push_back({at("operations", k) + at(".outputs", j) + " out of range",
                     [k, j, n](Model& x) { x.main.operations[k].outputs[j] = n; }});
    out.push_back({at("operations", k) + " last input removed",
                   [k](Model& x) { x.main.operations[k].inputs.pop_back(); }});
    out.push_back({at("operations", k) + " first input removed", [k](Model& x) {
                     x.main.operations[k].inputs.erase(x.main.operations[k].inputs.begin());
                   }});
    out.push_back({at("operations", k) + " an input added (its first again)",
                   [k](Model& x) { x.main.operations[k].inputs.push_back(x.main.operations[k].inputs[0]); }});
    out.push_back(
        {at("operations", k) + " output removed", [k](Model& x) { x.main.operations[k].outputs.clear(); }});
    out.push_back({at("operations", k) + " an output added (its first again)", [k](Model& x) {
                     x.main.operations[k].outputs.push_back(x.main.operations[k].outputs[0]);
                   }});
    out.push_back({at("operations", k) + " removed (its output is never written)", [k](Model& x) {
                     x.main.operations.erase(x.main.operations.begin() + static_cast<long>(k));
                   }});
    out.push_back({at("operations", k) + " writes a graph input",
                   [k](Model& x) { x.main.operations[k].outputs[0] = x.main.input_indexes[0]; }});
  }
  if (g.operations.size() > 1)
    out.push_back({"operations swapped (an operation reads a value before it is written)",
                   [](Model& x) { std::swap(x.main.operations.front(), x.main.operations.back()); }});
  const auto n = static_cast<uint32_t>(g.operands.size());
  for (const bool inputs : {true, false}) {
    const std::string name = inputs ? "inputIndexes" : "outputIndexes";
    auto pick = [inputs](Model& x) -> std::vector<uint32_t>& {
      return inputs ? x.main.input_indexes : x.main.output_indexes;
    };
    out.push_back({name + "[0] out of range", [pick, n](Model& x) { pick(x)[0] = n; }});
    out.push_back({name + " duplicated", [pick](Model& x) { pick(x).push_back(pick(x)[0]); }});
    out.push_back({name + " emptied", [pick](Model& x) { pick(x).clear(); }});
    uint32_t constant = n;
    for (uint32_t i = 0; i < g.operands.size() && constant == n; ++i)
      if (g.operands[i].is_constant()) constant = i;
    out.push_back({name + "[0] names a constant", [pick, constant](Model& x) { pick(x)[0] = constant; }});
  }
  return out;
}

void expect_invalid_everywhere(system::System& s, const Model& base, const char* base_name) {
  Device* devices[] = {&s.npu_device(), &s.npu_device(10000, 1000, NpuDevice::Variant::MINIMAL),
                       &s.cpu_device()};
  // The base model itself is valid on each device.
  for (Device* d : devices) {
    std::vector<bool> flags;
    ASSERT_TRUE(d->supported_operations(base, &flags).ok()) << d->name();
  }
  size_t cases = 0;
  for (const Mutation& mut : model_mutations(base)) {
    Model m = base;
    mut.apply(m);
    for (Device* d : devices) {
      SCOPED_TRACE(std::string(base_name) + ": " + mut.name + " on " + d->name());
      std::vector<bool> flags;
      const Status support = d->supported_operations(m, &flags);
      EXPECT_EQ(support.code, ErrorStatus::INVALID_ARGUMENT) << support.message;
      EXPECT_FALSE(support.message.empty());
      auto p = d->prepare_model(m);
      EXPECT_EQ(p.status.code, ErrorStatus::INVALID_ARGUMENT) << p.status.message;
      EXPECT_EQ(p.model, nullptr);
      ++cases;
    }
  }
  EXPECT_GT(cases, 100u) << base_name;
}

TEST(HalValidation, EveryMutatedFieldOfAQuantModelIsInvalidArgument) {
  run_on_phone(
      [](system::System& s) { expect_invalid_everywhere(s, ops::test::small_quant_model(), "quant"); });
}

TEST(HalValidation, EveryMutatedFieldOfAFloatModelIsInvalidArgument) {
  run_on_phone(
      [](system::System& s) { expect_invalid_everywhere(s, ops::test::small_float_model(), "float"); });
}

// ValidateRequest: inputs missing, extra, of the wrong type, size or dimensions; output capacities
// and buffers that are not the graph's.
TEST(HalValidation, EveryMutatedFieldOfARequestIsInvalidArgument) {
  run_on_phone([](system::System& s) {
    const Model m = ops::test::small_quant_model();
    const TensorMap good = ops::test::inputs_for(m, 1);
    const uint32_t in = m.main.input_indexes[0];
    const uint32_t out = m.main.output_indexes[0];
    std::vector<std::pair<std::string, std::function<void(Request&)>>> cases = {
        {"input missing", [in](Request& r) { r.inputs.erase(in); }},
        {"input for an operand that is not a graph input",
         [out](Request& r) { r.inputs[out] = r.inputs.begin()->second; }},
        {"input one byte short", [in](Request& r) { r.inputs[in].data.pop_back(); }},
        {"input one byte long", [in](Request& r) { r.inputs[in].data.push_back(0); }},
        {"input of another type",
         [in](Request& r) { r.inputs[in].type = OperandType::TENSOR_QUANT8_ASYMM_SIGNED; }},
        {"input of other dimensions",
         [in](Request& r) {
           r.inputs[in].dimensions = {1, 4, 2, 4};
         }},
        {"input out of range", [](Request& r) { r.inputs[1000] = r.inputs.begin()->second; }},
    };
    for (Device* d : {static_cast<Device*>(&s.npu_device()), static_cast<Device*>(&s.cpu_device())}) {
      auto p = d->prepare_model(m);
      ASSERT_TRUE(p.status.ok()) << p.status.message;
      Request ok;
      ok.inputs = good;
      ASSERT_TRUE(p.model->execute_synchronously(ok, {}).status.ok()) << d->name();
      for (const auto& [name, corrupt] : cases) {
        SCOPED_TRACE(name + " on " + d->name());
        Request r = ok;
        corrupt(r);
        auto e = p.model->execute_synchronously(r, {});
        EXPECT_EQ(e.status.code, ErrorStatus::INVALID_ARGUMENT) << e.status.message;
        EXPECT_FALSE(e.status.message.empty());
      }
    }
  });
}

}  // namespace
}  // namespace npu::hal::test
