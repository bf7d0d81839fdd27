// Conformance graphs: the chain or registry graph of a seed, run on both devices and compared.
#include "random_graph.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <random>
#include <string_view>

#include "../hal_ops/test_models.h"
#include "npu/hal/op_table.h"
#include "npu/hal/ops/reference_executor.h"
#include "npu/models/io_json.h"
#include "npu/models/model_json.h"
#include "npu/models/tensor.h"
#include "npu/models/validate.h"

namespace npu::hal::test {
namespace {

using models::OperandType;

std::string compare(const TensorMap& want, const TensorMap& got) {
  for (const auto& [idx, w] : want) {
    auto it = got.find(idx);
    if (it == got.end()) return "output " + std::to_string(idx) + " missing";
    const models::Tensor& g = it->second;
    if (w.dimensions != g.dimensions || w.data.size() != g.data.size())
      return "output " + std::to_string(idx) + " shape differs";
    if (!models::is_float_type(w.type)) {
      if (w.data != g.data) return "output " + std::to_string(idx) + " bytes differ";
      continue;
    }
    // NNAPI's tolerances: fp32 |e - a| <= 1e-5 + 5 * 2^-23 |e|; fp16 5 * 2^-10 (1 + |e|).
    const bool half = w.type == OperandType::TENSOR_FLOAT16;
    const double atol = half ? 5.0 / 1024 : 1e-5, rtol = half ? 5.0 / 1024 : 5 * 1.1920928955078125e-7;
    for (uint64_t i = 0; i < w.element_count(); ++i) {
      const double e = models::read_element(w.type, w.data, i), a = models::read_element(g.type, g.data, i);
      if (e == a || (std::isnan(e) && std::isnan(a))) continue;
      if (!(std::fabs(e - a) <= atol + rtol * std::fabs(e)))
        return "output " + std::to_string(idx) + " element " + std::to_string(i) + ": cpu " +
               std::to_string(e) + ", npu " + std::to_string(a);
    }
  }
  return "";
}

std::string save(const RandomGraph& g, uint64_t seed, const std::string& dir) {
  const std::string base = dir + "/random_graph_" + std::to_string(seed);
  (void)models::save_model_json(g.model, base + ".json");
  std::ofstream(base + ".inputs.json") << models::io_to_json(g.inputs).dump(1) << "\n";
  return base + ".json";
}

}  // namespace

RandomGraph make_conformance_graph(uint64_t seed) {
  return seed % 2 == 0 ? make_random_graph(seed) : make_registry_graph(seed, seed / 2);
}

std::string save_random_graph(uint64_t seed, const std::string& dir) {
  return save(make_conformance_graph(seed), seed, dir);
}

std::string check_random_graph(system::System& s, uint64_t seed, const std::string& failure_dir,
                               std::string* npu_placement) {
  const RandomGraph g = make_conformance_graph(seed);
  std::string problem;
  ExecutionResult results[2];
  Device* devices[2] = {&s.cpu_device(), &s.npu_device()};
  for (int d = 0; d < 2 && problem.empty(); ++d) {
    auto p = devices[d]->prepare_model(g.model);
    if (!p.status.ok()) {
      problem = std::string(d ? "npu" : "cpu") + " prepare: " + p.status.message;
      break;
    }
    if (d == 1 && npu_placement) *npu_placement = p.model->placement();
    results[d] = p.model->execute_synchronously(g.inputs, false);
    if (!results[d].status.ok())
      problem = std::string(d ? "npu" : "cpu") + " execute: " + results[d].status.message;
  }
  if (problem.empty()) problem = compare(results[0].outputs, results[1].outputs);
  if (problem.empty()) return "";
  if (!failure_dir.empty()) save(g, seed, failure_dir);
  return "seed " + std::to_string(seed) + " (" + g.summary + "): " + problem;
}

}  // namespace npu::hal::test
