#include "npu/models/model.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <utility>

namespace npu::models {
namespace {

// One table per enum keeps name <-> code in a single place; lookups are linear because the tables
// are small and only used while loading or printing models.
constexpr std::array<std::pair<OperandType, std::string_view>, 16> kOperandTypes{{
    {OperandType::FLOAT32, "FLOAT32"},
    {OperandType::INT32, "INT32"},
    {OperandType::UINT32, "UINT32"},
    {OperandType::TENSOR_FLOAT32, "TENSOR_FLOAT32"},
    {OperandType::TENSOR_INT32, "TENSOR_INT32"},
    {OperandType::TENSOR_QUANT8_ASYMM, "TENSOR_QUANT8_ASYMM"},
    {OperandType::BOOL, "BOOL"},
    {OperandType::TENSOR_QUANT16_SYMM, "TENSOR_QUANT16_SYMM"},
    {OperandType::TENSOR_FLOAT16, "TENSOR_FLOAT16"},
    {OperandType::TENSOR_BOOL8, "TENSOR_BOOL8"},
    {OperandType::FLOAT16, "FLOAT16"},
    {OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL, "TENSOR_QUANT8_SYMM_PER_CHANNEL"},
    {OperandType::TENSOR_QUANT16_ASYMM, "TENSOR_QUANT16_ASYMM"},
    {OperandType::TENSOR_QUANT8_SYMM, "TENSOR_QUANT8_SYMM"},
    {OperandType::TENSOR_QUANT8_ASYMM_SIGNED, "TENSOR_QUANT8_ASYMM_SIGNED"},
    {OperandType::SUBGRAPH, "SUBGRAPH"},
}};

constexpr std::array<std::pair<Lifetime, std::string_view>, 7> kLifetimes{{
    {Lifetime::TEMPORARY_VARIABLE, "TEMPORARY_VARIABLE"},
    {Lifetime::SUBGRAPH_INPUT, "SUBGRAPH_INPUT"},
    {Lifetime::SUBGRAPH_OUTPUT, "SUBGRAPH_OUTPUT"},
    {Lifetime::CONSTANT_COPY, "CONSTANT_COPY"},
    {Lifetime::CONSTANT_REFERENCE, "CONSTANT_REFERENCE"},
    {Lifetime::NO_VALUE, "NO_VALUE"},
    {Lifetime::SUBGRAPH, "SUBGRAPH"},
}};

// Indexed by the NNAPI OperationType code (0..101, dense).
constexpr std::array<std::string_view, 102> kOperationNames{
    "ADD",
    "AVERAGE_POOL_2D",
    "CONCATENATION",
    "CONV_2D",
    "DEPTHWISE_CONV_2D",
    "DEPTH_TO_SPACE",
    "DEQUANTIZE",
    "EMBEDDING_LOOKUP",
    "FLOOR",
    "FULLY_CONNECTED",
    "HASHTABLE_LOOKUP",
    "L2_NORMALIZATION",
    "L2_POOL_2D",
    "LOCAL_RESPONSE_NORMALIZATION",
    "LOGISTIC",
    "LSH_PROJECTION",
    "LSTM",
    "MAX_POOL_2D",
    "MUL",
    "RELU",
    "RELU1",
    "RELU6",
    "RESHAPE",
    "RESIZE_BILINEAR",
    "RNN",
    "SOFTMAX",
    "SPACE_TO_DEPTH",
    "SVDF",
    "TANH",
    "BATCH_TO_SPACE_ND",
    "DIV",
    "MEAN",
    "PAD",
    "SPACE_TO_BATCH_ND",
    "SQUEEZE",
    "STRIDED_SLICE",
    "SUB",
    "TRANSPOSE",
    "ABS",
    "ARGMAX",
    "ARGMIN",
    "AXIS_ALIGNED_BBOX_TRANSFORM",
    "BIDIRECTIONAL_SEQUENCE_LSTM",
    "BIDIRECTIONAL_SEQUENCE_RNN",
    "BOX_WITH_NMS_LIMIT",
    "CAST",
    "CHANNEL_SHUFFLE",
    "DETECTION_POSTPROCESSING",
    "EQUAL",
    "EXP",
    "EXPAND_DIMS",
    "GATHER",
    "GENERATE_PROPOSALS",
    "GREATER",
    "GREATER_EQUAL",
    "GROUPED_CONV_2D",
    "HEATMAP_MAX_KEYPOINT",
    "INSTANCE_NORMALIZATION",
    "LESS",
    "LESS_EQUAL",
    "LOG",
    "LOGICAL_AND",
    "LOGICAL_NOT",
    "LOGICAL_OR",
    "LOG_SOFTMAX",
    "MAXIMUM",
    "MINIMUM",
    "NEG",
    "NOT_EQUAL",
    "PAD_V2",
    "POW",
    "PRELU",
    "QUANTIZE",
    "QUANTIZED_16BIT_LSTM",
    "RANDOM_MULTINOMIAL",
    "REDUCE_ALL",
    "REDUCE_ANY",
    "REDUCE_MAX",
    "REDUCE_MIN",
    "REDUCE_PROD",
    "REDUCE_SUM",
    "ROI_ALIGN",
    "ROI_POOLING",
    "RSQRT",
    "SELECT",
    "SIN",
    "SLICE",
    "SPLIT",
    "SQRT",
    "TILE",
    "TOPK_V2",
    "TRANSPOSE_CONV_2D",
    "UNIDIRECTIONAL_SEQUENCE_LSTM",
    "UNIDIRECTIONAL_SEQUENCE_RNN",
    "RESIZE_NEAREST_NEIGHBOR",
    "QUANTIZED_LSTM",
    "IF",
    "WHILE",
    "ELU",
    "HARD_SWISH",
    "FILL",
    "RANK",
};

constexpr std::string_view kInvalid = "<invalid>";
// An extension type's name depends on the model's prefixes: operation_name(model, type) gives it.
constexpr std::string_view kExtension = "<extension>";

}  // namespace

std::string_view to_string(OperandType t) {
  if (static_cast<uint32_t>(t) > 0xFFFF) return kExtension;
  for (const auto& [code, name] : kOperandTypes) {
    if (code == t) return name;
  }
  return kInvalid;
}

std::string_view to_string(Lifetime l) {
  for (const auto& [code, name] : kLifetimes) {
    if (code == l) return name;
  }
  return kInvalid;
}

std::string_view to_string(OperationType t) {
  if (static_cast<uint32_t>(t) > 0xFFFF) return kExtension;
  const auto code = static_cast<int32_t>(t);
  if (code < 0 || code >= static_cast<int32_t>(kOperationNames.size())) return kInvalid;
  return kOperationNames[static_cast<size_t>(code)];
}

std::optional<OperandType> operand_type_from_string(std::string_view name) {
  for (const auto& [code, n] : kOperandTypes) {
    if (n == name) return code;
  }
  return std::nullopt;
}

std::optional<Lifetime> lifetime_from_string(std::string_view name) {
  for (const auto& [code, n] : kLifetimes) {
    if (n == name) return code;
  }
  return std::nullopt;
}

std::optional<OperationType> operation_type_from_string(std::string_view name) {
  for (size_t i = 0; i < kOperationNames.size(); ++i) {
    if (kOperationNames[i] == name) return static_cast<OperationType>(i);
  }
  return std::nullopt;
}

bool is_timing_only(const Model& model) {
  const auto& ops = model.main.operands;
  return std::any_of(ops.begin(), ops.end(), [](const Operand& o) { return o.values_omitted; });
}

bool is_valid(OperandType t) { return to_string(t) != kInvalid && to_string(t) != kExtension; }
bool is_valid(Lifetime l) { return to_string(l) != kInvalid; }
bool is_valid(OperationType t) { return to_string(t) != kInvalid && to_string(t) != kExtension; }

bool is_tensor(OperandType t) {
  switch (t) {
    case OperandType::TENSOR_FLOAT32:
    case OperandType::TENSOR_INT32:
    case OperandType::TENSOR_QUANT8_ASYMM:
    case OperandType::TENSOR_QUANT16_SYMM:
    case OperandType::TENSOR_FLOAT16:
    case OperandType::TENSOR_BOOL8:
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL:
    case OperandType::TENSOR_QUANT16_ASYMM:
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return true;
    default:
      return false;
  }
}

uint32_t element_size(OperandType t) {
  switch (t) {
    case OperandType::FLOAT32:
    case OperandType::INT32:
    case OperandType::UINT32:
    case OperandType::TENSOR_FLOAT32:
    case OperandType::TENSOR_INT32:
      return 4;
    case OperandType::TENSOR_QUANT16_SYMM:
    case OperandType::TENSOR_QUANT16_ASYMM:
    case OperandType::TENSOR_FLOAT16:
    case OperandType::FLOAT16:
      return 2;
    case OperandType::TENSOR_QUANT8_ASYMM:
    case OperandType::BOOL:
    case OperandType::TENSOR_BOOL8:
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL:
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return 1;
    case OperandType::SUBGRAPH:
      return 0;
  }
  return 0;
}

uint64_t Operand::element_count() const {
  if (!is_tensor(type)) return type == OperandType::SUBGRAPH ? 0 : 1;
  if (dimensions.empty()) return 0;  // unknown rank
  uint64_t count = 1;
  for (uint32_t d : dimensions) {
    if (d == 0) return 0;
    if (count > std::numeric_limits<uint64_t>::max() / d) return std::numeric_limits<uint64_t>::max();
    count *= d;
  }
  return count;
}

bool Operand::fully_specified() const {
  if (!is_tensor(type)) return true;
  if (dimensions.empty()) return false;
  for (uint32_t d : dimensions) {
    if (d == 0) return false;
  }
  return true;
}

namespace {
template <class T>
T read_scalar(const Operand& op) {
  T v{};
  if (op.data.size() >= sizeof(T)) std::memcpy(&v, op.data.data(), sizeof(T));
  return v;
}
}  // namespace

// Short data reads as 0: validate_model() rejects such operands, and callers must not crash first.
int32_t scalar_i32(const Operand& op) { return read_scalar<int32_t>(op); }
float scalar_f32(const Operand& op) { return read_scalar<float>(op); }
bool scalar_bool(const Operand& op) { return read_scalar<uint8_t>(op) != 0; }

std::string dims_to_string(const std::vector<uint32_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(dims[i]);
  }
  s += ']';
  return s;
}

}  // namespace npu::models
