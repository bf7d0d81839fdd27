// Random-graph conformance in the manner of Android's TestRandomGraph: seeded valid NNAPI graphs, each
// run on the NPU device and on the CPU reference and compared: integer, boolean and quantised outputs
// byte for byte, TENSOR_FLOAT32 within the fp32 tolerance, TENSOR_FLOAT16 within the fp16 one. Two
// kinds of graph:
//  - chains of 1-5 operations over TENSOR_FLOAT32, TENSOR_QUANT8_ASYMM and TENSOR_QUANT8_ASYMM_SIGNED
//    (26 operations whose shapes, strides, padding and quantisation are drawn within NNAPI's rules);
//  - registry graphs: one cell of the operation x operand-type table (every operation of the registry in
//    every type the CPU reference accepts, as `npusim ops` lists them) in its table form, with random
//    input values, random constant weights, quantisation redrawn where validation accepts it, and
//    sometimes an ADD feeding it and a RELU reading it, so the graph crosses NPU/CPU boundaries.
// A failing graph is written as <dir>/random_graph_<seed>.json plus .inputs.json, replayable with
// `npusim run --model ... --inputs ...`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "npu/models/model.h"
#include "npu/system/system.h"

namespace npu::hal::test {

struct RandomGraph {
  models::Model model;
  TensorMap inputs;
  std::string summary;  // operation names in order, for messages
  // The (operation, op-table column) of each operation drawn, for coverage counts.
  std::vector<std::pair<models::OperationType, models::OperandType>> cells;
};

// Every (operation, op-table column) cell the CPU reference accepts (probe_operation_table()).
const std::vector<std::pair<models::OperationType, models::OperandType>>& registry_cells();

// The same seed gives the same graph and inputs. `type` forces the tensor type (else drawn); every other
// draw is the same, so the TENSOR_QUANT8_ASYMM_SIGNED graph of a seed is its TENSOR_QUANT8_ASYMM graph
// with every zero point and quantised value shifted by -128.
RandomGraph make_random_graph(uint64_t seed, std::optional<models::OperandType> type = std::nullopt);

// A registry graph: the cell registry_cells()[cell % size] drawn with `seed`.
RandomGraph make_registry_graph(uint64_t seed, uint64_t cell);

// The conformance graph of a seed: even seeds a chain (make_random_graph(seed)), odd seeds the registry
// graph of cell (seed / 2) mod the cell count, so every 2 x cells consecutive seeds draw every cell.
RandomGraph make_conformance_graph(uint64_t seed);

// Writes the conformance graph of `seed` as <dir>/random_graph_<seed>.json and .inputs.json; returns the
// model path.
std::string save_random_graph(uint64_t seed, const std::string& dir);

// Runs one graph on both devices (call on a simulated thread of `s`). Empty when they agree; otherwise
// what differs (or which device failed), and the graph is saved under `failure_dir` when not empty.
// `npu_placement`, when given, receives the NPU device's placement line (e.g. "npu" or "npu + cpu (...)").
std::string check_random_graph(system::System& s, uint64_t seed, const std::string& failure_dir,
                               std::string* npu_placement = nullptr);

}  // namespace npu::hal::test
