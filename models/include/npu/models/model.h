// The in-memory NNAPI model: operands, operations, graph inputs/outputs — the native format npusim
// reads from model JSON (README, "Model JSON") and that the ONNX importer targets. Names, numeric codes,
// input orders and parameter conventions are NNAPI's. This is plain data: structural checks live in
// validate(), operation semantics (shapes, parameters) in the HAL.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace npu::models {

// NNAPI OperandType codes.
enum class OperandType : int32_t {
  FLOAT32 = 0,
  INT32 = 1,
  UINT32 = 2,
  TENSOR_FLOAT32 = 3,
  TENSOR_INT32 = 4,
  TENSOR_QUANT8_ASYMM = 5,
  BOOL = 6,
  TENSOR_QUANT16_SYMM = 7,
  TENSOR_FLOAT16 = 8,
  TENSOR_BOOL8 = 9,
  FLOAT16 = 10,
  TENSOR_QUANT8_SYMM_PER_CHANNEL = 11,
  TENSOR_QUANT16_ASYMM = 12,
  TENSOR_QUANT8_SYMM = 13,
  TENSOR_QUANT8_ASYMM_SIGNED = 14,
  SUBGRAPH = 15,
};

enum class Lifetime {
  TEMPORARY_VARIABLE,
  SUBGRAPH_INPUT,
  SUBGRAPH_OUTPUT,
  CONSTANT_COPY,
  CONSTANT_REFERENCE,
  NO_VALUE,
  SUBGRAPH,
};

// NNAPI OperationType codes (NN HAL 1.0 – 1.3).
enum class OperationType : int32_t {
  ADD = 0,
  AVERAGE_POOL_2D = 1,
  CONCATENATION = 2,
  CONV_2D = 3,
  DEPTHWISE_CONV_2D = 4,
  DEPTH_TO_SPACE = 5,
  DEQUANTIZE = 6,
  EMBEDDING_LOOKUP = 7,
  FLOOR = 8,
  FULLY_CONNECTED = 9,
  HASHTABLE_LOOKUP = 10,
  L2_NORMALIZATION = 11,
  L2_POOL_2D = 12,
  LOCAL_RESPONSE_NORMALIZATION = 13,
  LOGISTIC = 14,
  LSH_PROJECTION = 15,
  LSTM = 16,
  MAX_POOL_2D = 17,
  MUL = 18,
  RELU = 19,
  RELU1 = 20,
  RELU6 = 21,
  RESHAPE = 22,
  RESIZE_BILINEAR = 23,
  RNN = 24,
  SOFTMAX = 25,
  SPACE_TO_DEPTH = 26,
  SVDF = 27,
  TANH = 28,
  BATCH_TO_SPACE_ND = 29,
  DIV = 30,
  MEAN = 31,
  PAD = 32,
  SPACE_TO_BATCH_ND = 33,
  SQUEEZE = 34,
  STRIDED_SLICE = 35,
  SUB = 36,
  TRANSPOSE = 37,
  ABS = 38,
  ARGMAX = 39,
  ARGMIN = 40,
  AXIS_ALIGNED_BBOX_TRANSFORM = 41,
  BIDIRECTIONAL_SEQUENCE_LSTM = 42,
  BIDIRECTIONAL_SEQUENCE_RNN = 43,
  BOX_WITH_NMS_LIMIT = 44,
  CAST = 45,
  CHANNEL_SHUFFLE = 46,
  DETECTION_POSTPROCESSING = 47,
  EQUAL = 48,
  EXP = 49,
  EXPAND_DIMS = 50,
  GATHER = 51,
  GENERATE_PROPOSALS = 52,
  GREATER = 53,
  GREATER_EQUAL = 54,
  GROUPED_CONV_2D = 55,
  HEATMAP_MAX_KEYPOINT = 56,
  INSTANCE_NORMALIZATION = 57,
  LESS = 58,
  LESS_EQUAL = 59,
  LOG = 60,
  LOGICAL_AND = 61,
  LOGICAL_NOT = 62,
  LOGICAL_OR = 63,
  LOG_SOFTMAX = 64,
  MAXIMUM = 65,
  MINIMUM = 66,
  NEG = 67,
  NOT_EQUAL = 68,
  PAD_V2 = 69,
  POW = 70,
  PRELU = 71,
  QUANTIZE = 72,
  QUANTIZED_16BIT_LSTM = 73,
  RANDOM_MULTINOMIAL = 74,
  REDUCE_ALL = 75,
  REDUCE_ANY = 76,
  REDUCE_MAX = 77,
  REDUCE_MIN = 78,
  REDUCE_PROD = 79,
  REDUCE_SUM = 80,
  ROI_ALIGN = 81,
  ROI_POOLING = 82,
  RSQRT = 83,
  SELECT = 84,
  SIN = 85,
  SLICE = 86,
  SPLIT = 87,
  SQRT = 88,
  TILE = 89,
  TOPK_V2 = 90,
  TRANSPOSE_CONV_2D = 91,
  UNIDIRECTIONAL_SEQUENCE_LSTM = 92,
  UNIDIRECTIONAL_SEQUENCE_RNN = 93,
  RESIZE_NEAREST_NEIGHBOR = 94,
  QUANTIZED_LSTM = 95,
  IF = 96,
  WHILE = 97,
  ELU = 98,
  HARD_SWISH = 99,
  FILL = 100,
  RANK = 101,
};

