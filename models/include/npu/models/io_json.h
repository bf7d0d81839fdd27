// Inputs/outputs JSON for one execution (README, "Model JSON"): {"<operand index>": [flat row-major values],
// ...}. Values are read by the operand's type exactly as model data is (range-checked integers for quant
// types, no implicit quantisation). An operand whose model dimensions are not fully specified takes
// the object form {"dimensions": [...], "data": [...]} (also accepted for any operand). An input may be
// `null`: given with no value (NNAPI hasNoValue, Tensor::has_no_value), for an optional operation input
// left out at execution; whether the operation allows that is checked at execution, not here. Errors are one
// line naming the file and key, e.g.  in.json: $["7"]: operand 7 is not a graph input (graph inputs: 0)
// This does not execute or compare anything.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "npu/common/result.h"
#include "npu/models/model.h"
#include "npu/models/tensor.h"

namespace npu::models {

// Which list of the main graph the keys must come from. Inputs must all be present; an outputs file
// (expected results) may name a subset of the outputs.
enum class IoRole { Inputs, Outputs };

Result<std::map<uint32_t, Tensor>> load_io_json(const std::string& path, const Model& model,
                                                IoRole role = IoRole::Inputs);
Result<std::map<uint32_t, Tensor>> parse_io_json(const nlohmann::json& doc, const std::string& source_name,
                                                 const Model& model, IoRole role = IoRole::Inputs);

// Writes tensors keyed by operand index: floats as numbers, quant/int as integers, bools as booleans.
// With `with_dimensions` each value is the object form, so shapes computed at run time are kept.
nlohmann::json io_to_json(const std::map<uint32_t, Tensor>& tensors, bool with_dimensions = false);

}  // namespace npu::models
