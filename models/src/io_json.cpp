#include "npu/models/io_json.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include "json_values.h"
#include "npu/common/version.h"
#include "npu/models/model_json.h"

namespace npu::models {

using nlohmann::json;

namespace {

std::string list_to_string(const std::vector<uint32_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  return s.empty() ? "none" : s;
}

}  // namespace

Result<std::map<uint32_t, Tensor>> parse_io_json(const json& doc, const std::string& source_name,
                                                 const Model& model, IoRole role) {
  auto fail = [&](const std::string& path, const std::string& what) {
    return make_error(source_name + ": " + path + ": " + what);
  };
  if (!doc.is_object())
    return fail("$", "expected an object keyed by operand index, got " + describe_json_value(doc));
  const Subgraph& g = model.main;
  const auto& allowed = role == IoRole::Inputs ? g.input_indexes : g.output_indexes;
  const std::string role_name = role == IoRole::Inputs ? "input" : "output";
  std::map<uint32_t, Tensor> out;
  for (const auto& [key, value] : doc.items()) {
    const std::string path = "$[" + json(key).dump() + "]";
    if (key == kBuildKey) {  // the build that wrote the file (npu::build_json)
      if (!value.is_object())
        return fail(path, "expected the object naming the npusim build that wrote the file, got " +
                              describe_json_value(value));
      continue;
    }
    uint32_t index = 0;
    const auto res = std::from_chars(key.data(), key.data() + key.size(), index);
    if (key.empty() || res.ec != std::errc() || res.ptr != key.data() + key.size() ||
        (key.size() > 1 && key[0] == '0')) {
      return fail(path, "key must be an operand index (decimal integer)");
    }
    if (std::find(allowed.begin(), allowed.end(), index) == allowed.end() || index >= g.operands.size()) {
      return fail(path, "operand " + key + " is not a graph " + role_name + " (graph " + role_name +
                            "s: " + list_to_string(allowed) + ")");
    }
    const Operand& desc = g.operands[index];
    if (value.is_null()) {
      // NNAPI's hasNoValue: an input given as nothing (an optional operation input left out).
      if (role == IoRole::Outputs) return fail(path, "an expected output cannot be null");
      out.emplace(index, no_value_tensor(desc));
      continue;
    }
    std::vector<uint32_t> dims = desc.dimensions;
    const json* values = &value;
    std::string values_path = path;
    if (value.is_object()) {
      for (const auto& [k, v] : value.items()) {
        if (k != "dimensions" && k != "data") {
          return fail(path, "unknown key \"" + k + "\" (expected one of: dimensions, data)");
        }
      }
      auto d = value.find("dimensions");
      auto v = value.find("data");
      if (d == value.end()) return fail(path, "missing required key \"dimensions\"");
      if (v == value.end()) return fail(path, "missing required key \"data\"");
      const std::string dpath = path + ".dimensions";
      if (!d->is_array())
        return fail(dpath, "expected an array of positive integers, got " + describe_json_value(*d));
      std::vector<uint32_t> given;
      for (size_t i = 0; i < d->size(); ++i) {
        const json& e = (*d)[i];
        if (!e.is_number_unsigned() || e.get<uint64_t>() == 0 ||
            e.get<uint64_t>() > std::numeric_limits<uint32_t>::max()) {
          return fail(detail::child(dpath, i), "expected a positive integer, got " + describe_json_value(e));
        }
        given.push_back(static_cast<uint32_t>(e.get<uint64_t>()));
      }
      // The given shape must refine the model's: same rank (when known), same known extents.
      bool compatible = is_tensor(desc.type)
                            ? (desc.dimensions.empty() || desc.dimensions.size() == given.size())
                            : given.empty();
      for (size_t i = 0; compatible && i < desc.dimensions.size() && i < given.size(); ++i) {
        compatible = desc.dimensions[i] == 0 || desc.dimensions[i] == given[i];
      }
      if (!compatible) {
        return fail(dpath, "dimensions " + dims_to_string(given) + " do not match operand " + key + "'s " +
                               dims_to_string(desc.dimensions));
      }
      dims = std::move(given);
      values = &*v;
      values_path = path + ".data";
    }
    Operand shaped = desc;
    shaped.dimensions = dims;
    if (!shaped.fully_specified()) {
      return fail(path, "operand " + key + " has dimensions " + dims_to_string(desc.dimensions) +
                            " with unknown extents; give {\"dimensions\": [...], \"data\": [...]}");
    }
    const uint64_t count = shaped.element_count();
    if (count > max_operand_bytes() / std::max<uint32_t>(1, element_size(desc.type))) {
      return fail(path, "operand " + key + " is too large");
    }
    std::vector<uint8_t> bytes;
    if (!values->is_array()) {
      if (is_tensor(desc.type))
        return fail(values_path, "expected an array of values, got " + describe_json_value(*values));
      if (auto e = detail::append_json_element(desc.type, *values, bytes)) return fail(values_path, *e);
    } else {
      if (values->size() != count) {
        return fail(values_path, "expected " + std::to_string(count) + " value" + (count == 1 ? "" : "s") +
                                     " for operand " + key + " (" + std::string(to_string(desc.type)) + " " +
                                     dims_to_string(dims) + "), got " + std::to_string(values->size()));
      }
      bytes.reserve(static_cast<size_t>(count * element_size(desc.type)));
      for (size_t i = 0; i < values->size(); ++i) {
        if (auto e = detail::append_json_element(desc.type, (*values)[i], bytes)) {
          return fail(detail::child(values_path, i), *e);
        }
      }
    }
    Tensor t;
    t.type = desc.type;
    t.dimensions = std::move(dims);
    t.scale = desc.scale;
    t.zero_point = desc.zero_point;
    t.per_channel = desc.per_channel;
    t.data = std::move(bytes);
    out.emplace(index, std::move(t));
  }
  if (role == IoRole::Inputs) {
    for (uint32_t idx : g.input_indexes) {
      if (!out.count(idx)) {
        return fail("$", "missing graph input " + std::to_string(idx) +
                             " (graph inputs: " + list_to_string(g.input_indexes) + ")");
      }
    }
  }
  return out;
}

Result<std::map<uint32_t, Tensor>> load_io_json(const std::string& path, const Model& model, IoRole role) {
  auto text = read_text_file(path);
  if (!text) return make_error(text.error());
  auto doc = parse_json_text(*text, path);
  if (!doc) return make_error(doc.error());
  return parse_io_json(*doc, path, model, role);
}

json io_to_json(const std::map<uint32_t, Tensor>& tensors, bool with_dimensions) {
  json out = json::object();
  for (const auto& [index, t] : tensors) {
    if (t.has_no_value) {
      out[std::to_string(index)] = nullptr;
      continue;
    }
    json values = detail::elements_to_json(t.type, t.data);
    if (with_dimensions) {
      out[std::to_string(index)] = {{"dimensions", t.dimensions}, {"data", std::move(values)}};
    } else {
      out[std::to_string(index)] = std::move(values);
    }
  }
  return out;
}

}  // namespace npu::models
