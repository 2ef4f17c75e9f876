// The attributes of each VHLO op, sorted by name: the order in which an op's properties (bytecode
// version 5 and later) hold them, each as one attribute index (ODS's generated readProperties;
// the names and op list are those of stablehlo/dialect/VhloOps.td at StableHLO 1.20.0, commit
// 3c9301c, and of jaxlib 0.12.1's VHLO dialect (StableHLO 1.25.3) for exp2_v1, fma_v1 and log2_v1;
// tests/ir/vhlo_table_test.cc checks every row).
#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "bytecode_internal.h"

namespace hhlo::bc {
namespace {

struct OpAttrs {
  std::string_view op;
  std::string_view names;  // space-separated, sorted
};

constexpr OpAttrs kOps[] = {
    {"abs_v1", ""},
    {"add_v1", ""},
    {"after_all_v1", ""},
    {"all_gather_v1", "all_gather_dim channel_id replica_groups use_global_device_ids"},
    {"all_gather_v2", "all_gather_dim channel_id replica_groups use_global_device_ids"},
    {"all_reduce_v1", "channel_id replica_groups use_global_device_ids"},
    {"all_reduce_v2", "channel_id replica_groups use_global_device_ids"},
    {"all_to_all_v1", "channel_id concat_dimension replica_groups split_count split_dimension"},
    {"all_to_all_v2", "channel_id concat_dimension replica_groups split_count split_dimension"},
    {"and_v1", ""},
    {"async_start_v1", ""},
    {"async_done_v1", ""},
    {"atan2_v1", ""},
    {"batch_norm_grad_v1", "epsilon feature_index"},
    {"batch_norm_inference_v1", "epsilon feature_index"},
    {"batch_norm_training_v1", "epsilon feature_index"},
    {"bitcast_convert_v1", ""},
    {"broadcast_in_dim_v1", "broadcast_dimensions"},
    {"broadcast_v1", "broadcast_sizes"},
    {"call_v1", "callee"},
    {"case_v1", ""},
    {"cbrt_v1", ""},
    {"cbrt_v2", "result_accuracy"},
    {"ceil_v1", ""},
    {"cholesky_v1", "lower"},
    {"clamp_v1", ""},
    {"count_leading_zeros_v1", ""},
    {"collective_broadcast_v1", "channel_id replica_groups"},
    {"collective_broadcast_v2", "channel_id has_dynamic_root replica_groups"},
    {"collective_reduce_v1", "channel_id has_dynamic_root replica_groups use_global_device_ids"},
    {"collective_permute_v1", "channel_id source_target_pairs"},
    {"compare_v1", "compare_type comparison_direction"},
    {"complex_v1", ""},
    {"composite_v1", "composite_attributes decomposition name version"},
    {"composite_v2", "composite_attributes decomposition name version"},
    {"concatenate_v1", "dimension"},
    {"constant_v1", "value"},
    {"convert_v1", ""},
    {"convolution_v1",
     "batch_group_count feature_group_count input_batch_dimension input_feature_dimension "
     "input_spatial_dimensions kernel_input_feature_dimension kernel_output_feature_dimension "
     "kernel_spatial_dimensions lhs_dilation output_batch_dimension output_feature_dimension "
     "output_spatial_dimensions padding precision_config rhs_dilation window_reversal "
     "window_strides"},
    {"cosine_v1", ""},
    {"cosine_v2", "result_accuracy"},
    {"create_token_v1", ""},
    {"cross-replica-sum_v1", "replica_groups"},
    {"custom_call_v1",
     "api_version backend_config call_target_name called_computations has_side_effect "
     "operand_layouts output_operand_aliases result_layouts"},
    {"custom_call_v2",
     "api_version backend_config call_target_name called_computations has_side_effect "
     "operand_layouts output_operand_aliases result_layouts result_tilings"},
    {"divide_v1", ""},
    {"dot_general_v1",
     "lhs_batching_dimensions lhs_contracting_dimensions precision_config rhs_batching_dimensions "
     "rhs_contracting_dimensions"},
    {"dot_general_v2",
     "accumulation_type allow_imprecise_accumulation lhs_batching_dimensions lhs_component_count "
     "lhs_contracting_dimensions lhs_precision_type num_primitive_operations precision_config "
     "rhs_batching_dimensions rhs_component_count rhs_contracting_dimensions rhs_precision_type"},
    {"dot_v1", "precision_config"},
    {"dynamic_broadcast_in_dim_v1",
     "broadcast_dimensions known_expanding_dimensions known_nonexpanding_dimensions"},
    {"dynamic_conv_v1",
     "batch_group_count feature_group_count input_batch_dimension input_feature_dimension "
     "input_spatial_dimensions kernel_input_feature_dimension kernel_output_feature_dimension "
     "kernel_spatial_dimensions lhs_dilation output_batch_dimension output_feature_dimension "
     "output_spatial_dimensions padding precision_config rhs_dilation window_reversal "
     "window_strides"},
    {"dynamic_conv_v2",
     "batch_group_count feature_group_count input_batch_dimension input_feature_dimension "
     "input_spatial_dimensions kernel_input_feature_dimension kernel_output_feature_dimension "
     "kernel_spatial_dimensions lhs_dilation output_batch_dimension output_feature_dimension "
     "output_spatial_dimensions precision_config rhs_dilation window_reversal window_strides"},
    {"dynamic_gather_v1",
     "collapsed_slice_dims index_vector_dim indices_are_sorted offset_dims start_index_map"},
    {"dynamic_gather_v2",
     "collapsed_slice_dims index_vector_dim indices_are_sorted offset_dims operand_batching_dims "
     "start_index_map start_indices_batching_dims"},
    {"dynamic_iota_v1", "iota_dimension"},
    {"dynamic_pad_v1", ""},
    {"dynamic_reshape_v1", ""},
    {"dynamic_slice_v1", "slice_sizes"},
    {"dynamic_update_slice_v1", ""},
    {"einsum_v1", "einsum_config"},
    {"exp2_v1", "result_accuracy"},
    {"exponential_minus_one_v1", ""},
    {"exponential_minus_one_v2", "result_accuracy"},
    {"exponential_v1", ""},
    {"exponential_v2", "result_accuracy"},
    {"fft_v1", "fft_length fft_type"},
    {"floor_v1", ""},
    {"fma_v1", ""},
    {"func_v1", "arg_attrs function_type res_attrs sym_name sym_visibility"},
    {"gather_v1",
     "collapsed_slice_dims index_vector_dim indices_are_sorted offset_dims slice_sizes "
     "start_index_map"},
    {"gather_v2",
     "collapsed_slice_dims index_vector_dim indices_are_sorted offset_dims operand_batching_dims "
     "slice_sizes start_index_map start_indices_batching_dims"},
    {"get_dimension_size_v1", "dimension"},
    {"get_tuple_element_v1", "index"},
    {"if_v1", ""},
    {"imag_v1", ""},
    {"infeed_v1", "infeed_config layout"},
    {"iota_v1", "iota_dimension"},
    {"is_finite_v1", ""},
    {"log2_v1", "result_accuracy"},
    {"log_plus_one_v1", ""},
    {"log_plus_one_v2", "result_accuracy"},
    {"logistic_v1", ""},
    {"logistic_v2", "result_accuracy"},
    {"log_v1", ""},
    {"log_v2", "result_accuracy"},
    {"map_v1", "dimensions"},
    {"maximum_v1", ""},
    {"minimum_v1", ""},
    {"multiply_v1", ""},
    {"negate_v1", ""},
    {"not_v1", ""},
    {"optimization_barrier_v1", ""},
    {"or_v1", ""},
    {"outfeed_v1", "outfeed_config"},
    {"pad_v1", "edge_padding_high edge_padding_low interior_padding"},
    {"partition_id_v1", ""},
    {"popcnt_v1", ""},
    {"power_v1", ""},
    {"real_dynamic_slice_v1", ""},
    {"real_v1", ""},
    {"recv_v1", "channel_id channel_type is_host_transfer"},
    {"recv_v2", "channel_id channel_type is_host_transfer source_target_pairs"},
    {"reduce_v1", "dimensions"},
    {"reduce_precision_v1", "exponent_bits mantissa_bits"},
    {"reduce_scatter_v1", "channel_id replica_groups scatter_dimension use_global_device_ids"},
    {"reduce_window_v1",
     "base_dilations padding window_dilations window_dimensions window_strides"},
    {"remainder_v1", ""},
    {"replica_id_v1", ""},
    {"reshape_v1", ""},
    {"return_v1", ""},
    {"reverse_v1", "dimensions"},
    {"rng_bit_generator_v1", "rng_algorithm"},
    {"rng_v1", "rng_distribution"},
    {"round_nearest_even_v1", ""},
    {"round_nearest_afz_v1", ""},
    {"rsqrt_v1", ""},
    {"rsqrt_v2", "result_accuracy"},
    {"scatter_v1",
     "index_vector_dim indices_are_sorted inserted_window_dims scatter_dims_to_operand_dims "
     "unique_indices update_window_dims"},
    {"scatter_v2",
     "index_vector_dim indices_are_sorted input_batching_dims inserted_window_dims "
     "scatter_dims_to_operand_dims scatter_indices_batching_dims unique_indices "
     "update_window_dims"},
    {"select_and_scatter_v1", "padding window_dimensions window_strides"},
    {"select_v1", ""},
    {"send_v1", "channel_id channel_type is_host_transfer"},
    {"send_v2", "channel_id channel_type is_host_transfer source_target_pairs"},
    {"set_dimension_size_v1", "dimension"},
    {"shift_left_v1", ""},
    {"shift_right_arithmetic_v1", ""},
    {"shift_right_logical_v1", ""},
    {"sign_v1", ""},
    {"sine_v1", ""},
    {"sine_v2", "result_accuracy"},
    {"slice_v1", "limit_indices start_indices strides"},
    {"sort_v1", "dimension is_stable"},
    {"sqrt_v1", ""},
    {"sqrt_v2", "result_accuracy"},
    {"subtract_v1", ""},
    {"tan_v1", ""},
    {"tan_v2", "result_accuracy"},
    {"tanh_v1", ""},
    {"tanh_v2", "result_accuracy"},
    {"torch_index_select_v1", "batch_dims dim"},
    {"transpose_v1", "permutation"},
    {"triangular_solve_v1", "left_side lower transpose_a unit_diagonal"},
    {"tuple_v1", ""},
    {"unary_einsum_v1", "einsum_config"},
    {"uniform_dequantize_v1", ""},
    {"uniform_quantize_v1", ""},
    {"while_v1", ""},
    {"xor_v1", ""},
};

}  // namespace

const std::vector<std::string_view>* vhlo_attr_names(std::string_view op) {
  static const std::unordered_map<std::string_view, std::vector<std::string_view>> table = [] {
    std::unordered_map<std::string_view, std::vector<std::string_view>> t;
    for (const OpAttrs& o : kOps) {
      std::vector<std::string_view>& names = t[o.op];
      std::string_view s = o.names;
      while (!s.empty()) {
        size_t sp = s.find(' ');
        names.push_back(s.substr(0, sp));
        s = sp == std::string_view::npos ? std::string_view{} : s.substr(sp + 1);
      }
    }
    return t;
  }();
  auto it = table.find(op);
  return it == table.end() ? nullptr : &it->second;
}

std::vector<std::string_view> vhlo_op_names() {
  std::vector<std::string_view> out;
  for (const OpAttrs& o : kOps) out.push_back(o.op);
  return out;
}

int newest_vhlo_version(std::string_view base) {
  int newest = 0;
  for (const OpAttrs& o : kOps) {
    std::string_view name = o.op;
    size_t u = name.rfind("_v");
    if (u == std::string_view::npos || name.substr(0, u) != base) continue;
    int v = 0;
    for (char ch : name.substr(u + 2)) v = v * 10 + (ch - '0');
    newest = std::max(newest, v);
  }
  return newest;
}

}  // namespace hhlo::bc
