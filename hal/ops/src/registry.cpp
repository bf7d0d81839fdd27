// The kernel registry: an explicit list (no static self-registration), so what the library supports is
// visible in one place and link order cannot drop a kernel.
#include <algorithm>
#include <array>

#include "kernels.h"
#include "npu/hal/ops/operation.h"

namespace npu::hal::ops {
namespace {

const std::array<const OperationKernel*, 11>& all_kernels() {
  static const std::array<const OperationKernel*, 11> kernels{
      &add_kernel(),
      &average_pool_2d_kernel(),
      &conv_2d_kernel(),
      &depthwise_conv_2d_kernel(),
      &fully_connected_kernel(),
      &max_pool_2d_kernel(),
      &relu_kernel(),
      &relu1_kernel(),
      &relu6_kernel(),
      &reshape_kernel(),
      &softmax_kernel(),
  };
  return kernels;
}

}  // namespace

const OperationKernel* find_kernel(models::OperationType type) {
  for (const OperationKernel* k : all_kernels()) {
    if (k->type() == type) return k;
  }
  return nullptr;
}

std::vector<models::OperationType> registered_operations() {
  std::vector<models::OperationType> types;
  for (const OperationKernel* k : all_kernels()) types.push_back(k->type());
  std::sort(types.begin(), types.end());
  return types;
}

}  // namespace npu::hal::ops
