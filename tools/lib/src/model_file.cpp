#include "npu/tools/model_file.h"

#include "npu/models/validate.h"
#include "npu/models/zoo.h"

namespace npu::tools {

Result<models::Model> load_model_file(const std::string& path, bool cpu_fallback, uint64_t zoo_seed) {
  models::OnnxImportOptions opt;
  opt.cpu_fallback = cpu_fallback;
  return load_model_file(path, opt, zoo_seed);
}

Result<models::Model> load_model_file(const std::string& path, const models::OnnxImportOptions& opt,
                                      uint64_t zoo_seed) {
  if (!models::is_onnx_path(path)) {
    auto m = models::load_model(path, zoo_seed);
    if (!m) return m;
    if (auto v = models::validate_model(*m); !v) return make_error(path + ": " + v.error());
    return m;
  }
  auto imported = models::import_onnx_file(path, opt);
  if (!imported) return make_error(imported.error());
  if (auto v = models::validate_model(imported->model); !v)
    return make_error(path + ": imported model is invalid: " + v.error());
  return std::move(imported->model);
}

}  // namespace npu::tools
