#include "npu/models/model_json.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <memory>

#include "json_values.h"
#include "npu/common/file_io.h"
#include "npu/common/log.h"
#include "npu/common/version.h"
#include "npu/models/extensions.h"

namespace npu::models {

using detail::child;
using nlohmann::json;

namespace {

// Accumulates the source name so every error reads "<source>: <path>: <what>".
class ModelParser {
 public:
  ModelParser(std::string source, std::string base_dir)
      : source_(std::move(source)), base_dir_(std::move(base_dir)) {}

  Result<Model> parse(const json& doc) {
    const std::string root = "$";
    if (!doc.is_object()) return fail(root, "expected an object, got " + describe_json_value(doc));
    if (auto r = check_keys(
            doc, root,
            {"operands", "operations", "inputIndexes", "outputIndexes", "relaxComputationFloat32toFloat16",
             "referenced", "extensionNameToPrefix", kBuildKey});
        !r) {
      return make_error(r.error());
    }
    if (auto it = doc.find(kBuildKey); it != doc.end() && !it->is_object())
      return fail(
          root + "." + kBuildKey,
          "expected the object naming the npusim build that wrote the file, got " + describe_json_value(*it));
    // Read first: extension types in the graphs take their prefixes from it.
    if (auto it = doc.find("extensionNameToPrefix"); it != doc.end()) {
      if (auto r = extension_table(*it, child(root, "extensionNameToPrefix")); !r)
        return make_error(r.error());
    }
    Model model;
    auto main = subgraph(doc, root);
    if (!main) return make_error(main.error());
    model.main = std::move(main.value());
    if (auto it = doc.find("relaxComputationFloat32toFloat16"); it != doc.end()) {
      if (!it->is_boolean()) {
        return fail(child(root, "relaxComputationFloat32toFloat16"),
                    "expected true or false, got " + describe_json_value(*it));
      }
      model.relax_computation_float32_to_float16 = it->get<bool>();
    }
    if (auto it = doc.find("referenced"); it != doc.end()) {
      const std::string path = child(root, "referenced");
      if (!it->is_array())
        return fail(path, "expected an array of subgraphs, got " + describe_json_value(*it));
      for (size_t i = 0; i < it->size(); ++i) {
        const std::string sp = child(path, i);
        const json& s = (*it)[i];
        if (!s.is_object()) return fail(sp, "expected a subgraph object, got " + describe_json_value(s));
        if (auto r = check_keys(s, sp, {"operands", "operations", "inputIndexes", "outputIndexes"}); !r) {
          return make_error(r.error());
        }
        auto sg = subgraph(s, sp);
        if (!sg) return make_error(sg.error());
        model.referenced.push_back(std::move(sg.value()));
      }
    }
    model.extension_name_to_prefix = std::move(extensions_);
    return model;
  }

 private:
  Error fail(const std::string& path, const std::string& what) const {
    return make_error(source_ + ": " + path + ": " + what);
  }

  Result<void> check_keys(const json& obj, const std::string& path,
                          std::initializer_list<std::string_view> allowed) const {
    for (const auto& [key, value] : obj.items()) {
      bool ok = false;
      for (auto a : allowed) ok = ok || key == a;
      if (!ok) {
        std::string list;
        for (auto a : allowed) {
          if (!list.empty()) list += ", ";
          list += a;
        }
        return fail(path, "unknown key \"" + key + "\" (expected one of: " + list + ")");
      }
    }
    return {};
  }

  Result<const json*> required(const json& obj, const std::string& path, const char* key) const {
    auto it = obj.find(key);
    if (it == obj.end()) return fail(path, std::string("missing required key \"") + key + "\"");
    return &*it;
  }

  Result<uint32_t> u32(const json& v, const std::string& path) const {
    // Parsed non-negative literals are unsigned, but documents built in code may hold signed ones.
    const bool non_negative = v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
    if (!non_negative) return fail(path, "expected a non-negative integer, got " + describe_json_value(v));
    const uint64_t u = v.get<uint64_t>();
    if (u > std::numeric_limits<uint32_t>::max()) {
      return fail(path, "expected an integer below 2^32, got " + describe_json_value(v));
    }
    return static_cast<uint32_t>(u);
  }

