// The kernel instances, one per source file (internal to npu_hal_ops); registry.cpp lists them.
#pragma once

#include "npu/hal/ops/operation.h"

namespace npu::hal::ops {

const OperationKernel& conv_2d_kernel();
const OperationKernel& fully_connected_kernel();
const OperationKernel& depthwise_conv_2d_kernel();
const OperationKernel& average_pool_2d_kernel();
const OperationKernel& max_pool_2d_kernel();
const OperationKernel& add_kernel();
const OperationKernel& relu_kernel();
const OperationKernel& relu1_kernel();
const OperationKernel& relu6_kernel();
const OperationKernel& reshape_kernel();
const OperationKernel& softmax_kernel();

}  // namespace npu::hal::ops
