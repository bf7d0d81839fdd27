// Random-graph conformance in the manner of Android's TestRandomGraph: a seeded generator of small valid
// NNAPI graphs (chains of 1-5 operations over TENSOR_FLOAT32, TENSOR_QUANT8_ASYMM and
// TENSOR_QUANT8_ASYMM_SIGNED, shapes and parameters drawn within NNAPI's rules), each run on the NPU
// device and on the CPU reference and compared: quantised outputs byte for byte, float outputs within
// the fp32 tolerance. A failing graph is written as <dir>/random_graph_<seed>.json plus
// .inputs.json, replayable with `npusim run --model ... --inputs ...`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "npu/models/model.h"
#include "npu/system/system.h"

namespace npu::hal::test {

struct RandomGraph {
  models::Model model;
  TensorMap inputs;
  std::string summary;  // operation names in order, for messages
};

// The same seed gives the same graph and inputs. `type` forces the tensor type (else drawn); every other
// draw is the same, so the TENSOR_QUANT8_ASYMM_SIGNED graph of a seed is its TENSOR_QUANT8_ASYMM graph
// with every zero point and quantised value shifted by -128.
RandomGraph make_random_graph(uint64_t seed, std::optional<models::OperandType> type = std::nullopt);

// Writes the graph of `seed` as <dir>/random_graph_<seed>.json and .inputs.json; returns the model path.
std::string save_random_graph(uint64_t seed, const std::string& dir);

// Runs one graph on both devices (call on a simulated thread of `s`). Empty when they agree; otherwise
// what differs (or which device failed), and the graph is saved under `failure_dir` when not empty.
// `npu_placement`, when given, receives the NPU device's placement line (e.g. "npu" or "npu + cpu (...)").
std::string check_random_graph(system::System& s, uint64_t seed, const std::string& failure_dir,
                               std::string* npu_placement = nullptr);

}  // namespace npu::hal::test