  Result<std::vector<uint32_t>> u32_list(const json& v, const std::string& path) const {
    if (!v.is_array())
      return fail(path, "expected an array of non-negative integers, got " + describe_json_value(v));
    std::vector<uint32_t> out;
    out.reserve(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      auto x = u32(v[i], child(path, i));
      if (!x) return make_error(x.error());
      out.push_back(*x);
    }
    return out;
  }

  // "extensionNameToPrefix": [{"name": "com.npusim.llm", "prefix": 1}, ...]. Whether the names are known
  // and the pairs one-to-one is validate_extensions' to say; here only the syntax.
  Result<void> extension_table(const json& v, const std::string& path) {
    if (!v.is_array())
      return fail(path, "expected an array of {\"name\", \"prefix\"} objects, got " + describe_json_value(v));
    declared_extensions_ = true;
    for (size_t i = 0; i < v.size(); ++i) {
      const std::string ep = child(path, i);
      const json& e = v[i];
      if (!e.is_object())
        return fail(ep, "expected {\"name\": ..., \"prefix\": ...}, got " + describe_json_value(e));
      if (auto r = check_keys(e, ep, {"name", "prefix"}); !r) return make_error(r.error());
      auto name = required(e, ep, "name");
      if (!name) return make_error(name.error());
      if (!(*name)->is_string())
        return fail(child(ep, "name"), "expected an extension name, got " + describe_json_value(**name));
      auto prefix = required(e, ep, "prefix");
      if (!prefix) return make_error(prefix.error());
      auto p = u32(**prefix, child(ep, "prefix"));
      if (!p) return make_error(p.error());
      if (*p > kBaseTypeMax)
        return fail(child(ep, "prefix"),
                    "expected a 16-bit prefix (at most 65535), got " + std::to_string(*p));
      extensions_.push_back({(*name)->get<std::string>(), static_cast<uint16_t>(*p)});
    }
    return {};
  }

  // The prefix of `extension` in this model: the declared one, or (no table in the file) the lowest free
  // one, assigned in order of first use.
  Result<uint16_t> prefix_for(const std::string& extension, const std::string& path) {
    if (auto p = prefix_of_extension(extensions_, extension)) return *p;
    if (declared_extensions_)
      return fail(path, "extension " + extension + " is not listed in $.extensionNameToPrefix");
    uint16_t p = 1;
    while (extension_of_prefix(extensions_, p)) ++p;
    extensions_.push_back({extension, p});
    return p;
  }

  // "<extension>:<NAME>" split; the extension must be one this build knows.
  Result<const ExtensionInfo*> extension_of(const std::string& text, const std::string& path) const {
    const std::string ext = text.substr(0, text.find(':'));
    const ExtensionInfo* info = find_extension(ext);
    if (info) return info;
    std::string known;
    for (const auto& e : known_extensions()) known += (known.empty() ? "" : ", ") + std::string(e.name);
    return fail(path,
                "unknown extension \"" + ext + "\" in \"" + text + "\" (this build knows " + known + ")");
  }

  Result<OperationType> extension_operation(const std::string& text, const std::string& path) {
    auto ext = extension_of(text, path);
    if (!ext) return make_error(ext.error());
    const std::string name = text.substr(text.find(':') + 1);
    const ExtensionOperationInfo* op = find_extension_operation(**ext, name);
    if (!op) {
      std::string list;
      for (const auto& o : (*ext)->operations) list += (list.empty() ? "" : ", ") + std::string(o.name);
      return fail(path, "extension " + std::string((*ext)->name) + " has no operation \"" + name +
                            "\" (it defines " + list + ")");
    }
    auto prefix = prefix_for(std::string((*ext)->name), path);
    if (!prefix) return make_error(prefix.error());
    return extension_operation_type(*prefix, op->type);
  }