std::string_view to_string(OperandType t);
std::string_view to_string(Lifetime l);
std::string_view to_string(OperationType t);
std::optional<OperandType> operand_type_from_string(std::string_view name);
std::optional<Lifetime> lifetime_from_string(std::string_view name);
std::optional<OperationType> operation_type_from_string(std::string_view name);

// True for the TENSOR_* types; scalars have rank 0 and exactly one element.
bool is_tensor(OperandType t);
// Bytes per element (0 for SUBGRAPH).
uint32_t element_size(OperandType t);

// TENSOR_QUANT8_SYMM_PER_CHANNEL parameters.
struct PerChannelQuant {
  std::vector<float> scales;
  uint32_t channel_dim = 0;
};

struct Operand {
  OperandType type = OperandType::TENSOR_FLOAT32;
  std::vector<uint32_t> dimensions;  // 0 = unknown extent; empty for scalars (or unknown rank)
  float scale = 0.0f;
  int32_t zero_point = 0;
  Lifetime lifetime = Lifetime::TEMPORARY_VARIABLE;
  std::vector<uint8_t> data;  // little-endian element bytes for CONSTANT_* operands
  std::optional<PerChannelQuant> per_channel;
  uint32_t subgraph = 0;  // index into Model::referenced for lifetime SUBGRAPH
  // Timing-only models (LLM-sized): a CONSTANT_* operand whose values are omitted has empty `data`;
  // its size is byte_size(). Such a model can be compiled and timed on the NPU, never computed.
  bool values_omitted = false;

  // Element count; 0 when any dimension is unknown. Scalars count 1.
  uint64_t element_count() const;
  bool fully_specified() const;
  uint64_t byte_size() const { return element_count() * element_size(type); }
  bool is_constant() const {
    return lifetime == Lifetime::CONSTANT_COPY || lifetime == Lifetime::CONSTANT_REFERENCE;
  }
};

struct Operation {
  OperationType type = OperationType::ADD;
  std::vector<uint32_t> inputs;
  std::vector<uint32_t> outputs;
};

// A subgraph; the main one is Model::main, IF/WHILE bodies live in Model::referenced.
struct Subgraph {
  std::vector<Operand> operands;
  std::vector<Operation> operations;
  std::vector<uint32_t> input_indexes;
  std::vector<uint32_t> output_indexes;
};

// NNAPI Model::ExtensionNameAndPrefix (NN HAL 1.2): the 16-bit prefix a model gives a vendor extension
// (models/extensions.h); its operand and operation type values are (prefix << 16) | the extension's code.
struct ExtensionNameAndPrefix {
  std::string name;
  uint16_t prefix = 0;
};

struct Model {
  Subgraph main;
  std::vector<Subgraph> referenced;
  bool relax_computation_float32_to_float16 = false;
  std::vector<ExtensionNameAndPrefix> extension_name_to_prefix;
};

// Typed reads of constant scalar operands (little-endian); the caller checks the type.
int32_t scalar_i32(const Operand& op);
float scalar_f32(const Operand& op);
bool scalar_bool(const Operand& op);

// --- Added by the models library -------------------------------------------------------------------

// False for codes outside the NNAPI enums (a corrupted or hand-built model may carry any integer; extension
// types, above 0xFFFF, are checked against the model's extension table by validate_extensions).
bool is_valid(OperandType t);
bool is_valid(Lifetime l);
bool is_valid(OperationType t);

// True when some main-graph operand has its values omitted: a timing-only model (LLM-sized, constants as
// sizes only), which devices that compute refuse and the NPU device runs for timing alone.
bool is_timing_only(const Model& model);

// Largest operand the tools accept (bytes). element_count() saturates to UINT64_MAX on overflow, so
// check element_count() <= max_operand_bytes() / element_size(type) before trusting byte_size().
constexpr uint64_t max_operand_bytes() { return uint64_t{1} << 40; }

// Human-readable dimensions, e.g. "[1,224,224,3]" ("[]" for scalars / unknown rank).
std::string dims_to_string(const std::vector<uint32_t>& dims);

}  // namespace npu::models
