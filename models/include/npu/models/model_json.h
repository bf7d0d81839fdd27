// Model JSON (README, "Model JSON"): the native, NNAPI-shaped model file. Reading checks the syntax of every
// field (names, integer ranges, value counts, side-file bounds) and rejects unknown keys; each error is one
// line naming the file and the JSON path, e.g.
//   m.json: $.operands[3].dimensions[1]: expected a non-negative integer, got "x"
// Reading does not check graph structure (indices, lifetimes, data sizes): that is validate_model()'s
// job, so a syntactically valid but broken model loads and then fails validation with operand indices.
//
// Operand "data" is an array of values read by the operand type (numbers for float types, integers
// range-checked for int/quant types, true/false or 0/1 for bool; a bare value for a scalar), or
// {"file": "x.bin", "offset": 0, "length": N} naming raw little-endian bytes in a side file relative
// to the model file's directory. Float values NaN/±inf are written and accepted as the strings
// "NaN", "Infinity", "-Infinity".
//
// Vendor extension types (models/extensions.h) are written by name, "<extension>:<NAME>" (e.g.
// "com.npusim.llm:RMS_NORM"), never as numbers. "extensionNameToPrefix": [{"name", "prefix"}] gives each
// extension its prefix; without it the reader assigns 1, 2, ... in order of first use. The writer always
// writes the table, so a model reads back with the same type values.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "npu/common/result.h"
#include "npu/models/model.h"

namespace npu::models {

// Reads and parses a model file; side files are resolved relative to the file's directory.
Result<Model> load_model_json(const std::string& path);

// Parses an already-read document. `source_name` prefixes every error message; side files are
// resolved relative to `base_dir` (empty = current directory).
Result<Model> parse_model_json(const nlohmann::json& doc, const std::string& source_name,
                               const std::string& base_dir);

// Serialises a model with all data inline; parse_model_json(to_json(m)) reproduces m exactly.
nlohmann::json to_json(const Model& model);

// Writes to_json(model) to `path` (indented, atomically: io::write_file_atomic); errors name the path
// and the OS reason.
// `build` (npu::build_json(), when the writer is npusim) is written under the top-level key "npusim",
// which the reader accepts and skips.
Result<void> save_model_json(const Model& model, const std::string& path,
                             const nlohmann::json& build = nullptr);

// Reads a whole text file: "<path>: cannot open: <reason>" / "<path>: cannot read: <reason>" on failure;
// only a regular file of at most io::kMaxTextFileBytes (a folder, FIFO or /dev/zero is refused).
// Shared with the io JSON reader, the config and scenario readers and the tools.
Result<std::string> read_text_file(const std::string& path);

// Parses JSON text; "<source_name>: not valid JSON: <parser message with line/column>" on failure,
// also for nesting deeper than io::kMaxJsonDepth and numbers out of range (1e999).
Result<nlohmann::json> parse_json_text(const std::string& text, const std::string& source_name);

// Indented JSON text with arrays of plain values kept on one line (readable weights), ending in '\n'.
std::string dump_json_pretty(const nlohmann::json& j);

// "got" rendering used in error messages: the JSON value, shortened to a few dozen characters.
std::string describe_json_value(const nlohmann::json& value);

}  // namespace npu::models
