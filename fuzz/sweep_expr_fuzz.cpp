// Sweep constraint expressions (sweep/include/npu/sweep/expr.h): the bytes are the expression text,
// parsed and, when valid, evaluated with every parameter 1. Properties: an error or a value, never a
// crash; nesting past kMaxExprDepth is an error (the seeds hold 256- and 257-level ones).
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include "npu/sweep/expr.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto e = npu::sweep::Expr::parse(text);
  if (!e) return 0;
  (void)e->evaluate([](const std::string&) -> std::optional<double> { return 1.0; });
  return 0;
}
