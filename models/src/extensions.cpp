#include "npu/models/extensions.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace npu::models {
namespace {

std::string hex_type(uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", value);
  return text;
}

}  // namespace

const std::vector<ExtensionInfo>& known_extensions() {
  static const std::vector<ExtensionInfo> kExtensions = {
      {kLlmExtension,
       {},
       {{static_cast<uint16_t>(LlmOperation::RMS_NORM), "RMS_NORM"},
        {static_cast<uint16_t>(LlmOperation::ROPE), "ROPE"},
        {static_cast<uint16_t>(LlmOperation::MATMUL), "MATMUL"}}},
  };
  return kExtensions;
}

const ExtensionInfo* find_extension(std::string_view name) {
  for (const ExtensionInfo& e : known_extensions())
    if (e.name == name) return &e;
  return nullptr;
}

const ExtensionOperationInfo* find_extension_operation(const ExtensionInfo& ext, uint16_t type) {
  for (const auto& o : ext.operations)
    if (o.type == type) return &o;
  return nullptr;
}

const ExtensionOperationInfo* find_extension_operation(const ExtensionInfo& ext, std::string_view name) {
  for (const auto& o : ext.operations)
    if (o.name == name) return &o;
  return nullptr;
}

const ExtensionOperandTypeInfo* find_extension_operand_type(const ExtensionInfo& ext, uint16_t type) {
  for (const auto& o : ext.operand_types)
    if (o.type == type) return &o;
  return nullptr;
}

const ExtensionOperandTypeInfo* find_extension_operand_type(const ExtensionInfo& ext, std::string_view name) {
  for (const auto& o : ext.operand_types)
    if (o.name == name) return &o;
  return nullptr;
}

bool valid_extension_name(std::string_view name) {
  if (name.empty() || name.find('.') == std::string_view::npos) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_';
  });
}

std::optional<std::string> extension_of_prefix(const std::vector<ExtensionNameAndPrefix>& table,
                                               uint16_t prefix) {
  for (const auto& e : table)
    if (e.prefix == prefix) return e.name;
  return std::nullopt;
}

std::optional<uint16_t> prefix_of_extension(const std::vector<ExtensionNameAndPrefix>& table,
                                            std::string_view name) {
  for (const auto& e : table)
    if (e.name == name) return e.prefix;
  return std::nullopt;
}

ResolvedOperation resolve_extension_operation(const std::vector<ExtensionNameAndPrefix>& table,
                                              OperationType t) {
  ResolvedOperation r;
  const auto value = static_cast<uint32_t>(t);
  const uint16_t prefix = type_prefix(value), code = type_within_extension(value);
  const auto name = extension_of_prefix(table, prefix);
  if (!name) {
    r.error = "type " + hex_type(value) + ": prefix " + std::to_string(prefix) +
              " is not declared in extensionNameToPrefix";
    return r;
  }
  r.extension = find_extension(*name);
  if (!r.extension) {
    r.error = "type " + hex_type(value) + ": unknown extension \"" + *name + "\"";
    return r;
  }
  r.operation = find_extension_operation(*r.extension, code);
  if (!r.operation)
    r.error =
        "type " + hex_type(value) + ": extension " + *name + " has no operation " + std::to_string(code);
  return r;
}

std::string operation_name(const std::vector<ExtensionNameAndPrefix>& table, OperationType t) {
  if (!is_extension_type(t)) return std::string(to_string(t));
  const ResolvedOperation r = resolve_extension_operation(table, t);
  if (!r.operation) return "extension type " + hex_type(static_cast<uint32_t>(t));
  return std::string(r.extension->name) + ":" + std::string(r.operation->name);
}

std::string operation_name(const Model& model, OperationType t) {
  return operation_name(model.extension_name_to_prefix, t);
}

std::string operand_type_name(const std::vector<ExtensionNameAndPrefix>& table, OperandType t) {
  if (!is_extension_type(t)) return std::string(to_string(t));
  const auto value = static_cast<uint32_t>(t);
  const auto name = extension_of_prefix(table, type_prefix(value));
  const ExtensionInfo* ext = name ? find_extension(*name) : nullptr;
  const ExtensionOperandTypeInfo* info =
      ext ? find_extension_operand_type(*ext, type_within_extension(value)) : nullptr;
  if (!info) return "extension type " + hex_type(value);
  return std::string(ext->name) + ":" + std::string(info->name);
}