  Result<OperandType> extension_operand(const std::string& text, const std::string& path) {
    auto ext = extension_of(text, path);
    if (!ext) return make_error(ext.error());
    const std::string name = text.substr(text.find(':') + 1);
    const ExtensionOperandTypeInfo* t = find_extension_operand_type(**ext, name);
    if (!t) {
      std::string list;
      for (const auto& o : (*ext)->operand_types) list += (list.empty() ? "" : ", ") + std::string(o.name);
      return fail(path, "extension " + std::string((*ext)->name) + " has no operand type \"" + name + "\" (" +
                            (list.empty() ? "it defines none: its operations take NNAPI's types"
                                          : "it defines " + list) +
                            ")");
    }
    auto prefix = prefix_for(std::string((*ext)->name), path);
    if (!prefix) return make_error(prefix.error());
    return extension_operand_type(*prefix, t->type);
  }

  Result<Subgraph> subgraph(const json& obj, const std::string& path) {
    Subgraph sg;
    auto ops = required(obj, path, "operands");
    if (!ops) return make_error(ops.error());
    const std::string operands_path = child(path, "operands");
    if (!(*ops)->is_array()) {
      return fail(operands_path, "expected an array of operands, got " + describe_json_value(**ops));
    }
    for (size_t i = 0; i < (*ops)->size(); ++i) {
      auto o = operand((**ops)[i], child(operands_path, i));
      if (!o) return make_error(o.error());
      sg.operands.push_back(std::move(o.value()));
    }
    auto opers = required(obj, path, "operations");
    if (!opers) return make_error(opers.error());
    const std::string operations_path = child(path, "operations");
    if (!(*opers)->is_array()) {
      return fail(operations_path, "expected an array of operations, got " + describe_json_value(**opers));
    }
    for (size_t i = 0; i < (*opers)->size(); ++i) {
      auto o = operation((**opers)[i], child(operations_path, i));
      if (!o) return make_error(o.error());
      sg.operations.push_back(std::move(o.value()));
    }
    for (const char* key : {"inputIndexes", "outputIndexes"}) {
      auto v = required(obj, path, key);
      if (!v) return make_error(v.error());
      auto list = u32_list(**v, child(path, key));
      if (!list) return make_error(list.error());
      (std::string_view(key) == "inputIndexes" ? sg.input_indexes : sg.output_indexes) =
          std::move(list.value());
    }
    return sg;
  }

  Result<Operation> operation(const json& obj, const std::string& path) {
    if (!obj.is_object()) return fail(path, "expected an operation object, got " + describe_json_value(obj));
    if (auto r = check_keys(obj, path, {"type", "inputs", "outputs"}); !r) return make_error(r.error());
    Operation op;
    auto type = required(obj, path, "type");
    if (!type) return make_error(type.error());
    const std::string type_path = child(path, "type");
    if (!(*type)->is_string()) {
      return fail(type_path,
                  "expected an operation type name (e.g. CONV_2D), got " + describe_json_value(**type));
    }
    const std::string type_text = (*type)->get<std::string>();
    if (type_text.find(':') != std::string::npos) {
      auto t = extension_operation(type_text, type_path);
      if (!t) return make_error(t.error());
      op.type = *t;
    } else {
      auto t = operation_type_from_string(type_text);
      if (!t)
        return fail(type_path,
                    "expected an operation type name (e.g. CONV_2D), got " + describe_json_value(**type));
      op.type = *t;
    }
    for (const char* key : {"inputs", "outputs"}) {
      auto v = required(obj, path, key);
      if (!v) return make_error(v.error());
      auto list = u32_list(**v, child(path, key));
      if (!list) return make_error(list.error());
      (std::string_view(key) == "inputs" ? op.inputs : op.outputs) = std::move(list.value());
    }
    return op;
  }

