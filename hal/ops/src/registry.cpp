// The kernel registry: an explicit list (no static self-registration), so what the library supports is
// visible in one place and link order cannot drop a kernel.
#include <algorithm>
#include <array>

#include "kernels.h"
#include "npu/hal/ops/operation.h"

namespace npu::hal::ops {
namespace {

constexpr size_t kKernelCount = 100;

const std::array<const OperationKernel*, kKernelCount>& all_kernels() {
  static const std::array<const OperationKernel*, kKernelCount> kernels{
      &abs_kernel(),
      &add_kernel(),
      &argmax_kernel(),
      &argmin_kernel(),
      &average_pool_2d_kernel(),
      &axis_aligned_bbox_transform_kernel(),
      &batch_to_space_nd_kernel(),
      &bidirectional_sequence_lstm_kernel(),
      &cast_kernel(),
      &channel_shuffle_kernel(),
      &bidirectional_sequence_rnn_kernel(),
      &box_with_nms_limit_kernel(),
      &concatenation_kernel(),
      &conv_2d_kernel(),
      &depth_to_space_kernel(),
      &depthwise_conv_2d_kernel(),
      &dequantize_kernel(),
      &detection_postprocessing_kernel(),
      &div_kernel(),
      &elu_kernel(),
      &embedding_lookup_kernel(),
      &equal_kernel(),
      &exp_kernel(),
      &expand_dims_kernel(),
      &fill_kernel(),
      &floor_kernel(),
      &fully_connected_kernel(),
      &gather_kernel(),
      &generate_proposals_kernel(),
      &greater_equal_kernel(),
      &greater_kernel(),
      &hard_swish_kernel(),
      &grouped_conv_2d_kernel(),
      &hashtable_lookup_kernel(),
      &heatmap_max_keypoint_kernel(),
      &instance_normalization_kernel(),
      &l2_normalization_kernel(),
      &less_kernel(),
      &less_equal_kernel(),
      &l2_pool_2d_kernel(),
      &local_response_normalization_kernel(),
      &log_kernel(),
      &log_softmax_kernel(),
      &logical_and_kernel(),
      &logical_not_kernel(),
      &logical_or_kernel(),
      &logistic_kernel(),
      &lsh_projection_kernel(),
      &lstm_kernel(),
      &max_pool_2d_kernel(),
      &maximum_kernel(),
      &mean_kernel(),
      &minimum_kernel(),
      &mul_kernel(),
      &neg_kernel(),
      &not_equal_kernel(),
      &pad_kernel(),
      &pad_v2_kernel(),
      &pow_kernel(),
      &prelu_kernel(),
      &quantize_kernel(),
      &random_multinomial_kernel(),
      &rank_kernel(),
      &reduce_all_kernel(),
      &reduce_any_kernel(),
      &reduce_max_kernel(),
      &reduce_min_kernel(),
      &reduce_prod_kernel(),
      &reduce_sum_kernel(),
      &relu_kernel(),
      &relu1_kernel(),
      &relu6_kernel(),
      &reshape_kernel(),
      &resize_bilinear_kernel(),
      &resize_nearest_neighbor_kernel(),
      &rnn_kernel(),
      &roi_align_kernel(),
      &roi_pooling_kernel(),
      &rsqrt_kernel(),
      &select_kernel(),
      &sin_kernel(),
      &slice_kernel(),
      &softmax_kernel(),
      &space_to_batch_nd_kernel(),
      &space_to_depth_kernel(),
      &split_kernel(),
      &sqrt_kernel(),
      &squeeze_kernel(),
      &strided_slice_kernel(),
      &sub_kernel(),
      &svdf_kernel(),
      &tanh_kernel(),
      &tile_kernel(),
      &topk_v2_kernel(),
      &transpose_kernel(),
      &transpose_conv_2d_kernel(),
      &unidirectional_sequence_lstm_kernel(),
      &unidirectional_sequence_rnn_kernel(),
      &quantized_16bit_lstm_kernel(),
      &quantized_lstm_kernel(),
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
