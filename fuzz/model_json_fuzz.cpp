// Model JSON reader: any bytes either fail with an error or give a model; a model that validates must
// serialise and read back to the same document. Side-file data references resolve in fuzz/data, whose
// weights.bin is a real side file, so offsets, lengths and names past it are exercised.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "npu/models/model_json.h"
#include "npu/models/validate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto doc = npu::models::parse_json_text(text, "fuzz.json");
  if (!doc) return 0;
  auto model = npu::models::parse_model_json(*doc, "fuzz.json", NPUSIM_SOURCE_DIR "/fuzz/data");
  if (!model || !npu::models::validate_model(*model)) return 0;
  const nlohmann::json written = npu::models::to_json(*model);
  auto again = npu::models::parse_model_json(written, "round trip", "");
  if (!again) std::abort();                                   // what we wrote we must read
  if (npu::models::to_json(*again) != written) std::abort();  // and read back unchanged
  return 0;
}