  Result<Operand> operand(const json& obj, const std::string& path) {
    if (!obj.is_object()) return fail(path, "expected an operand object, got " + describe_json_value(obj));
    if (auto r = check_keys(
            obj, path,
            {"type", "dimensions", "scale", "zeroPoint", "lifetime", "data", "channelQuant", "subgraph"});
        !r) {
      return make_error(r.error());
    }
    Operand op;
    auto type = required(obj, path, "type");
    if (!type) return make_error(type.error());
    const std::string type_path = child(path, "type");
    std::optional<OperandType> t;
    if ((*type)->is_string() && (*type)->get<std::string>().find(':') != std::string::npos) {
      auto e = extension_operand((*type)->get<std::string>(), type_path);
      if (!e) return make_error(e.error());
      t = *e;
    } else if ((*type)->is_string()) {
      t = operand_type_from_string((*type)->get<std::string>());
    }
    if (!t) {
      return fail(type_path,
                  "expected an operand type name (e.g. TENSOR_FLOAT32), got " + describe_json_value(**type));
    }
    op.type = *t;
    if (auto it = obj.find("dimensions"); it != obj.end()) {
      auto dims = u32_list(*it, child(path, "dimensions"));
      if (!dims) return make_error(dims.error());
      op.dimensions = std::move(dims.value());
    }
    if (auto it = obj.find("scale"); it != obj.end()) {
      if (!it->is_number() || !std::isfinite(it->get<double>()) || !detail::fits_float(it->get<double>())) {
        return fail(child(path, "scale"), "expected a finite number, got " + describe_json_value(*it));
      }
      op.scale = static_cast<float>(it->get<double>());
    }
    if (auto it = obj.find("zeroPoint"); it != obj.end()) {
      const bool fits =
          it->is_number_integer() &&
          (it->is_number_unsigned() ? it->get<uint64_t>() <= std::numeric_limits<int32_t>::max()
                                    : it->get<int64_t>() >= std::numeric_limits<int32_t>::min() &&
                                          it->get<int64_t>() <= std::numeric_limits<int32_t>::max());
      if (!fits)
        return fail(child(path, "zeroPoint"), "expected a 32-bit integer, got " + describe_json_value(*it));
      op.zero_point = static_cast<int32_t>(it->get<int64_t>());
    }
    if (auto it = obj.find("lifetime"); it != obj.end()) {
      std::optional<Lifetime> l;
      if (it->is_string()) l = lifetime_from_string(it->get<std::string>());
      if (!l) {
        return fail(child(path, "lifetime"),
                    "expected one of SUBGRAPH_INPUT, SUBGRAPH_OUTPUT, TEMPORARY_VARIABLE, CONSTANT_COPY, "
                    "CONSTANT_REFERENCE, NO_VALUE, SUBGRAPH, got " +
                        describe_json_value(*it));
      }
      op.lifetime = *l;
    }
    if (auto it = obj.find("channelQuant"); it != obj.end()) {
      auto pc = channel_quant(*it, child(path, "channelQuant"));
      if (!pc) return make_error(pc.error());
      op.per_channel = std::move(pc.value());
    }
    if (auto it = obj.find("subgraph"); it != obj.end()) {
      if (op.type != OperandType::SUBGRAPH) {
        return fail(child(path, "subgraph"), "only valid on operands of type SUBGRAPH");
      }
      auto k = u32(*it, child(path, "subgraph"));
      if (!k) return make_error(k.error());
      op.subgraph = *k;
    }
    if (auto it = obj.find("data"); it != obj.end()) {
      if (it->is_object() && it->contains("omitted")) {
        // Timing-only constant: {"omitted": true} stands for values of the operand's byte size.
        const std::string dp = child(path, "data");
        if (auto r = check_keys(*it, dp, {"omitted"}); !r) return make_error(r.error());
        const json& flag = (*it)["omitted"];
        if (!flag.is_boolean() || !flag.get<bool>())
          return fail(child(dp, "omitted"), "expected true, got " + describe_json_value(flag));
        op.values_omitted = true;
        return op;
      }
      auto data = it->is_object() ? side_file_data(*it, child(path, "data"), op)
                                  : inline_data(*it, child(path, "data"), op);
      if (!data) return make_error(data.error());
      op.data = std::move(data.value());
    }
    return op;
  }

