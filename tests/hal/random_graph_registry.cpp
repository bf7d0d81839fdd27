// Registry graphs of make_registry_graph(): one op-table cell with its free values drawn at random.
#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <string_view>

#include "../hal_ops/test_models.h"
#include "npu/hal/op_table.h"
#include "npu/hal/ops/reference_executor.h"
#include "npu/models/tensor.h"
#include "npu/models/validate.h"
#include "random_graph.h"

namespace npu::hal::test {
namespace {

using models::OperandType;
using models::OperationType;
using ops::test::GraphBuilder;

constexpr auto F32 = OperandType::TENSOR_FLOAT32;
constexpr auto Q8 = OperandType::TENSOR_QUANT8_ASYMM;
constexpr auto S8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
using Cell = std::pair<OperationType, OperandType>;

bool valid(const models::Model& m) {
  return models::validate_model(m).ok() && ops::validate_operations(m).ok();
}

// Operations whose float inputs must be positive to stay in their domain (NaN compares unequal).
bool positive_domain(OperationType op) {
  return op == OperationType::LOG || op == OperationType::SQRT || op == OperationType::RSQRT ||
         op == OperationType::POW;
}

// Operations whose constants are boxes, anchors or image sizes: their geometry stays as the table wrote it.
bool geometric(OperationType op) {
  switch (op) {
    case OperationType::AXIS_ALIGNED_BBOX_TRANSFORM:
    case OperationType::BOX_WITH_NMS_LIMIT:
    case OperationType::DETECTION_POSTPROCESSING:
    case OperationType::GENERATE_PROPOSALS:
    case OperationType::HEATMAP_MAX_KEYPOINT:
    case OperationType::ROI_ALIGN:
    case OperationType::ROI_POOLING:
    case OperationType::LSH_PROJECTION:
      return true;
    default:
      return false;
  }
}

// A registry graph: the op-table form of one cell, with everything the table leaves free drawn at random
// and kept only where validation accepts it.
class RegistryGenerator {
 public:
  RegistryGenerator(uint64_t seed, Cell cell) : rng_(seed), cell_(cell) {}

  RandomGraph build() {
    const auto [op, column] = cell_;
    m_ = operation_probe_model(op, column);
    summary_ = std::string(models::to_string(op)) + "[" + std::string(models::to_string(column)) + "]";
    std::vector<Cell> cells{cell_};
    if (!geometric(op)) {
      redraw_shapes();
      redraw_quantisation();
      redraw_constants();
    }
    if (below(2) && !positive_domain(op) && !geometric(op) && add_producer()) {
      summary_ = "ADD -> " + summary_;
      cells.insert(cells.begin(),
                   Cell{OperationType::ADD, m_.main.operands[m_.main.operations[0].inputs[0]].type});
    }
    if (below(2) && add_consumer()) {
      summary_ += " -> RELU";
      cells.emplace_back(OperationType::RELU, m_.main.operands[m_.main.output_indexes.back()].type);
    }
    RandomGraph g;
    g.model = m_;
    for (uint32_t idx : m_.main.input_indexes) g.inputs[idx] = random_input(m_.main.operands[idx], idx);
    g.summary = summary_;
    g.cells = std::move(cells);
    return g;
  }

