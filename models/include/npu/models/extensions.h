// NNAPI vendor extensions (NN HAL 1.2): named collections of vendor operations and operand types. A model
// lists the extensions it uses in Model::extension_name_to_prefix (name → a 16-bit prefix it picks,
// unique in the model, never 0), and an extension type's numeric value is (prefix << 16) | type, the type
// being the extension's own 16-bit code; values up to 0xFFFF are NNAPI's base types. Prefixes are the
// model's choice, so a name is known only with the model: operation_name(model, type).
//
// The extensions this build knows are defined here (what model JSON may name and validation accepts);
// which device runs them is the HAL's business (Device::supported_extensions). com.npusim.llm is the NPU's
// extension for transformer decoders (docs/npu_ops.md, "Vendor extension com.npusim.llm").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "npu/common/result.h"
#include "npu/models/model.h"

namespace npu::models {

inline constexpr uint32_t kExtensionTypeBits = 16;  // low bits: the type within its extension
inline constexpr uint32_t kBaseTypeMax = 0xFFFF;    // NNAPI OperandTypeRange / OperationTypeRange BASE_MAX

// An extension operand type, as NNAPI's Extension::OperandTypeInformation describes it.
struct ExtensionOperandTypeInfo {
  uint16_t type = 0;
  std::string_view name;
  bool is_tensor = false;
  uint32_t byte_size = 0;  // of the scalar, or of one tensor element
};

struct ExtensionOperationInfo {
  uint16_t type = 0;
  std::string_view name;
};

struct ExtensionInfo {
  std::string_view name;
  std::vector<ExtensionOperandTypeInfo> operand_types;
  std::vector<ExtensionOperationInfo> operations;
};

// com.npusim.llm: operations on NNAPI base types (it defines no operand types of its own).
inline constexpr std::string_view kLlmExtension = "com.npusim.llm";
enum class LlmOperation : uint16_t { RMS_NORM = 0, ROPE = 1, MATMUL = 2 };

// Every extension this build knows (model JSON and validation accept no other).
const std::vector<ExtensionInfo>& known_extensions();
const ExtensionInfo* find_extension(std::string_view name);
const ExtensionOperationInfo* find_extension_operation(const ExtensionInfo& ext, uint16_t type);
const ExtensionOperationInfo* find_extension_operation(const ExtensionInfo& ext, std::string_view name);
const ExtensionOperandTypeInfo* find_extension_operand_type(const ExtensionInfo& ext, uint16_t type);
const ExtensionOperandTypeInfo* find_extension_operand_type(const ExtensionInfo& ext, std::string_view name);

// NNAPI's rule for Extension::name: lowercase latin letters, digits, '.' and '_', at least one '.'.
bool valid_extension_name(std::string_view name);

// Values above kBaseTypeMax are extension types.
inline bool is_extension_type(OperationType t) { return static_cast<uint32_t>(t) > kBaseTypeMax; }
inline bool is_extension_type(OperandType t) { return static_cast<uint32_t>(t) > kBaseTypeMax; }
inline uint16_t type_prefix(uint32_t value) { return static_cast<uint16_t>(value >> kExtensionTypeBits); }
inline uint16_t type_within_extension(uint32_t value) { return static_cast<uint16_t>(value & kBaseTypeMax); }
inline OperationType extension_operation_type(uint16_t prefix, uint16_t type) {
  return static_cast<OperationType>((uint32_t{prefix} << kExtensionTypeBits) | type);
}
inline OperandType extension_operand_type(uint16_t prefix, uint16_t type) {
  return static_cast<OperandType>((uint32_t{prefix} << kExtensionTypeBits) | type);
}

// The extension a model maps `prefix` to (nullopt: the model declares no such prefix).
std::optional<std::string> extension_of_prefix(const std::vector<ExtensionNameAndPrefix>& table,
                                               uint16_t prefix);
// The prefix a model gives extension `name` (nullopt: it does not use it).
std::optional<uint16_t> prefix_of_extension(const std::vector<ExtensionNameAndPrefix>& table,
                                            std::string_view name);

// What an extension type of a model stands for: its extension and, when that extension defines it, the
// operation. `error` says why not otherwise (undeclared prefix, unknown extension, unknown code).
struct ResolvedOperation {
  const ExtensionInfo* extension = nullptr;
  const ExtensionOperationInfo* operation = nullptr;
  std::string error;
};
ResolvedOperation resolve_extension_operation(const std::vector<ExtensionNameAndPrefix>& table,
                                              OperationType t);

// Readable names: NNAPI's name of a base type, "com.npusim.llm:RMS_NORM" for a known extension type, else
// e.g. "extension type 0x00030007" (a prefix the model does not declare, or a code its extension lacks).
std::string operation_name(const std::vector<ExtensionNameAndPrefix>& table, OperationType t);
std::string operation_name(const Model& model, OperationType t);
std::string operand_type_name(const std::vector<ExtensionNameAndPrefix>& table, OperandType t);

// The type of `extension`'s operation `type` in `model`, adding the extension to the model's table with
// the lowest free prefix when it is not there yet.
OperationType use_extension_operation(Model& model, std::string_view extension, uint16_t type);

// The extensions a model's operations and operands use (names, in table order).
std::vector<std::string> extensions_used(const Model& model);

// Checks the model's extension table (names valid, known, unique; prefixes unique and not 0) and that
// every extension-range operand or operation type of every subgraph resolves. The first problem, e.g.
//   operations[3]: type 0x00010009: extension com.npusim.llm has no operation 9
Result<void> validate_extensions(const Model& model);

}  // namespace npu::models