  Result<PerChannelQuant> channel_quant(const json& obj, const std::string& path) const {
    if (!obj.is_object())
      return fail(path, "expected {\"scales\": [...], \"channelDim\": n}, got " + describe_json_value(obj));
    if (auto r = check_keys(obj, path, {"scales", "channelDim"}); !r) return make_error(r.error());
    PerChannelQuant pc;
    auto scales = required(obj, path, "scales");
    if (!scales) return make_error(scales.error());
    const std::string sp = child(path, "scales");
    if (!(*scales)->is_array())
      return fail(sp, "expected an array of numbers, got " + describe_json_value(**scales));
    for (size_t i = 0; i < (*scales)->size(); ++i) {
      const json& s = (**scales)[i];
      if (!s.is_number() || !std::isfinite(s.get<double>()) || !detail::fits_float(s.get<double>())) {
        return fail(child(sp, i), "expected a finite number, got " + describe_json_value(s));
      }
      pc.scales.push_back(static_cast<float>(s.get<double>()));
    }
    if (auto it = obj.find("channelDim"); it != obj.end()) {
      auto d = u32(*it, child(path, "channelDim"));
      if (!d) return make_error(d.error());
      pc.channel_dim = *d;
    }
    return pc;
  }

  Result<std::vector<uint8_t>> inline_data(const json& v, const std::string& path, const Operand& op) const {
    if (op.type == OperandType::SUBGRAPH)
      return fail(path, "SUBGRAPH operands carry no data (use \"subgraph\")");
    std::vector<uint8_t> bytes;
    if (!v.is_array()) {
      // A bare value is allowed for scalars, which keeps parameter operands short.
      if (is_tensor(op.type))
        return fail(path,
                    "expected an array of values or a {\"file\": ...} object, got " + describe_json_value(v));
      if (auto e = detail::append_json_element(op.type, v, bytes)) return fail(path, *e);
      return bytes;
    }
    const uint64_t expected = op.element_count();
    if (op.fully_specified() && expected != v.size()) {
      return fail(path, "expected " + std::to_string(expected) + " value" + (expected == 1 ? "" : "s") +
                            (is_tensor(op.type) ? " (dimensions " + dims_to_string(op.dimensions) + ")"
                                                : " (scalar)") +
                            ", got " + std::to_string(v.size()));
    }
    bytes.reserve(v.size() * element_size(op.type));
    for (size_t i = 0; i < v.size(); ++i) {
      if (auto e = detail::append_json_element(op.type, v[i], bytes)) return fail(child(path, i), *e);
    }
    return bytes;
  }

  // A side file lies in the model's folder (links resolved), or in a folder NPUSIM_SIDE_FILE_DIRS
  // (colon-separated) names: a model from elsewhere must not read /etc/passwd or ../../secret into its
  // weights, from where they reach the outputs.
  Result<void> side_file_allowed(const std::filesystem::path& full) const {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path file = fs::weakly_canonical(full, ec);
    if (ec) return make_error("cannot be resolved: " + ec.message());
    auto inside = [&](const std::string& dir) {
      std::error_code dir_ec;
      const fs::path root = fs::weakly_canonical(dir.empty() ? fs::path(".") : fs::path(dir), dir_ec);
      if (dir_ec) return false;
      const auto [r, f] = std::mismatch(root.begin(), root.end(), file.begin(), file.end());
      return r == root.end() && f != file.end();
    };
    if (inside(base_dir_)) return {};
    if (const char* extra = std::getenv("NPUSIM_SIDE_FILE_DIRS"); extra && *extra) {
      std::string list = extra;
      for (size_t at = 0; at <= list.size();) {
        const size_t end = std::min(list.find(':', at), list.size());
        if (end > at && inside(list.substr(at, end - at))) return {};
        at = end + 1;
      }
    }
    return make_error("is outside the model's folder (" + (base_dir_.empty() ? std::string(".") : base_dir_) +
                      "): side files are read from there only, or from a folder NPUSIM_SIDE_FILE_DIRS names");
  }

