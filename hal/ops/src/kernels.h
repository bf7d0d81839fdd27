// The kernel instances, one per source file (internal to npu_hal_ops); registry.cpp lists them.
#pragma once

#include "npu/hal/ops/operation.h"

namespace npu::hal::ops {

const OperationKernel& abs_kernel();
const OperationKernel& add_kernel();
const OperationKernel& average_pool_2d_kernel();
const OperationKernel& axis_aligned_bbox_transform_kernel();
const OperationKernel& batch_to_space_nd_kernel();
const OperationKernel& bidirectional_sequence_lstm_kernel();
const OperationKernel& bidirectional_sequence_rnn_kernel();
const OperationKernel& box_with_nms_limit_kernel();
const OperationKernel& concatenation_kernel();
const OperationKernel& conv_2d_kernel();
const OperationKernel& depth_to_space_kernel();
const OperationKernel& depthwise_conv_2d_kernel();
const OperationKernel& dequantize_kernel();
const OperationKernel& div_kernel();
const OperationKernel& embedding_lookup_kernel();
const OperationKernel& equal_kernel();
const OperationKernel& exp_kernel();
const OperationKernel& floor_kernel();
const OperationKernel& fully_connected_kernel();
const OperationKernel& gather_kernel();
const OperationKernel& greater_equal_kernel();
const OperationKernel& greater_kernel();
const OperationKernel& grouped_conv_2d_kernel();
const OperationKernel& hashtable_lookup_kernel();
const OperationKernel& heatmap_max_keypoint_kernel();
const OperationKernel& l2_normalization_kernel();
const OperationKernel& less_kernel();
const OperationKernel& less_equal_kernel();
const OperationKernel& l2_pool_2d_kernel();
const OperationKernel& local_response_normalization_kernel();
const OperationKernel& log_kernel();
const OperationKernel& logistic_kernel();
const OperationKernel& lsh_projection_kernel();
const OperationKernel& lstm_kernel();
const OperationKernel& max_pool_2d_kernel();
const OperationKernel& maximum_kernel();
const OperationKernel& mean_kernel();
const OperationKernel& minimum_kernel();
const OperationKernel& mul_kernel();
const OperationKernel& neg_kernel();
const OperationKernel& not_equal_kernel();
const OperationKernel& pad_kernel();
const OperationKernel& pow_kernel();
const OperationKernel& quantize_kernel();
const OperationKernel& random_multinomial_kernel();
const OperationKernel& reduce_max_kernel();
const OperationKernel& reduce_min_kernel();
const OperationKernel& reduce_sum_kernel();
const OperationKernel& relu_kernel();
const OperationKernel& relu1_kernel();
const OperationKernel& relu6_kernel();
const OperationKernel& reshape_kernel();
const OperationKernel& resize_bilinear_kernel();
const OperationKernel& rnn_kernel();
const OperationKernel& roi_align_kernel();
const OperationKernel& roi_pooling_kernel();
const OperationKernel& rsqrt_kernel();
const OperationKernel& softmax_kernel();
const OperationKernel& space_to_batch_nd_kernel();
const OperationKernel& space_to_depth_kernel();
const OperationKernel& sqrt_kernel();
const OperationKernel& squeeze_kernel();
const OperationKernel& strided_slice_kernel();
const OperationKernel& sub_kernel();
const OperationKernel& svdf_kernel();
const OperationKernel& tanh_kernel();
const OperationKernel& transpose_kernel();
const OperationKernel& transpose_conv_2d_kernel();
const OperationKernel& unidirectional_sequence_lstm_kernel();
const OperationKernel& unidirectional_sequence_rnn_kernel();

}  // namespace npu::hal::ops