 private:
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(rng_() % n); }
  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng_); }
  static bool quant8(OperandType t) { return t == Q8 || t == S8; }
  static bool chainable(OperandType t) { return t == F32 || quant8(t); }

  // Graph inputs take random sizes: each dimension of each graph input is redrawn (with probability 1/2,
  // between 1 and twice the table's size plus one) and kept when the model stays valid and every
  // temporary and output shape can be inferred from it; those then take the inferred shapes. A size
  // tied to a constant (a filter's depth, a gather's index range) fails validation and keeps its value.
  void redraw_shapes() {
    for (size_t k = 0; k < m_.main.input_indexes.size(); ++k) {
      const uint32_t idx = m_.main.input_indexes[k];
      for (size_t d = 0; d < m_.main.operands[idx].dimensions.size(); ++d) {
        if (below(2) == 0) continue;
        const models::Model saved = m_;
        const uint32_t size = m_.main.operands[idx].dimensions[d];
        m_.main.operands[idx].dimensions[d] = 1 + below(2 * size + 1);
        if (!shapes_follow_inputs()) m_ = saved;
      }
    }
  }

  // Re-infers every temporary and output shape from the graph inputs' (at most kMaxElements elements
  // each); false when a shape cannot be inferred, is empty, or validation refuses the model.
  bool shapes_follow_inputs() {
    constexpr uint64_t kMaxElements = 4096;
    auto& sg = m_.main;
    for (models::Operand& o : sg.operands) {
      if (o.lifetime == models::Lifetime::SUBGRAPH_INPUT && o.element_count() > kMaxElements) return false;
      if (o.lifetime == models::Lifetime::TEMPORARY_VARIABLE ||
          o.lifetime == models::Lifetime::SUBGRAPH_OUTPUT)
        std::fill(o.dimensions.begin(), o.dimensions.end(), 0u);
    }
    auto shapes = ops::infer_shapes(sg);
    if (!shapes.ok()) return false;
    for (size_t i = 0; i < sg.operands.size(); ++i) {
      models::Operand& o = sg.operands[i];
      if (o.lifetime != models::Lifetime::TEMPORARY_VARIABLE &&
          o.lifetime != models::Lifetime::SUBGRAPH_OUTPUT)
        continue;
      const std::vector<uint32_t>& dims = shapes.value()[i];
      if (models::is_tensor(o.type) &&
          (dims.empty() || std::find(dims.begin(), dims.end(), 0u) != dims.end()))
        return false;
      o.dimensions = dims;
      if (o.element_count() > kMaxElements) return false;
    }
    return valid(m_);
  }

  void draw_quant(models::Operand& o) {
    o.scale = static_cast<float>(std::ldexp(uniform(1.0, 2.0), -static_cast<int>(below(8))));
    o.zero_point = (o.type == S8 ? -128 : 0) + static_cast<int32_t>(below(256));
  }

  // Each quantised graph input, output and constant gets a random scale and zero point when the model
  // stays valid with it (NNAPI fixes some, e.g. LOGISTIC's output, and a bias scale follows its input's).
  void redraw_quantisation() {
    for (size_t i = 0; i < m_.main.operands.size(); ++i) {
      models::Operand& o = m_.main.operands[i];
      if (!quant8(o.type) || o.lifetime == models::Lifetime::NO_VALUE) continue;
      const models::Operand saved = o;
      draw_quant(o);
      if (!valid(m_)) m_.main.operands[i] = saved;
    }
  }

  // Weights and other data constants of the cell's types take random values (indices, shapes, axes and
  // scalar parameters stay: they are the operation's parameters).
  void redraw_constants() {
    for (models::Operand& o : m_.main.operands) {
      if (o.lifetime != models::Lifetime::CONSTANT_COPY || !models::is_tensor(o.type)) continue;
      if (o.type == OperandType::TENSOR_INT32 || o.type == OperandType::TENSOR_BOOL8) continue;
      const std::vector<uint8_t> saved = o.data;
      for (uint64_t k = 0; k < o.element_count(); ++k)
        models::write_element(o.type, o.data, k, random_value(o));
      if (!valid(m_)) o.data = saved;
    }
  }

  double random_value(const models::Operand& o) {
    switch (o.type) {
      // Detection scores above their zero point (real > 0) keep some boxes above the thresholds.
      case Q8:
        return geometric(cell_.first) ? 129 + below(127) : below(256);
      case S8:
        return geometric(cell_.first) ? 1 + below(127) : static_cast<double>(below(256)) - 128;
      case OperandType::TENSOR_QUANT8_SYMM:
      case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL:
        return static_cast<double>(below(255)) - 127;
      case OperandType::TENSOR_QUANT16_ASYMM:
        return below(65536);
      case OperandType::TENSOR_QUANT16_SYMM:
        return static_cast<double>(below(65536)) - 32768;
      case OperandType::TENSOR_BOOL8:
        return below(2);
      case OperandType::TENSOR_INT32:
        return static_cast<double>(below(101)) - 50;
      default:
        // Detection scores and deltas drawn positive keep some boxes above the score thresholds.
        return positive_domain(cell_.first) || geometric(cell_.first) ? uniform(0.125, 2.0)
                                                                      : uniform(-1.0, 1.0);
    }
  }

  models::Tensor random_input(const models::Operand& o, uint32_t idx) {
    models::Tensor t = models::make_tensor(o, o.dimensions);
    const OperationType op = cell_.first;
    const bool divisor = op == OperationType::DIV && reads_as(idx, 1);
    const bool fill_shape = op == OperationType::FILL && reads_as(idx, 0);
    for (uint64_t k = 0; k < t.element_count(); ++k) {
      double v = random_value(o);
      if (fill_shape) v = 1 + below(4);
      // A zero divisor is defined (0 for TENSOR_INT32, inf for floats), but inf - inf is no comparison.
      if (divisor && std::fabs(v) < 0.125) v = v < 0 ? -0.5 : 0.5;
      if (divisor && o.type == OperandType::TENSOR_INT32 && v == 0) v = 7;
      models::write_element(o.type, t.data, k, v);
    }
    return t;
  }

  // True when the cell's operation reads operand `idx` as its input `pos`.
  bool reads_as(uint32_t idx, size_t pos) const {
    for (const models::Operation& op : m_.main.operations)
      if (op.type == cell_.first && op.inputs.size() > pos && op.inputs[pos] == idx) return true;
    return false;
  }

  uint32_t push(models::Operand o) {
    m_.main.operands.push_back(std::move(o));
    return static_cast<uint32_t>(m_.main.operands.size() - 1);
  }

  // The cell's first graph input of a chainable type becomes ADD(a, b) of two new graph inputs, so the
  // graph starts with an operation the NPU lowers. Kept only when the model stays valid.
  bool add_producer() {
    const models::Model saved = m_;
    auto& sg = m_.main;
    for (size_t k = 0; k < sg.input_indexes.size(); ++k) {
      const uint32_t idx = sg.input_indexes[k];
      if (!chainable(sg.operands[idx].type) || sg.operands[idx].dimensions.empty()) continue;
      models::Operand a = sg.operands[idx];
      models::Operand b = a;
      if (quant8(a.type)) {
        draw_quant(a);
        draw_quant(b);
      }
      sg.operands[idx].lifetime = models::Lifetime::TEMPORARY_VARIABLE;
      sg.input_indexes.erase(sg.input_indexes.begin() + static_cast<std::ptrdiff_t>(k));
      const uint32_t ia = push(a), ib = push(b);
      models::Operand act;
      act.type = OperandType::INT32;
      act.lifetime = models::Lifetime::CONSTANT_COPY;
      act.data.assign(4, 0);
      const uint32_t iact = push(act);
      sg.input_indexes.push_back(ia);
      sg.input_indexes.push_back(ib);
      sg.operations.insert(sg.operations.begin(),
                           models::Operation{OperationType::ADD, {ia, ib, iact}, {idx}});
      if (valid(m_)) return true;
      break;
    }
    m_ = saved;
    return false;
  }

  // The last graph output, when chainable and of inferred shape, is read by a RELU whose result becomes
  // the graph output instead. Kept only when the model stays valid.
  bool add_consumer() {
    const models::Model saved = m_;
    auto& sg = m_.main;
    if (sg.output_indexes.empty()) return false;
    const uint32_t idx = sg.output_indexes.back();
    if (!chainable(sg.operands[idx].type)) return false;
    auto shapes = ops::infer_shapes(sg);
    if (!shapes.ok()) return false;
    const std::vector<uint32_t>& dims = shapes.value()[idx];
    if (dims.empty() || std::find(dims.begin(), dims.end(), 0u) != dims.end()) return false;
    // An output that is also read by another operation stays as it is.
    for (const models::Operation& op : sg.operations)
      if (std::find(op.inputs.begin(), op.inputs.end(), idx) != op.inputs.end()) return false;
    models::Operand out = sg.operands[idx];
    out.dimensions = dims;
    sg.operands[idx].lifetime = models::Lifetime::TEMPORARY_VARIABLE;
    sg.operands[idx].dimensions = dims;
    const uint32_t io = push(out);
    sg.output_indexes.back() = io;
    sg.operations.push_back(models::Operation{OperationType::RELU, {idx}, {io}});
    if (valid(m_)) return true;
    m_ = saved;
    return false;
  }

  std::mt19937_64 rng_;
  Cell cell_;
  models::Model m_;
  std::string summary_;
};

}  // namespace

const std::vector<Cell>& registry_cells() {
  static const std::vector<Cell> cells = [] {
    std::vector<Cell> all;
    const std::vector<OperandType>& columns = op_table_types();
    // Vendor extension rows have no CPU cell (the CPU reference computes no extension), so there is
    // nothing to compare an NPU result with: they are not drawn (OpTable.ExtensionRowsRunOnTheNpuOnly and
    // hal_llm_extension_test check them by hand-worked values instead).
    for (const OpTableRow& row : probe_operation_table())
      for (size_t c = 0; c < row.cells.size(); ++c)
        if (row.cells[c].cpu && !row.extension) all.emplace_back(row.op, columns[c]);
    return all;
  }();
  return cells;
}

RandomGraph make_registry_graph(uint64_t seed, uint64_t cell) {
  const std::vector<Cell>& cells = registry_cells();
  return RegistryGenerator(seed, cells[cell % cells.size()]).build();
}

}  // namespace npu::hal::test