  Result<std::vector<uint8_t>> side_file_data(const json& obj, const std::string& path,
                                              const Operand& op) const {
    if (auto r = check_keys(obj, path, {"file", "offset", "length"}); !r) return make_error(r.error());
    auto file = required(obj, path, "file");
    if (!file) return make_error(file.error());
    if (!(*file)->is_string() || (*file)->get<std::string>().empty()) {
      return fail(child(path, "file"), "expected a file name, got " + describe_json_value(**file));
    }
    uint64_t offset = 0;
    if (auto it = obj.find("offset"); it != obj.end()) {
      if (!it->is_number_unsigned())
        return fail(child(path, "offset"),
                    "expected a non-negative integer, got " + describe_json_value(*it));
      offset = it->get<uint64_t>();
    }
    const bool sized = op.fully_specified() && op.element_count() <= max_operand_bytes();
    const uint64_t byte_size = sized ? op.byte_size() : 0;
    uint64_t length = byte_size;
    if (auto it = obj.find("length"); it != obj.end()) {
      if (!it->is_number_unsigned())
        return fail(child(path, "length"),
                    "expected a non-negative integer, got " + describe_json_value(*it));
      length = it->get<uint64_t>();
      if (sized && length != byte_size) {
        return fail(child(path, "length"), "expected " + std::to_string(byte_size) + " (byte size of " +
                                               std::string(to_string(op.type)) + " " +
                                               dims_to_string(op.dimensions) + "), got " +
                                               std::to_string(length));
      }
    } else if (!sized) {
      return fail(path, "needs \"length\" because the operand's dimensions are not fully specified");
    }
    if (length > max_operand_bytes())
      return fail(child(path, "length"), "too large (" + std::to_string(length) + " bytes)");
    const std::string name = (*file)->get<std::string>();
    const std::filesystem::path full = std::filesystem::path(name).is_absolute() || base_dir_.empty()
                                           ? std::filesystem::path(name)
                                           : std::filesystem::path(base_dir_) / name;
    if (auto r = side_file_allowed(full); !r)
      return fail(child(path, "file"), "\"" + name + "\" " + r.error());
    // A side file may be large (weights): it is opened, checked and read in place, never slurped.
    auto f = io::open_regular(full.string(), std::numeric_limits<uint64_t>::max());
    if (!f) return fail(child(path, "file"), f.error());
    const uint64_t file_size = f->size();
    if (offset > file_size || length > file_size - offset) {
      return fail(path, "side file \"" + name + "\" has " + std::to_string(file_size) +
                            " bytes, cannot read " + std::to_string(length) + " bytes at offset " +
                            std::to_string(offset));
    }
    std::vector<uint8_t> bytes(static_cast<size_t>(length));
    if (auto r = f->read_at(offset, bytes.data(), bytes.size(), full.string()); !r)
      return fail(child(path, "file"), r.error());
    return bytes;
  }

  std::string source_;
  std::string base_dir_;
  std::vector<ExtensionNameAndPrefix> extensions_;
  bool declared_extensions_ = false;  // the file has "extensionNameToPrefix": no prefix is assigned
};

json subgraph_to_json(const Subgraph& sg, const std::vector<ExtensionNameAndPrefix>& extensions) {
  json operands = json::array();
  for (const Operand& op : sg.operands) {
    json o;
    o["type"] = operand_type_name(extensions, op.type);
    o["dimensions"] = op.dimensions;
    if (op.scale != 0.0f)
      o["scale"] = detail::element_to_json(
          OperandType::FLOAT32, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&op.scale), 4), 0);
    if (op.zero_point != 0) o["zeroPoint"] = op.zero_point;
    o["lifetime"] = to_string(op.lifetime);
    if (op.per_channel) {
      json scales = json::array();
      for (float s : op.per_channel->scales) {
        scales.push_back(detail::element_to_json(
            OperandType::FLOAT32, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&s), 4), 0));
      }
      o["channelQuant"] = {{"scales", scales}, {"channelDim", op.per_channel->channel_dim}};
    }
    if (op.type == OperandType::SUBGRAPH) o["subgraph"] = op.subgraph;
    if (op.values_omitted)
      o["data"] = {{"omitted", true}};
    else if (!op.data.empty())
      o["data"] = detail::elements_to_json(op.type, op.data);
    operands.push_back(std::move(o));
  }
  json operations = json::array();
  for (const Operation& op : sg.operations) {
    operations.push_back(
        {{"type", operation_name(extensions, op.type)}, {"inputs", op.inputs}, {"outputs", op.outputs}});
  }
  json j;
  j["operands"] = std::move(operands);
  j["operations"] = std::move(operations);
  j["inputIndexes"] = sg.input_indexes;
  j["outputIndexes"] = sg.output_indexes;
  return j;
}

}  // namespace

