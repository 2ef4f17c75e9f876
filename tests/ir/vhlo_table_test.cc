// Every row of the bytecode reader's VHLO op table (src/ir/bytecode/bytecode_vhlo_op_attrs.cc: op
// name with its version, and the attribute names its properties hold, in order) against StableHLO's
// own definitions. The expected rows below were written from stablehlo/dialect/VhloOps.td of
// openxla/stablehlo at StableHLO 1.20.0 (commit 3c9301c116f97fbaf696959a0ede32712aec587b): each
// `VHLO_Op<"name_vN", "from", "to">` with the `VHLO_AnyAttr:$name` arguments of its `arguments`,
// sorted by name (the order ODS's readProperties reads them). The ops StableHLO added after 1.20
// (exp2_v1, fma_v1, log2_v1) were read from jaxlib 0.12.1's VHLO dialect (StableHLO 1.25.3): its
// serialize_portable_artifact of stablehlo.exp2 / log2 / fma printed in VHLO's generic form. The
// comment of each row is the op's StableHLO version range.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "../../src/ir/bytecode/bytecode_internal.h"

namespace hhlo::bc {
namespace {

struct Row {
  std::string_view op;
  std::string_view attrs;  // space-separated, sorted
};

constexpr Row kVhloOps[] = {
    {"abs_v1", ""},        // 0.9.0..current
    {"add_v1", ""},        // 0.9.0..current
    {"after_all_v1", ""},  // 0.9.0..current
    {"all_gather_v1",
     "all_gather_dim channel_id replica_groups use_global_device_ids"},  // 0.9.0..1.4.0
    {"all_gather_v2",
     "all_gather_dim channel_id replica_groups use_global_device_ids"},    // 1.5.0..current
    {"all_reduce_v1", "channel_id replica_groups use_global_device_ids"},  // 0.9.0..1.4.0
    {"all_reduce_v2", "channel_id replica_groups use_global_device_ids"},  // 1.5.0..current
    {"all_to_all_v1",
     "channel_id concat_dimension replica_groups split_count split_dimension"},  // 0.9.0..1.4.0
    {"all_to_all_v2",
     "channel_id concat_dimension replica_groups split_count split_dimension"},  // 1.5.0..current
    {"and_v1", ""},                                                              // 0.9.0..current
    {"async_done_v1", ""},                                                       // 1.15.0..current
    {"async_start_v1", ""},                                                      // 1.15.0..current
    {"atan2_v1", ""},                                                            // 0.9.0..current
    {"batch_norm_grad_v1", "epsilon feature_index"},                             // 0.9.0..current
    {"batch_norm_inference_v1", "epsilon feature_index"},                        // 0.9.0..current
    {"batch_norm_training_v1", "epsilon feature_index"},                         // 0.9.0..current
    {"bitcast_convert_v1", ""},                                                  // 0.9.0..current
    {"broadcast_in_dim_v1", "broadcast_dimensions"},                             // 0.9.0..current
    {"broadcast_v1", "broadcast_sizes"},                                         // 0.9.0..current
    {"call_v1", "callee"},                                                       // 0.9.0..current
    {"case_v1", ""},                                                             // 0.9.0..current
    {"cbrt_v1", ""},                                                             // 0.9.0..1.9.0
    {"cbrt_v2", "result_accuracy"},                                              // 1.10.0..current
    {"ceil_v1", ""},                                                             // 0.9.0..current
    {"cholesky_v1", "lower"},                                                    // 0.9.0..current
    {"clamp_v1", ""},                                                            // 0.9.0..current
    {"collective_broadcast_v1", "channel_id replica_groups"},                    // 0.16.0..1.19.0
    {"collective_broadcast_v2", "channel_id has_dynamic_root replica_groups"},   // 1.20.0..current
    {"collective_permute_v1", "channel_id source_target_pairs"},                 // 0.9.0..current
    {"collective_reduce_v1",
     "channel_id has_dynamic_root replica_groups use_global_device_ids"},  // 1.19.0..current
    {"compare_v1", "compare_type comparison_direction"},                   // 0.9.0..current
    {"complex_v1", ""},                                                    // 0.9.0..current
    {"composite_v1", "composite_attributes decomposition name version"},   // 0.19.0..1.13.0
    {"composite_v2", "composite_attributes decomposition name version"},   // 1.14.0..current
    {"concatenate_v1", "dimension"},                                       // 0.9.0..current
    {"constant_v1", "value"},                                              // 0.9.0..current
    {"convert_v1", ""},                                                    // 0.9.0..current
    {"convolution_v1",
     "batch_group_count feature_group_count input_batch_dimension input_feature_dimension "
     "input_spatial_dimensions kernel_input_feature_dimension kernel_output_feature_dimension "
     "kernel_spatial_dimensions lhs_dilation output_batch_dimension output_feature_dimension "
     "output_spatial_dimensions padding precision_config rhs_dilation window_reversal "
     "window_strides"},                          // 0.9.0..current
    {"cosine_v1", ""},                           // 0.9.0..1.9.0
    {"cosine_v2", "result_accuracy"},            // 1.10.0..current
    {"count_leading_zeros_v1", ""},              // 0.9.0..current
    {"create_token_v1", ""},                     // 0.9.0..current
    {"cross-replica-sum_v1", "replica_groups"},  // 0.9.0..current
    {"custom_call_v1",
     "api_version backend_config call_target_name called_computations has_side_effect "
     "operand_layouts output_operand_aliases result_layouts"},  // 0.9.0..1.17.0
    {"custom_call_v2",
     "api_version backend_config call_target_name called_computations has_side_effect "
     "operand_layouts output_operand_aliases result_layouts result_tilings"},  // 1.18.0..current
    {"divide_v1", ""},                                                         // 0.9.0..current
    {"dot_general_v1",
     "lhs_batching_dimensions lhs_contracting_dimensions precision_config rhs_batching_dimensions "
     "rhs_contracting_dimensions"},  // 0.9.0..1.5.0
    {"dot_general_v2",
     "accumulation_type allow_imprecise_accumulation lhs_batching_dimensions "
     "lhs_component_count lhs_contracting_dimensions lhs_precision_type "
     "num_primitive_operations precision_config rhs_batching_dimensions rhs_component_count "
     "rhs_contracting_dimensions rhs_precision_type"},  // 1.6.0..current
    {"dot_v1", "precision_config"},                     // 0.9.0..current
    {"dynamic_broadcast_in_dim_v1",
     "broadcast_dimensions known_expanding_dimensions known_nonexpanding_dimensions"},  // 0.9.0..current
    {"dynamic_conv_v1",
     "batch_group_count feature_group_count input_batch_dimension input_feature_dimension "
     "input_spatial_dimensions kernel_input_feature_dimension kernel_output_feature_dimension "
     "kernel_spatial_dimensions lhs_dilation output_batch_dimension output_feature_dimension "
     "output_spatial_dimensions padding precision_config rhs_dilation window_reversal "
     "window_strides"},  // 0.9.0..0.19.0
    {"dynamic_conv_v2",
     "batch_group_count feature_group_count input_batch_dimension input_feature_dimension "
     "input_spatial_dimensions kernel_input_feature_dimension kernel_output_feature_dimension "
     "kernel_spatial_dimensions lhs_dilation output_batch_dimension output_feature_dimension "
     "output_spatial_dimensions precision_config rhs_dilation window_reversal window_strides"},  // 0.20.0..current
    {"dynamic_gather_v1",
     "collapsed_slice_dims index_vector_dim indices_are_sorted offset_dims start_index_map"},  // 0.9.0..1.0.0
    {"dynamic_gather_v2",
     "collapsed_slice_dims index_vector_dim indices_are_sorted offset_dims operand_batching_dims "
     "start_index_map start_indices_batching_dims"},                           // 1.1.0..current
    {"dynamic_iota_v1", "iota_dimension"},                                     // 0.9.0..current
    {"dynamic_pad_v1", ""},                                                    // 0.9.0..current
    {"dynamic_reshape_v1", ""},                                                // 0.9.0..current
    {"dynamic_slice_v1", "slice_sizes"},                                       // 0.9.0..current
    {"dynamic_update_slice_v1", ""},                                           // 0.9.0..current
    {"einsum_v1", "einsum_config"},                                            // 0.9.0..current
    {"exp2_v1", "result_accuracy"},                                            // jaxlib 0.12.1
    {"exponential_minus_one_v1", ""},                                          // 0.9.0..1.9.0
    {"exponential_minus_one_v2", "result_accuracy"},                           // 1.10.0..current
    {"exponential_v1", ""},                                                    // 0.9.0..1.8.0
    {"exponential_v2", "result_accuracy"},                                     // 1.9.0..current
    {"fft_v1", "fft_length fft_type"},                                         // 0.9.0..current
    {"floor_v1", ""},                                                          // 0.9.0..current
    {"fma_v1", ""},                                                            // jaxlib 0.12.1
    {"func_v1", "arg_attrs function_type res_attrs sym_name sym_visibility"},  // 0.9.0..current
    {"gather_v1",
     "collapsed_slice_dims index_vector_dim indices_are_sorted offset_dims slice_sizes "
     "start_index_map"},  // 0.9.0..1.0.0
    {"gather_v2",
     "collapsed_slice_dims index_vector_dim indices_are_sorted offset_dims operand_batching_dims "
     "slice_sizes start_index_map start_indices_batching_dims"},                  // 1.1.0..current
    {"get_dimension_size_v1", "dimension"},                                       // 0.9.0..current
    {"get_tuple_element_v1", "index"},                                            // 0.9.0..current
    {"if_v1", ""},                                                                // 0.9.0..current
    {"imag_v1", ""},                                                              // 0.9.0..current
    {"infeed_v1", "infeed_config layout"},                                        // 0.9.0..current
    {"iota_v1", "iota_dimension"},                                                // 0.9.0..current
    {"is_finite_v1", ""},                                                         // 0.9.0..current
    {"log2_v1", "result_accuracy"},                                               // jaxlib 0.12.1
    {"log_plus_one_v1", ""},                                                      // 0.9.0..1.9.0
    {"log_plus_one_v2", "result_accuracy"},                                       // 1.10.0..current
    {"log_v1", ""},                                                               // 0.9.0..1.9.0
    {"log_v2", "result_accuracy"},                                                // 1.10.0..current
    {"logistic_v1", ""},                                                          // 0.9.0..1.9.0
    {"logistic_v2", "result_accuracy"},                                           // 1.10.0..current
    {"map_v1", "dimensions"},                                                     // 0.9.0..current
    {"maximum_v1", ""},                                                           // 0.9.0..current
    {"minimum_v1", ""},                                                           // 0.9.0..current
    {"multiply_v1", ""},                                                          // 0.9.0..current
    {"negate_v1", ""},                                                            // 0.9.0..current
    {"not_v1", ""},                                                               // 0.9.0..current
    {"optimization_barrier_v1", ""},                                              // 0.9.0..current
    {"or_v1", ""},                                                                // 0.9.0..current
    {"outfeed_v1", "outfeed_config"},                                             // 0.9.0..current
    {"pad_v1", "edge_padding_high edge_padding_low interior_padding"},            // 0.9.0..current
    {"partition_id_v1", ""},                                                      // 0.9.0..current
    {"popcnt_v1", ""},                                                            // 0.9.0..current
    {"power_v1", ""},                                                             // 0.9.0..current
    {"real_dynamic_slice_v1", ""},                                                // 0.9.0..current
    {"real_v1", ""},                                                              // 0.9.0..current
    {"recv_v1", "channel_id channel_type is_host_transfer"},                      // 0.9.0..1.11.0
    {"recv_v2", "channel_id channel_type is_host_transfer source_target_pairs"},  // 1.12.0..current
    {"reduce_precision_v1", "exponent_bits mantissa_bits"},                       // 0.9.0..current
    {"reduce_scatter_v1",
     "channel_id replica_groups scatter_dimension use_global_device_ids"},  // 0.9.0..current
    {"reduce_v1", "dimensions"},                                            // 0.9.0..current
    {"reduce_window_v1",
     "base_dilations padding window_dilations window_dimensions window_strides"},  // 0.9.0..current
    {"remainder_v1", ""},                                                          // 0.9.0..current
    {"replica_id_v1", ""},                                                         // 0.9.0..current
    {"reshape_v1", ""},                                                            // 0.9.0..current
    {"return_v1", ""},                                                             // 0.9.0..current
    {"reverse_v1", "dimensions"},                                                  // 0.9.0..current
    {"rng_bit_generator_v1", "rng_algorithm"},                                     // 0.9.0..current
    {"rng_v1", "rng_distribution"},                                                // 0.9.0..current
    {"round_nearest_afz_v1", ""},                                                  // 0.9.0..current
    {"round_nearest_even_v1", ""},                                                 // 0.9.0..current
    {"rsqrt_v1", ""},                                                              // 0.9.0..1.9.0
    {"rsqrt_v2", "result_accuracy"},  // 1.10.0..current
    {"scatter_v1",
     "index_vector_dim indices_are_sorted inserted_window_dims scatter_dims_to_operand_dims "
     "unique_indices update_window_dims"},  // 0.9.0..1.0.0
    {"scatter_v2",
     "index_vector_dim indices_are_sorted input_batching_dims inserted_window_dims "
     "scatter_dims_to_operand_dims scatter_indices_batching_dims unique_indices "
     "update_window_dims"},                                                       // 1.1.0..current
    {"select_and_scatter_v1", "padding window_dimensions window_strides"},        // 0.9.0..current
    {"select_v1", ""},                                                            // 0.9.0..current
    {"send_v1", "channel_id channel_type is_host_transfer"},                      // 0.9.0..1.11.0
    {"send_v2", "channel_id channel_type is_host_transfer source_target_pairs"},  // 1.12.0..current
    {"set_dimension_size_v1", "dimension"},                                       // 0.9.0..current
    {"shift_left_v1", ""},                                                        // 0.9.0..current
    {"shift_right_arithmetic_v1", ""},                                            // 0.9.0..current
    {"shift_right_logical_v1", ""},                                               // 0.9.0..current
    {"sign_v1", ""},                                                              // 0.9.0..current
    {"sine_v1", ""},                                                              // 0.9.0..1.9.0
    {"sine_v2", "result_accuracy"},                                               // 1.10.0..current
    {"slice_v1", "limit_indices start_indices strides"},                          // 0.9.0..current
    {"sort_v1", "dimension is_stable"},                                           // 0.9.0..current
    {"sqrt_v1", ""},                                                              // 0.9.0..1.9.0
    {"sqrt_v2", "result_accuracy"},                                               // 1.10.0..current
    {"subtract_v1", ""},                                                          // 0.9.0..current
    {"tan_v1", ""},                                                               // 1.4.0..1.9.0
    {"tan_v2", "result_accuracy"},                                                // 1.10.0..current
    {"tanh_v1", ""},                                                              // 0.9.0..1.9.0
    {"tanh_v2", "result_accuracy"},                                               // 1.10.0..current
    {"torch_index_select_v1", "batch_dims dim"},                                  // 0.9.0..current
    {"transpose_v1", "permutation"},                                              // 0.9.0..current
    {"triangular_solve_v1", "left_side lower transpose_a unit_diagonal"},         // 0.9.0..current
    {"tuple_v1", ""},                                                             // 0.9.0..current
    {"unary_einsum_v1", "einsum_config"},                                         // 0.9.0..current
    {"uniform_dequantize_v1", ""},                                                // 0.9.0..current
    {"uniform_quantize_v1", ""},                                                  // 0.9.0..current
    {"while_v1", ""},                                                             // 0.9.0..current
    {"xor_v1", ""},                                                               // 0.9.0..current
};

std::string joined(const std::vector<std::string_view>& v) {
  std::string s;
  for (std::string_view x : v) s += (s.empty() ? "" : " ") + std::string(x);
  return s;
}

/// (`add`, 1) of `add_v1`.
std::pair<std::string, int> split(std::string_view op) {
  size_t u = op.rfind("_v");
  return {std::string(op.substr(0, u)), std::stoi(std::string(op.substr(u + 2)))};
}

TEST(VhloTable, EveryOpHasTheAttributesOfStablehlosDefinitionInOrder) {
  for (const Row& r : kVhloOps) {
    const std::vector<std::string_view>* names = vhlo_attr_names(r.op);
    ASSERT_NE(names, nullptr) << "vhlo." << r.op << " is missing from the reader's table";
    EXPECT_EQ(joined(*names), r.attrs) << "vhlo." << r.op;
  }
}

TEST(VhloTable, TheReaderKnowsNoOpStablehloDoesNotDefine) {
  std::set<std::string_view> expected;
  for (const Row& r : kVhloOps) expected.insert(r.op);
  std::set<std::string_view> seen;
  for (std::string_view op : vhlo_op_names()) {
    EXPECT_TRUE(expected.count(op)) << "vhlo." << op << " is in the reader's table, not in VHLO";
    EXPECT_TRUE(seen.insert(op).second) << "vhlo." << op << " is twice in the reader's table";
  }
  EXPECT_EQ(seen.size(), std::size(kVhloOps));
}

TEST(VhloTable, TheNewestVersionOfEachOpIsStablehlos) {
  std::map<std::string, int> newest;
  for (const Row& r : kVhloOps) {
    auto [base, v] = split(r.op);
    newest[base] = std::max(newest[base], v);
  }
  for (const auto& [base, v] : newest) EXPECT_EQ(newest_vhlo_version(base), v) << base;
  EXPECT_EQ(newest_vhlo_version("no_such_op"), 0);
}

// VhloBytecode.cpp's enums AttributeCode and TypeCode at StableHLO 1.20.0 (the commit above),
// each code with the mnemonic of its attribute or type (VhloAttrs.td, VhloEnums.td,
// VhloTypes.td). jaxlib 0.12.1's VHLO dialect (StableHLO 1.25.3) names no other attribute; of
// types it adds f8E5M3FNU_v1, whose code is not in these sources (so it is refused as newer).
constexpr std::pair<uint64_t, std::string_view> kAttrCodes[] = {
    {1, "array_v1"},
    {2, "bool_v1"},
    {3, "comparison_direction_v1"},
    {4, "comparison_type_v1"},
    {5, "api_version_v1"},  // CustomCallApiVersionV1Attr
    {6, "dict_v1"},
    {7, "fft_type_v1"},
    {8, "float_v1"},
    {9, "integer_v1"},
    {10, "output_operand_alias_v1"},
    {11, "precision_v1"},
    {12, "rng_algorithm_v1"},
    {13, "rng_distribution_v1"},
    {14, "string_v1"},
    {15, "tensor_v1"},
    {16, "transpose_v1"},
    {17, "type_v1"},
    {18, "type_extensions_v1"},
    {19, "result_accuracy_mode_v1"},
    {20, "result_accuracy_v1"},
    {21, "sub_axis_info_v1"},
    {22, "axis_ref_v1"},
    {23, "replica_group_mesh_axes_v1"},
    {24, "mesh_axis_v1"},
    {25, "mesh_v1"},
};
constexpr std::pair<uint64_t, std::string_view> kTypeCodes[] = {
    {0, "bool_v1"},
    {1, "complex_v1"},
    {2, "bf16_v1"},
    {3, "f16_v1"},
    {4, "f32_v1"},
    {5, "f64_v1"},
    {6, "f8E4M3FN_v1"},
    {7, "f8E5M2_v1"},
    {8, "func_v1"},
    {9, "index_v1"},
    {10, "i4_v1"},
    {11, "i8_v1"},
    {12, "i16_v1"},
    {13, "i32_v1"},
    {14, "i64_v1"},
    {15, "ui4_v1"},
    {16, "ui8_v1"},
    {17, "ui16_v1"},
    {18, "ui32_v1"},
    {19, "ui64_v1"},
    {20, "tensor_v1"},
    {21, "tensor_v1"},  // kRankedTensorV1TypeWithEncoding
    {22, "token_v1"},
    {23, "tuple_v1"},
    {24, "quant_v1"},
    {25, "unranked_tensor_v1"},
    {26, "witness_v1"},
    {27, "f8E4M3FNUZ_v1"},
    {28, "f8E5M2FNUZ_v1"},
    {29, "f8E4M3B11FNUZ_v1"},
    {30, "quant_per_axis_v1"},
    {31, "i2_v1"},
    {32, "ui2_v1"},
    {33, "none_v1"},
    {34, "tf31_v1"},  // kFloatTF32V1Type; VhloTypes.td's mnemonic
    {35, "f8E4M3_v1"},
    {36, "f8E3M4_v1"},
    {37, "f4E2M1FN_v1"},
    {38, "f6E2M3FN_v1"},
    {39, "f6E3M2FN_v1"},
    {40, "f8E8M0FNU_v1"},
    {41, "buffer_v1"},
    {42, "future_v1"},
};

template <size_t N>
void expect_codes(std::span<const VhloCode> ours,
                  const std::pair<uint64_t, std::string_view> (&want)[N], const char* what) {
  ASSERT_EQ(ours.size(), N) << what;
  for (size_t k = 0; k < N; ++k) {
    EXPECT_EQ(ours[k].code, want[k].first) << what << " row " << k;
    EXPECT_EQ(ours[k].name, want[k].second) << what << " code " << want[k].first;
  }
}

TEST(VhloTable, EveryAttributeAndTypeCodeIsStablehlos) {
  expect_codes(vhlo_attr_codes(), kAttrCodes, "attribute");
  expect_codes(vhlo_type_codes(), kTypeCodes, "type");
  EXPECT_EQ(vhlo_attr_code_text(18), "attribute code 18 (vhlo.type_extensions_v1)");
  EXPECT_EQ(vhlo_type_code_text(6), "type code 6 (vhlo.f8E4M3FN_v1)");
  EXPECT_EQ(vhlo_type_code_text(43),
            "type code 43, newer than the newest this reader knows (42, vhlo.future_v1): written "
            "by a newer StableHLO");
  EXPECT_EQ(vhlo_attr_code_text(0), "attribute code 0");  // ArgResultAliasV1Attr, deprecated
}

}  // namespace
}  // namespace hhlo::bc