OperationType use_extension_operation(Model& model, std::string_view extension, uint16_t type) {
  auto& table = model.extension_name_to_prefix;
  auto prefix = prefix_of_extension(table, extension);
  if (!prefix) {
    uint16_t p = 1;
    while (extension_of_prefix(table, p)) ++p;
    table.push_back({std::string(extension), p});
    prefix = p;
  }
  return extension_operation_type(*prefix, type);
}

std::vector<std::string> extensions_used(const Model& model) {
  std::set<uint16_t> prefixes;
  auto scan = [&](const Subgraph& g) {
    for (const auto& o : g.operands)
      if (is_extension_type(o.type)) prefixes.insert(type_prefix(static_cast<uint32_t>(o.type)));
    for (const auto& op : g.operations)
      if (is_extension_type(op.type)) prefixes.insert(type_prefix(static_cast<uint32_t>(op.type)));
  };
  scan(model.main);
  for (const auto& g : model.referenced) scan(g);
  std::vector<std::string> names;
  for (const auto& e : model.extension_name_to_prefix)
    if (prefixes.count(e.prefix)) names.push_back(e.name);
  return names;
}

Result<void> validate_extensions(const Model& model) {
  const auto& table = model.extension_name_to_prefix;
  std::set<std::string> names;
  std::set<uint16_t> prefixes;
  std::string known;
  for (const auto& e : known_extensions()) known += (known.empty() ? "" : ", ") + std::string(e.name);
  for (size_t i = 0; i < table.size(); ++i) {
    const std::string where = "extensionNameToPrefix[" + std::to_string(i) + "]: ";
    const auto& e = table[i];
    if (!valid_extension_name(e.name))
      return make_error(where + "\"" + e.name +
                        "\" is not an extension name (lowercase letters, digits, '.' and '_', with a '.')");
    if (!find_extension(e.name))
      return make_error(where + "unknown extension \"" + e.name + "\" (this build knows " + known + ")");
    if (e.prefix == 0) return make_error(where + "prefix 0 is reserved (types up to 0xFFFF are NNAPI's own)");
    if (!names.insert(e.name).second) return make_error(where + "extension " + e.name + " is listed twice");
    if (!prefixes.insert(e.prefix).second)
      return make_error(where + "prefix " + std::to_string(e.prefix) + " is given to two extensions");
  }
  auto check = [&](const Subgraph& g, const std::string& graph) -> Result<void> {
    for (size_t i = 0; i < g.operands.size(); ++i) {
      const OperandType t = g.operands[i].type;
      if (!is_extension_type(t)) continue;
      const auto value = static_cast<uint32_t>(t);
      const std::string where = graph + "operands[" + std::to_string(i) + "]: type " + hex_type(value) + ": ";
      const auto name = extension_of_prefix(table, type_prefix(value));
      if (!name)
        return make_error(where + "prefix " + std::to_string(type_prefix(value)) +
                          " is not declared in extensionNameToPrefix");
      if (!find_extension_operand_type(*find_extension(*name), type_within_extension(value)))
        return make_error(where + "extension " + *name + " has no operand type " +
                          std::to_string(type_within_extension(value)));
    }
    for (size_t k = 0; k < g.operations.size(); ++k) {
      if (!is_extension_type(g.operations[k].type)) continue;
      const ResolvedOperation r = resolve_extension_operation(table, g.operations[k].type);
      if (!r.operation) return make_error(graph + "operations[" + std::to_string(k) + "]: " + r.error);
    }
    return {};
  };
  if (auto r = check(model.main, ""); !r) return r;
  for (size_t i = 0; i < model.referenced.size(); ++i)
    if (auto r = check(model.referenced[i], "referenced[" + std::to_string(i) + "]."); !r) return r;
  return {};
}

}  // namespace npu::models