std::string describe_json_value(const json& value) { return io::json_for_message(value, 40); }

Result<std::string> read_text_file(const std::string& path) {
  return io::read_file(path, io::kMaxTextFileBytes);
}

Result<json> parse_json_text(const std::string& text, const std::string& source_name) {
  // Before parsing: nlohmann parses any depth, but printing or walking such a value recurses per level.
  if (auto n = io::check_json_nesting(text); !n)
    return make_error(source_name + ": not valid JSON: " + n.error());
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    // parse_error, and out_of_range for a number such as 1e999. nlohmann prefixes
    // "[json.exception.parse_error.101] "; the rest names line and column.
    std::string what = e.what();
    if (auto p = what.find("] "); what.rfind("[json.exception", 0) == 0 && p != std::string::npos) {
      what = what.substr(p + 2);
    }
    for (char& c : what) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    return make_error(source_name + ": not valid JSON: " + what);
  }
}

Result<Model> load_model_json(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return make_error(text.error());
  auto doc = parse_json_text(*text, path);
  if (!doc) return make_error(doc.error());
  const std::string base_dir = std::filesystem::path(path).parent_path().string();
  auto model = parse_model_json(*doc, path, base_dir);
  if (model) {
    log::get("model")->debug("loaded {}: {} operands, {} operations, {} referenced subgraphs", path,
                             model->main.operands.size(), model->main.operations.size(),
                             model->referenced.size());
  }
  return model;
}

Result<Model> parse_model_json(const json& doc, const std::string& source_name, const std::string& base_dir) {
  ModelParser parser(source_name, base_dir);
  return parser.parse(doc);
}

json to_json(const Model& model) {
  json j = subgraph_to_json(model.main, model.extension_name_to_prefix);
  j["relaxComputationFloat32toFloat16"] = model.relax_computation_float32_to_float16;
  if (!model.referenced.empty()) {
    json refs = json::array();
    for (const Subgraph& sg : model.referenced)
      refs.push_back(subgraph_to_json(sg, model.extension_name_to_prefix));
    j["referenced"] = std::move(refs);
  }
  if (!model.extension_name_to_prefix.empty()) {
    json table = json::array();
    for (const auto& e : model.extension_name_to_prefix)
      table.push_back({{"name", e.name}, {"prefix", e.prefix}});
    j["extensionNameToPrefix"] = std::move(table);
  }
  return j;
}

namespace {
// Objects one key per line, but arrays of plain values on one line: nlohmann's indented dump would
// put every weight on its own line.
void pretty(const json& j, int indent, std::string& out) {
  const auto pad = [&](int n) { out.append(static_cast<size_t>(n), ' '); };
  if (j.is_object() && !j.empty()) {
    out += "{\n";
    size_t i = 0;
    for (const auto& [key, value] : j.items()) {
      pad(indent + 2);
      out += json(key).dump() + ": ";
      pretty(value, indent + 2, out);
      out += ++i < j.size() ? ",\n" : "\n";
    }
    pad(indent);
    out += "}";
    return;
  }
  bool flat = true;
  if (j.is_array()) {
    for (const auto& e : j) flat = flat && !e.is_structured();
  }
  if (j.is_array() && !flat) {
    out += "[\n";
    for (size_t i = 0; i < j.size(); ++i) {
      pad(indent + 2);
      pretty(j[i], indent + 2, out);
      out += i + 1 < j.size() ? ",\n" : "\n";
    }
    pad(indent);
    out += "]";
    return;
  }
  out += j.dump(-1, ' ', false, json::error_handler_t::replace);
}
}  // namespace

std::string dump_json_pretty(const json& j) {
  std::string out;
  pretty(j, 0, out);
  out += "\n";
  return out;
}

Result<void> save_model_json(const Model& model, const std::string& path, const json& build) {
  json doc = to_json(model);
  if (!build.is_null()) doc[kBuildKey] = build;
  return io::write_file_atomic(path, dump_json_pretty(doc));
}

}  // namespace npu::models
