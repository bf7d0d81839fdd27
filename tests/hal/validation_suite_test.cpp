// A validation campaign in the style of VTS's ValidateModel and the runtime's
// TestValidateOperations: every operation's example models (the op × type table's probe models, one per
// operation and column type, made fully specified by shape inference, plus an IF and a WHILE model) are
// mutated one definitely-invalid change at a time, and each mutant must be refused by prepare_model on the
// CPU device and the NPU device with INVALID_ARGUMENT and one line naming the operand (or, for the
// operation-level kinds, the operation). Validation only: a refused model is never compiled or run.
// The counts per kind are printed; any acceptance or exception fails the test. Mutations NNAPI makes
// valid are not generated (each exception says why, next to the generator).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "hal_test_util.h"
#include "npu/hal/device.h"
#include "npu/hal/op_table.h"
#include "npu/hal/ops/reference_executor.h"
#include "npu/models/validate.h"
#include "test_models.h"

namespace npu::hal::test {
namespace {

using models::Lifetime;
using models::Model;
using models::Operand;
using models::OperandType;
using models::OperationType;

struct Base {
  std::string name;
  Model model;
};

// Kinds whose message names the operation rather than one operand.
bool names_the_operation(const std::string& kind) {
  return kind == "operation type" || kind == "input count" || kind == "output count";
}

struct Mutant {
  std::string kind;
  std::string what;
  Model model;
};

bool is_quant(OperandType t) {
  switch (t) {
    case OperandType::TENSOR_QUANT8_ASYMM:
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT16_ASYMM:
    case OperandType::TENSOR_QUANT16_SYMM:
      return true;
    default:
      return false;
  }
}

// The probe models with every operand's shape made explicit (so a changed input shows as a conflict
// with the declared output), then IF and WHILE.
std::vector<Base> base_models() {
  std::vector<Base> out;
  for (int32_t code = 0; code <= static_cast<int32_t>(OperationType::RANK); ++code) {
    const auto op = static_cast<OperationType>(code);
    if (op == OperationType::IF || op == OperationType::WHILE) continue;
    for (OperandType col : op_table_types()) {
      Model m = operation_probe_model(op, col);
      if (m.main.operations.empty() || !models::validate_model(m).ok() || !ops::validate_operations(m).ok())
        continue;
      if (auto shapes = ops::infer_shapes(m, m.main); shapes.ok()) {
        for (size_t i = 0; i < m.main.operands.size(); ++i) {
          Operand& o = m.main.operands[i];
          const auto& d = shapes.value()[i];
          if (models::is_tensor(o.type) && !d.empty() && std::find(d.begin(), d.end(), 0u) == d.end())
            o.dimensions = d;
        }
      }
      if (!ops::validate_operations(m).ok()) continue;
      out.push_back({std::string(models::to_string(op)) + "/" + std::string(models::to_string(col)), m});
    }
  }
  // IF (c, then, else, x): y = x + x or x * x on TENSOR_FLOAT32 [4]; WHILE x <= n: x = x * 2.
  using ops::test::GraphBuilder;
  constexpr auto F32 = OperandType::TENSOR_FLOAT32;
  constexpr auto B8 = OperandType::TENSOR_BOOL8;
  {
    Model branches[2];
    for (int b = 0; b < 2; ++b) {
      GraphBuilder g;
      const uint32_t x = g.input(F32, {4});
      const uint32_t y = g.output(F32, {4});
      g.op(b == 0 ? OperationType::ADD : OperationType::MUL, {x, x, g.i32(0)}, {y});
      branches[b] = g.build();
    }
    GraphBuilder g;
    const uint32_t c = g.input(B8, {1});
    const uint32_t x = g.input(F32, {4});
    const uint32_t y = g.output(F32, {4});
    g.op(OperationType::IF, {c, g.subgraph(0), g.subgraph(1), x}, {y});
    Model m = g.build();
    m.referenced = {branches[0].main, branches[1].main};
    out.push_back({"IF", m});
  }
  {
    GraphBuilder cond;
    const uint32_t cx = cond.input(F32, {1});
    const uint32_t cn = cond.input(F32, {1});
    const uint32_t cb = cond.output(B8, {1});
    cond.op(OperationType::LESS_EQUAL, {cx, cn}, {cb});
    GraphBuilder body;
    const uint32_t bx = body.input(F32, {1});
    const uint32_t bn = body.input(F32, {1});
    (void)bn;
    const uint32_t by = body.output(F32, {1});
    body.op(OperationType::ADD, {bx, bx, body.i32(0)}, {by});
    GraphBuilder g;
    const uint32_t x = g.input(F32, {1});
    const uint32_t n = g.input(F32, {1});
    const uint32_t o = g.output(F32, {1});
    g.op(OperationType::WHILE, {g.subgraph(0), g.subgraph(1), x, n}, {o});
    Model m = g.build();
    m.referenced = {cond.build().main, body.build().main};
    out.push_back({"WHILE", m});
  }
  return out;
}

// Element-wise operations whose inputs broadcast against each other (right-aligned).
bool broadcasting(OperationType t) {
  switch (t) {
    case OperationType::ADD:
    case OperationType::SUB:
    case OperationType::MUL:
    case OperationType::DIV:
    case OperationType::MAXIMUM:
    case OperationType::MINIMUM:
    case OperationType::POW:
    case OperationType::EQUAL:
    case OperationType::NOT_EQUAL:
    case OperationType::GREATER:
    case OperationType::GREATER_EQUAL:
    case OperationType::LESS:
    case OperationType::LESS_EQUAL:
    case OperationType::LOGICAL_AND:
    case OperationType::LOGICAL_OR:
    case OperationType::PRELU:
      return true;
    default:
      return false;
  }
}

uint32_t add_operand(Model& m, Operand o) {
  m.main.operands.push_back(std::move(o));
  return static_cast<uint32_t>(m.main.operands.size() - 1);
}

// Valid quantisation for type t, so that a type change is judged by the operation, not the operand.
void fit_quant(Operand& o, OperandType t) {
  o.type = t;
  o.per_channel.reset();
  o.scale = is_quant(t) ? 0.5f : 0.0f;
  o.zero_point = t == OperandType::TENSOR_QUANT8_ASYMM ? 128 : 0;
  if (o.is_constant()) o.data.assign(o.byte_size(), 0);
}

// Every definitely-invalid mutation of operation 0 of `base`.
std::vector<Mutant> mutations(const Base& base) {
  std::vector<Mutant> out;
  const Model& m = base.model;
  const auto& g = m.main;
  const models::Operation& op = g.operations[0];
  const auto n = static_cast<uint32_t>(g.operands.size());
  const bool control_flow = op.type == OperationType::IF || op.type == OperationType::WHILE;
  auto add = [&](const std::string& kind, const std::string& what, const std::function<void(Model&)>& f) {
    Model x = m;
    f(x);
    out.push_back({kind, what, std::move(x)});
  };
  auto in_name = [](size_t j) { return "inputs[" + std::to_string(j) + "]"; };
  auto out_name = [](size_t j) { return "outputs[" + std::to_string(j) + "]"; };

  // Operation type codes outside NNAPI's enum, and an extension type with an undeclared prefix.
  for (int32_t bad : {-1, static_cast<int32_t>(OperationType::RANK) + 1, 1000, 0x7fff0001})
    add("operation type", std::to_string(bad),
        [bad](Model& x) { x.main.operations[0].type = static_cast<OperationType>(bad); });

  // Index out of range.
  for (size_t j = 0; j < op.inputs.size(); ++j)
    add("index out of range", in_name(j), [j, n](Model& x) { x.main.operations[0].inputs[j] = n; });
  for (size_t j = 0; j < op.outputs.size(); ++j)
    add("index out of range", out_name(j), [j, n](Model& x) { x.main.operations[0].outputs[j] = n; });

  // Input and output counts +-1 (control flow: the count is the subgraphs' business, counted there).
  add("input count", "last input removed", [](Model& x) { x.main.operations[0].inputs.pop_back(); });
  if (!control_flow)
    add("input count", "input 0 appended again",
        [](Model& x) { x.main.operations[0].inputs.push_back(x.main.operations[0].inputs[0]); });
  add("output count", "last output removed", [](Model& x) { x.main.operations[0].outputs.pop_back(); });
  add("output count", "an output added", [](Model& x) {
    Operand extra = x.main.operands[x.main.operations[0].outputs[0]];
    const uint32_t i = add_operand(x, extra);
    x.main.operations[0].outputs.push_back(i);
    x.main.output_indexes.push_back(i);
  });

  for (size_t j = 0; j < op.inputs.size() + op.outputs.size(); ++j) {
    const bool is_in = j < op.inputs.size();
    const size_t k = is_in ? j : j - op.inputs.size();
    const uint32_t idx = is_in ? op.inputs[k] : op.outputs[k];
    const Operand& o = g.operands[idx];
    const std::string who = (is_in ? in_name(k) : out_name(k)) + " (operand " + std::to_string(idx) + ")";
    if (o.type == OperandType::SUBGRAPH || o.lifetime == Lifetime::NO_VALUE) continue;
    const bool tensor = models::is_tensor(o.type);
    // Operands read at two positions (IF's branch input x is read by both branches alike) are mutated at
    // the first only.
    auto target = [is_in, k](Model& x) -> uint32_t {
      return is_in ? x.main.operations[0].inputs[k] : x.main.operations[0].outputs[k];
    };
    // A copy of the operand the mutation changes, so no other position sees the change.
    auto own = [is_in, k, target](Model& x) -> Operand& {
      const uint32_t i = add_operand(x, x.main.operands[target(x)]);
      if (is_in) {
        x.main.operations[0].inputs[k] = i;
        auto& gi = x.main.input_indexes;
        if (x.main.operands[i].lifetime == Lifetime::SUBGRAPH_INPUT) gi.push_back(i);
      } else {
        const uint32_t old = x.main.operations[0].outputs[k];
        x.main.operations[0].outputs[k] = i;
        for (uint32_t& gi : x.main.output_indexes)
          if (gi == old) gi = i;
        x.main.operands[old].lifetime = Lifetime::TEMPORARY_VARIABLE;
      }
      return x.main.operands[i];
    };

    // Wrong operand type: a tensor becomes TENSOR_BOOL8 (or TENSOR_FLOAT32 where it is BOOL8); a scalar
    // INT32 becomes FLOAT32 and the other scalars INT32. CAST converts between every pair of its types,
    // RANK takes any tensor and SELECT/comparisons take BOOL8 where it is; those are skipped.
    const bool any_type_ok = op.type == OperationType::CAST || (op.type == OperationType::RANK && is_in) ||
                             (op.type == OperationType::LSH_PROJECTION && is_in && k == 1);
    if (!any_type_ok) {
      OperandType to = OperandType::TENSOR_BOOL8;
      if (!tensor)
        to = o.type == OperandType::INT32 ? OperandType::FLOAT32 : OperandType::INT32;
      else if (o.type == OperandType::TENSOR_BOOL8)
        to = OperandType::TENSOR_FLOAT32;
      add("operand type", who + " -> " + std::string(models::to_string(to)), [own, to](Model& x) {
        Operand& t = own(x);
        fit_quant(t, to);
        if (t.is_constant()) t.data.assign(t.byte_size(), 0);
      });
    }
    // Scalars as tensors: a scalar parameter given as a one-element tensor of the same values.
    if (!tensor && o.is_constant()) {
      OperandType to = OperandType::TENSOR_INT32;
      if (o.type == OperandType::FLOAT32) to = OperandType::TENSOR_FLOAT32;
      if (o.type == OperandType::FLOAT16) to = OperandType::TENSOR_FLOAT16;
      if (o.type == OperandType::BOOL) to = OperandType::TENSOR_BOOL8;
      add("scalar as tensor", who, [own, to](Model& x) {
        Operand& t = own(x);
        t.type = to;
        t.dimensions = {1};
      });
    }
    if (tensor && !o.dimensions.empty()) {
      // Ranks: one more and one less. LSH_PROJECTION hashes rows of any rank; RANK reads only the rank;
      // FULLY_CONNECTED flattens its input to [batch, inputSize] (a trailing 1 changes nothing); PRELU's
      // alpha broadcasts. The broadcasting operations' inputs lose a leading 1 without effect, so only
      // rank + 1 (a trailing 1, which makes the result rank 5) is tried on them.
      const bool rank_free = (op.type == OperationType::LSH_PROJECTION && is_in && k == 1) ||
                             (op.type == OperationType::RANK && is_in) ||
                             (op.type == OperationType::FULLY_CONNECTED && is_in && k == 0) ||
                             (op.type == OperationType::PRELU && is_in && k == 1);
      const bool broadcasts = is_in && broadcasting(op.type);
      if (!rank_free) {
        add("rank", who + " rank + 1", [own](Model& x) {
          Operand& t = own(x);
          t.dimensions.push_back(1);
          if (t.is_constant()) t.data.resize(t.byte_size());
        });
        if (o.dimensions.size() > 1 && !broadcasts)
          add("rank", who + " rank - 1", [own](Model& x) {
            Operand& t = own(x);
            t.dimensions.pop_back();
            if (t.is_constant()) t.data.resize(t.byte_size());
          });
      }
      // Mismatched dimensions: the first extent one larger (an output: the declared shape is wrong).
      // Skipped where a larger first extent stays valid: LSH_PROJECTION's rows, RANK, PRELU's alpha;
      // inputs the operation reads a window or rows of (SLICE, STRIDED_SLICE, GATHER's and
      // EMBEDDING_LOOKUP's table, ROI_ALIGN/ROI_POOLING's batch, AXIS_ALIGNED_BBOX_TRANSFORM's image sizes
      // per batch); FILL's shape input (its values are unknown until execution).
      const bool extent_free = (rank_free && op.type != OperationType::FULLY_CONNECTED) ||
                               (is_in && k == 0 &&
                                (op.type == OperationType::SLICE || op.type == OperationType::STRIDED_SLICE ||
                                 op.type == OperationType::GATHER || op.type == OperationType::ROI_ALIGN ||
                                 op.type == OperationType::ROI_POOLING || op.type == OperationType::FILL)) ||
                               (is_in && k == 1 && op.type == OperationType::EMBEDDING_LOOKUP) ||
                               (is_in && k == 3 && op.type == OperationType::AXIS_ALIGNED_BBOX_TRANSFORM);
      if (!extent_free)
        add(is_in ? "mismatched dims" : "output shape", who + " extent 0 + 1", [own](Model& x) {
          Operand& t = own(x);
          t.dimensions[0] += 1;
          if (t.is_constant()) t.data.resize(t.byte_size());
        });
      if (!is_in && o.dimensions.back() > 1)
        add("output shape", who + " last extent - 1", [own](Model& x) {
          Operand& t = own(x);
          t.dimensions.back() -= 1;
        });
    }
    // Scales and zero points out of their type's range.
    if (is_quant(o.type)) {
      for (float bad : {0.0f, -1.0f, std::nanf("")})
        add("scale", who + " scale " + std::to_string(bad), [own, bad](Model& x) { own(x).scale = bad; });
      const int32_t bad_zp = o.type == OperandType::TENSOR_QUANT8_ASYMM          ? 256
                             : o.type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ? 128
                             : o.type == OperandType::TENSOR_QUANT16_ASYMM       ? 65536
                                                                                 : 1;
      add("zero point", who + " zeroPoint " + std::to_string(bad_zp),
          [own, bad_zp](Model& x) { own(x).zero_point = bad_zp; });
    }
    if (!is_in) {
      // A constant as an output: the operation writes an operand that already has a value.
      add("constant as output", who, [own](Model& x) {
        Operand& t = own(x);
        const uint32_t i = static_cast<uint32_t>(&t - x.main.operands.data());
        auto& gi = x.main.output_indexes;
        gi.erase(std::remove(gi.begin(), gi.end(), i), gi.end());
        if (gi.empty()) gi.push_back(x.main.input_indexes[0]);
        t.lifetime = Lifetime::CONSTANT_COPY;
        t.data.assign(t.byte_size(), 0);
      });
    } else {
      // A required input without value: the operation reads a NO_VALUE operand instead. Optional
      // inputs are skipped: LSH_PROJECTION's weight, SQUEEZE's and TRANSPOSE's second input,
      // the probe models' trailing optional parameters are left out instead of given.
      const bool optional =
          (op.type == OperationType::LSH_PROJECTION && k == 2) ||
          (op.type == OperationType::SVDF && k == 3) ||
          ((op.type == OperationType::SQUEEZE || op.type == OperationType::TRANSPOSE) && k == 1);
      if (!optional)
        add("no value", who, [k](Model& x) {
          Operand none = x.main.operands[x.main.operations[0].inputs[k]];
          none.lifetime = Lifetime::NO_VALUE;
          none.data.clear();
          none.dimensions.clear();
          x.main.operations[0].inputs[k] = add_operand(x, none);
        });
    }
  }
  return out;
}

// "input 2", "output 0", "operand 7", "operands[7]", "inputs[1]"/"outputs[0]" (operation-level lists).
const std::regex& operand_named() {
  static const std::regex re(R"((input|output|operand)s?(\[| )\d)");
  return re;
}

TEST(HalValidationSuite, EveryInvalidMutationOfEveryOperationIsRefusedOnBothDevices) {
  const std::vector<Base> bases = base_models();
  ASSERT_GT(bases.size(), 150u);
  run_on_phone([&](system::System& s) {
    Device* devices[] = {&s.cpu_device(), &s.npu_device()};
    // Every base model is valid on both devices.
    for (const Base& b : bases)
      for (Device* d : devices) {
        std::vector<bool> flags;
        const Status st = d->supported_operations(b.model, &flags);
        EXPECT_TRUE(st.ok()) << b.name << " on " << d->name() << ": " << st.message;
      }
    struct Count {
      size_t tried = 0, refused = 0;
    };
    std::map<std::string, Count> counts;
    size_t accepted = 0, crashed = 0, unclear = 0;
    for (const Base& b : bases) {
      for (const Mutant& mu : mutations(b)) {
        for (Device* d : devices) {
          Count& c = counts[mu.kind];
          ++c.tried;
          PrepareResult p;
          try {
            p = d->prepare_model(mu.model);
          } catch (const std::exception& e) {
            ++crashed;
            ADD_FAILURE() << b.name << ": " << mu.kind << " " << mu.what << " on " << d->name()
                          << ": exception " << e.what();
            continue;
          }
          if (p.status.code != ErrorStatus::INVALID_ARGUMENT || p.model != nullptr) {
            ++accepted;
            ADD_FAILURE() << b.name << ": " << mu.kind << " " << mu.what << " on " << d->name()
                          << " accepted (status " << static_cast<int>(p.status.code) << " "
                          << p.status.message << ")";
            continue;
          }
          const std::string& msg = p.status.message;
          const bool one_line = !msg.empty() && msg.find('\n') == std::string::npos;
          const bool named = names_the_operation(mu.kind) ? msg.find("operations[") != std::string::npos ||
                                                                std::regex_search(msg, operand_named())
                                                          : std::regex_search(msg, operand_named());
          if (!one_line || !named) {
            ++unclear;
            ADD_FAILURE() << b.name << ": " << mu.kind << " " << mu.what << " on " << d->name()
                          << ": the message does not name the operand in one line: " << msg;
            continue;
          }
          ++c.refused;
        }
      }
    }
    std::printf("validation suite: %zu base models, both devices\n", bases.size());
    size_t total = 0;
    for (const auto& [kind, c] : counts) {
      std::printf("  %-20s %6zu tried, %6zu refused with one line naming the operand\n", kind.c_str(),
                  c.tried, c.refused);
      total += c.tried;
    }
    std::printf("  total %zu: %zu accepted, %zu crashed, %zu unclear\n", total, accepted, crashed, unclear);
    EXPECT_EQ(accepted, 0u);
    EXPECT_EQ(crashed, 0u);
    EXPECT_EQ(unclear, 0u);
  });
}

}  // namespace
}  // namespace npu::hal::test
