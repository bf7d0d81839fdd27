// Inputs / expected-outputs files: any bytes, read against a fixed model holding every input type
// (float32, bool8, quant8), either fail with an error or give one tensor per input of the right size.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "npu/models/io_json.h"
#include "npu/models/model_json.h"

namespace {
const npu::models::Model& fixed_model() {
  static const npu::models::Model model = [] {
    auto m = npu::models::load_model_json(NPUSIM_SOURCE_DIR "/tests/e2e/data/hal13_ops.json");
    if (!m) std::abort();
    return *m;
  }();
  return model;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const npu::models::Model& model = fixed_model();
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto doc = npu::models::parse_json_text(text, "fuzz.inputs.json");
  if (!doc) return 0;
  for (auto role : {npu::models::IoRole::Inputs, npu::models::IoRole::Outputs}) {
    auto tensors = npu::models::parse_io_json(*doc, "fuzz.inputs.json", model, role);
    if (!tensors) continue;
    for (const auto& [index, tensor] : *tensors) {
      if (index >= model.main.operands.size()) std::abort();  // a key the model does not have
      if (tensor.has_no_value) continue;
      if (tensor.data.size() != tensor.element_count() * npu::models::element_size(tensor.type)) std::abort();
    }
  }
  return 0;
}
