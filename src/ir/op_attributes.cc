// One declaration per op's attributes (op_attributes.h): the two tables every reader of an op's
// attributes reads.
//
// Design. A StableHLO op's attributes used to be written in six places: its builder, its
// descriptor's read-back (src/ir/ops/<family>.cc), the VHLO property order
// (bytecode_vhlo_op_attrs.cc), the VHLO legalize rules (bytecode_vhlo_legalize.cc), the
// pretty-form keywords (parser_keywords.cc) and the pretty-form op list (parser_pretty.cc). Now
// kOpAttributes has one row per attribute of an op (its name, kind, default, VHLO versions,
// pretty-form keyword) and kOps one row per op (its newest VHLO version, whether the bytecode
// reader reads it, its pretty form); the readers are built from them:
// - the bytecode reader: each VHLO op's property order is the names of its rows whose versions
//   hold it, sorted (vhlo_property_order); the ops it knows, their newest versions and which it
//   reads come from kOps; the legalization turns the i64_array rows' tensors into array<i64: ..>
//   and drops the rows' defaults (AttrDefault), leaving the ops with a struct of our IR
//   (dimension numbers, channel handle: the vhlo_part rows) to the op's own code;
// - the text parser: `key = value` after an op of the operands form is read by the op's row with
//   that keyword, by the row's kind (or AttrText); the ops of that form are kOps' OpForm::operands;
// - both readers fill the defaults our IR keeps explicit from the rows' AttrDefault
//   (fill_op_defaults);
// - the builders write and the descriptors read attributes by name (src/ir/ops/<family>.cc,
//   OpInfo in infer_op.h): tests/ir/op_attributes_test.cc records every name a descriptor reads
//   through the IR test run, and checks that each, every attribute the readers give a StableHLO
//   op of the corpora and every one the builders write (golden_util.h's body_of) is a row;
// - the plain (non-VHLO) bytecode's property layouts of stablehlo.<op> (plain_property_layouts,
//   read by bytecode_stablehlo_props.cc): the op's rows with an ODS form (OdsDecl), sorted by
//   name, one layout per span of StableHLO releases (OptSince: an attribute a release added);
//   the chlo and func ops' layouts are that file's own rows.
// Adding an attribute to a StableHLO op is one row below (and its use in the builder and the
// shape rule). tests/ir/vhlo_table_test.cc checks the VHLO rows against StableHLO's VhloOps.td,
// tests/ir/bytecode_plain_test.cc the ODS forms against jaxlib's op definitions.
#include "op_attributes.h"

#include <algorithm>
#include <unordered_map>

namespace hhlo::detail {
namespace {

using K = AttrKind;
using D = AttrDefault;
using T = AttrText;
constexpr VhloVersions V1{1, 0};           // every version
constexpr VhloVersions V2{2, 0};           // version 2 on
constexpr VhloVersions V1only{1, 1};       // version 1 alone
constexpr VhloVersions None{};             // not in VHLO
constexpr OdsDecl Req{OdsForm::required};  // a required ODS attribute
constexpr OdsDecl Opt{OdsForm::optional};  // an optional one, printed when present
constexpr OdsDecl NotOds{};                // not an ODS attribute (OdsForm::none)
/// An optional ODS attribute whose default `text` StableHLO's printer elides.
constexpr OdsDecl OptDefault(std::string_view text) { return {OdsForm::optional, text}; }
/// An optional ODS attribute of StableHLO 1.`minor` on.
constexpr OdsDecl OptSince(uint8_t minor) { return {OdsForm::optional, {}, {minor}}; }

// The columns: op, attribute, kind, ODS form, VHLO versions, default, pretty-form keyword, its
// text. The ODS forms are StablehloOps.td's (checked against jaxlib's by bytecode_plain_test.cc).
constexpr AttrDecl kOpAttributes[] = {
    {"all_gather", "all_gather_dim", K::integer, Req, V1},
    {"all_gather", "channel_id", K::vhlo_part, NotOds, V1},
    {"all_gather", "channel_handle", K::other, Opt},
    {"all_gather", "replica_groups", K::dense, Req, V1},
    {"all_gather", "use_global_device_ids", K::unit, Opt, V1},
    {"all_reduce", "channel_id", K::vhlo_part, NotOds, V1},
    {"all_reduce", "channel_handle", K::other, Opt},
    {"all_reduce", "replica_groups", K::dense, Req, V1},
    {"all_reduce", "use_global_device_ids", K::unit, Opt, V1},
    {"all_to_all", "channel_id", K::vhlo_part, NotOds, V1},
    {"all_to_all", "channel_handle", K::other, Opt},
    {"all_to_all", "concat_dimension", K::integer, Req, V1},
    {"all_to_all", "replica_groups", K::dense, Req, V1},
    {"all_to_all", "split_count", K::integer, Req, V1},
    {"all_to_all", "split_dimension", K::integer, Req, V1},
    {"batch_norm_grad", "epsilon", K::floating, Req, V1},
    {"batch_norm_grad", "feature_index", K::integer, Req, V1},
    {"batch_norm_inference", "epsilon", K::floating, Req, V1},
    {"batch_norm_inference", "feature_index", K::integer, Req, V1},
    {"batch_norm_training", "epsilon", K::floating, Req, V1},
    {"batch_norm_training", "feature_index", K::integer, Req, V1},
    {"broadcast", "broadcast_sizes", K::i64_array, Req, V1},
    {"broadcast_in_dim", "broadcast_dimensions", K::i64_array, Req, V1, D::none, "dims"},
    {"call", "callee", K::other, NotOds, V1},
    {"cbrt", "result_accuracy", K::other, OptDefault("DEFAULT"), V2, D::default_accuracy},
    {"cholesky", "lower", K::boolean, OptDefault("false"), V1, D::no, "lower"},
    {"collective_broadcast", "channel_id", K::vhlo_part, NotOds, V1},
    {"collective_broadcast", "channel_handle", K::other, Opt},
    {"collective_broadcast", "has_dynamic_root", K::unit, OptSince(20), V2},  // with its _v2
    {"collective_broadcast", "replica_groups", K::dense, Req, V1},
    {"collective_permute", "channel_id", K::vhlo_part, NotOds, V1},
    {"collective_permute", "channel_handle", K::other, Opt},
    {"collective_permute", "source_target_pairs", K::dense, Req, V1},
    {"collective_reduce", "channel_id", K::vhlo_part, NotOds, V1},
    {"collective_reduce", "channel_handle", K::other, Opt},
    {"collective_reduce", "has_dynamic_root", K::unit, Opt, V1},
    {"collective_reduce", "replica_groups", K::dense, Req, V1},
    {"collective_reduce", "use_global_device_ids", K::unit, Opt, V1},
    {"compare", "comparison_direction", K::enumeration, Req, V1},
    {"compare", "compare_type", K::enumeration, Opt, V1, D::enum_zero},
    {"composite", "composite_attributes", K::other, OptDefault("{}"), V1, D::empty},
    {"composite", "decomposition", K::other, Req, V1},
    {"composite", "name", K::other, Req, V1},
    {"composite", "version", K::integer, OptDefault("0"), V1, D::zero},
    {"concatenate", "dimension", K::integer, Req, V1, D::none, "dim"},
    {"constant", "value", K::dense, Req, V1},
    {"convolution", "dimension_numbers", K::dims_struct, Req, None, D::none, "dim_numbers"},
    {"convolution", "window_strides", K::i64_array, Opt, V1, D::spatial_ones, "window.stride"},
    {"convolution", "padding", K::dense, Opt, V1, D::splat_zero, "window.pad", T::pad_pairs},
    {"convolution", "lhs_dilation", K::i64_array, Opt, V1, D::spatial_ones, "window.lhs_dilate"},
    {"convolution", "rhs_dilation", K::i64_array, Opt, V1, D::spatial_ones, "window.rhs_dilate"},
    {"convolution", "window_reversal", K::bool_array, Opt, V1, D::none, "window.reverse"},
    {"convolution", "feature_group_count", K::integer, Req, V1, D::one},
    {"convolution", "batch_group_count", K::integer, Req, V1, D::one},
    {"convolution", "precision_config", K::precision_list, Opt, V1, D::default_precision,
     "precision"},
    {"convolution", "input_batch_dimension", K::vhlo_part, NotOds, V1},
    {"convolution", "input_feature_dimension", K::vhlo_part, NotOds, V1},
    {"convolution", "input_spatial_dimensions", K::vhlo_part, NotOds, V1},
    {"convolution", "kernel_input_feature_dimension", K::vhlo_part, NotOds, V1},
    {"convolution", "kernel_output_feature_dimension", K::vhlo_part, NotOds, V1},
    {"convolution", "kernel_spatial_dimensions", K::vhlo_part, NotOds, V1},
    {"convolution", "output_batch_dimension", K::vhlo_part, NotOds, V1},
    {"convolution", "output_feature_dimension", K::vhlo_part, NotOds, V1},
    {"convolution", "output_spatial_dimensions", K::vhlo_part, NotOds, V1},
    {"cosine", "result_accuracy", K::other, OptDefault("DEFAULT"), V2, D::default_accuracy},
    {"cross-replica-sum", "replica_groups", K::dense, NotOds, V1},
    {"custom_call", "call_target_name", K::other, Req, V1},
    {"custom_call", "api_version", K::other, OptDefault("1"), V1, D::enum_one},
    {"custom_call", "backend_config", K::other, Opt, V1, D::empty},
    {"custom_call", "called_computations", K::other, OptDefault("[]"), V1, D::empty},
    {"custom_call", "has_side_effect", K::boolean, OptDefault("false"), V1, D::no},
    {"custom_call", "operand_layouts", K::other, Opt, V1},
    {"custom_call", "output_operand_aliases", K::other, OptDefault("[]"), V1},
    {"custom_call", "result_layouts", K::other, Opt, V1},
    {"custom_call", "result_tilings", K::vhlo_part, OptSince(18), V2},  // with custom_call_v2
    // JAX's shape assertions (refine.cc reads it), a discardable attribute
    {"custom_call", "error_message", K::other, NotOds},
    {"dot", "precision_config", K::precision_list, Opt, V1, D::default_precision, "precision"},
    {"dot_general", "dot_dimension_numbers", K::dims_struct, Req, None, D::none,
     "batching_dims contracting_dims", T::dims_pair},
    {"dot_general", "precision_config", K::precision_list, Opt, V1, D::default_precision,
     "precision"},
    {"dot_general", "algorithm", K::other, Opt, None, D::none, "algorithm", T::dot_algorithm},
    {"dot_general", "lhs_batching_dimensions", K::vhlo_part, NotOds, V1},
    {"dot_general", "rhs_batching_dimensions", K::vhlo_part, NotOds, V1},
    {"dot_general", "lhs_contracting_dimensions", K::vhlo_part, NotOds, V1},
    {"dot_general", "rhs_contracting_dimensions", K::vhlo_part, NotOds, V1},
    {"dot_general", "lhs_precision_type", K::vhlo_part, NotOds, V2},
    {"dot_general", "rhs_precision_type", K::vhlo_part, NotOds, V2},
    {"dot_general", "accumulation_type", K::vhlo_part, NotOds, V2},
    {"dot_general", "lhs_component_count", K::vhlo_part, NotOds, V2},
    {"dot_general", "rhs_component_count", K::vhlo_part, NotOds, V2},
    {"dot_general", "num_primitive_operations", K::vhlo_part, NotOds, V2},
    {"dot_general", "allow_imprecise_accumulation", K::vhlo_part, NotOds, V2},
    {"dynamic_broadcast_in_dim", "broadcast_dimensions", K::i64_array, Req, V1, D::none, "dims"},
    {"dynamic_broadcast_in_dim", "known_expanding_dimensions", K::i64_array, Opt, V1, D::empty,
     "known_expanding_dimensions"},
    {"dynamic_broadcast_in_dim", "known_nonexpanding_dimensions", K::i64_array, Opt, V1, D::empty,
     "known_nonexpanding_dimensions"},
    {"dynamic_conv", "batch_group_count", K::integer, Req, V1},
    {"dynamic_conv", "dimension_numbers", K::dims_struct, Req},
    {"dynamic_conv", "feature_group_count", K::integer, Req, V1},
    {"dynamic_conv", "input_batch_dimension", K::vhlo_part, NotOds, V1},
    {"dynamic_conv", "input_feature_dimension", K::vhlo_part, NotOds, V1},
    {"dynamic_conv", "input_spatial_dimensions", K::vhlo_part, NotOds, V1},
    {"dynamic_conv", "kernel_input_feature_dimension", K::vhlo_part, NotOds, V1},
    {"dynamic_conv", "kernel_output_feature_dimension", K::vhlo_part, NotOds, V1},
    {"dynamic_conv", "kernel_spatial_dimensions", K::vhlo_part, NotOds, V1},
    {"dynamic_conv", "lhs_dilation", K::i64_array, Opt, V1},
    {"dynamic_conv", "output_batch_dimension", K::vhlo_part, NotOds, V1},
    {"dynamic_conv", "output_feature_dimension", K::vhlo_part, NotOds, V1},
    {"dynamic_conv", "output_spatial_dimensions", K::vhlo_part, NotOds, V1},
    {"dynamic_conv", "padding", K::dense, NotOds, V1only},
    {"dynamic_conv", "precision_config", K::precision_list, Opt, V1},
    {"dynamic_conv", "rhs_dilation", K::i64_array, Opt, V1},
    {"dynamic_conv", "window_reversal", K::bool_array, Opt, V1},
    {"dynamic_conv", "window_strides", K::i64_array, Opt, V1},
    {"dynamic_gather", "dimension_numbers", K::dims_struct, Req},
    {"dynamic_gather", "indices_are_sorted", K::boolean, Opt, V1, D::no},
    {"dynamic_gather", "offset_dims", K::vhlo_part, NotOds, V1},
    {"dynamic_gather", "collapsed_slice_dims", K::vhlo_part, NotOds, V1},
    {"dynamic_gather", "operand_batching_dims", K::vhlo_part, NotOds, V2},
    {"dynamic_gather", "start_indices_batching_dims", K::vhlo_part, NotOds, V2},
    {"dynamic_gather", "start_index_map", K::vhlo_part, NotOds, V1},
    {"dynamic_gather", "index_vector_dim", K::vhlo_part, NotOds, V1},
    {"dynamic_iota", "iota_dimension", K::integer, Req, V1, D::none, "dim"},
    {"dynamic_slice", "slice_sizes", K::i64_array, Req, V1, D::none, "sizes"},
    {"einsum", "einsum_config", K::other, Req, V1},
    {"exp2", "result_accuracy", K::other, OptDefault("DEFAULT"), V1, D::default_accuracy},
    {"exponential", "result_accuracy", K::other, OptDefault("DEFAULT"), V2, D::default_accuracy},
    {"exponential_minus_one", "result_accuracy", K::other, OptDefault("DEFAULT"), V2,
     D::default_accuracy},
    {"fft", "fft_type", K::enumeration, Req, V1, D::none, "type"},
    {"fft", "fft_length", K::i64_array, Req, V1, D::none, "length"},
    {"func", "arg_attrs", K::other, NotOds, V1},
    {"func", "function_type", K::other, NotOds, V1},
    {"func", "res_attrs", K::other, NotOds, V1},
    {"func", "sym_name", K::other, NotOds, V1},
    {"func", "sym_visibility", K::other, NotOds, V1},
    {"gather", "dimension_numbers", K::dims_struct, Req},
    {"gather", "slice_sizes", K::i64_array, Req, V1},
    {"gather", "indices_are_sorted", K::boolean, Opt, V1, D::no},
    {"gather", "offset_dims", K::vhlo_part, NotOds, V1},
    {"gather", "collapsed_slice_dims", K::vhlo_part, NotOds, V1},
    {"gather", "operand_batching_dims", K::vhlo_part, NotOds, V2},
    {"gather", "start_indices_batching_dims", K::vhlo_part, NotOds, V2},
    {"gather", "start_index_map", K::vhlo_part, NotOds, V1},
    {"gather", "index_vector_dim", K::vhlo_part, NotOds, V1},
    {"get_dimension_size", "dimension", K::integer, Req, V1, D::none, "dim"},
    {"get_tuple_element", "index", K::integer, Req, V1},
    {"infeed", "infeed_config", K::other, Opt, V1},
    {"infeed", "layout", K::other, Opt, V1},
    {"iota", "iota_dimension", K::integer, Req, V1, D::none, "dim"},
    {"log", "result_accuracy", K::other, OptDefault("DEFAULT"), V2, D::default_accuracy},
    {"log2", "result_accuracy", K::other, OptDefault("DEFAULT"), V1, D::default_accuracy},
    {"log_plus_one", "result_accuracy", K::other, OptDefault("DEFAULT"), V2, D::default_accuracy},
    {"logistic", "result_accuracy", K::other, OptDefault("DEFAULT"), V2, D::default_accuracy},
    {"map", "dimensions", K::i64_array, Req, V1},
    {"outfeed", "outfeed_config", K::other, Opt, V1},
    {"pad", "edge_padding_low", K::i64_array, Req, V1, D::none, "low"},
    {"pad", "edge_padding_high", K::i64_array, Req, V1, D::none, "high"},
    {"pad", "interior_padding", K::i64_array, Req, V1, D::none, "interior"},
    {"recv", "channel_id", K::vhlo_part, NotOds, V1},
    {"recv", "channel_handle", K::other, Req},
    {"recv", "channel_type", K::other, NotOds, V1},
    {"recv", "is_host_transfer", K::boolean, Opt, V1},
    {"recv", "source_target_pairs", K::dense, Opt, V2},
    {"reduce", "dimensions", K::i64_array, Req, V1},
    {"reduce_precision", "exponent_bits", K::integer, Req, V1, D::none, "format", T::bits_format},
    {"reduce_precision", "mantissa_bits", K::integer, Req, V1},
    {"reduce_scatter", "channel_id", K::vhlo_part, NotOds, V1},
    {"reduce_scatter", "channel_handle", K::other, Opt},
    {"reduce_scatter", "replica_groups", K::dense, Req, V1},
    {"reduce_scatter", "scatter_dimension", K::integer, Req, V1},
    {"reduce_scatter", "use_global_device_ids", K::unit, Opt, V1},
    {"reduce_window", "window_dimensions", K::i64_array, Req, V1},
    {"reduce_window", "window_strides", K::i64_array, Opt, V1, D::ones},
    {"reduce_window", "base_dilations", K::i64_array, Opt, V1, D::ones},
    {"reduce_window", "window_dilations", K::i64_array, Opt, V1, D::ones},
    {"reduce_window", "padding", K::dense, Opt, V1, D::splat_zero},
    {"reverse", "dimensions", K::i64_array, Req, V1, D::none, "dims"},
    {"rng", "rng_distribution", K::enumeration, Req, V1, D::none, "distribution"},
    {"rng_bit_generator", "rng_algorithm", K::enumeration, Req, V1, D::none, "algorithm"},
    {"rsqrt", "result_accuracy", K::other, OptDefault("DEFAULT"), V2, D::default_accuracy},
    {"scatter", "scatter_dimension_numbers", K::dims_struct, Req},
    {"scatter", "indices_are_sorted", K::boolean, Opt, V1, D::no},
    {"scatter", "unique_indices", K::boolean, Opt, V1, D::no},
    {"scatter", "update_window_dims", K::vhlo_part, NotOds, V1},
    {"scatter", "inserted_window_dims", K::vhlo_part, NotOds, V1},
    {"scatter", "input_batching_dims", K::vhlo_part, NotOds, V2},
    {"scatter", "scatter_indices_batching_dims", K::vhlo_part, NotOds, V2},
    {"scatter", "scatter_dims_to_operand_dims", K::vhlo_part, NotOds, V1},
    {"scatter", "index_vector_dim", K::vhlo_part, NotOds, V1},
    {"select_and_scatter", "window_dimensions", K::i64_array, Opt, V1},
    {"select_and_scatter", "window_strides", K::i64_array, Opt, V1, D::ones},
    {"select_and_scatter", "padding", K::dense, Opt, V1, D::splat_zero},
    {"send", "channel_id", K::vhlo_part, NotOds, V1},
    {"send", "channel_handle", K::other, Req},
    {"send", "channel_type", K::other, NotOds, V1},
    {"send", "is_host_transfer", K::boolean, Opt, V1},
    {"send", "source_target_pairs", K::dense, Opt, V2},
    {"set_dimension_size", "dimension", K::integer, Req, V1, D::none, "dim"},
    {"sine", "result_accuracy", K::other, OptDefault("DEFAULT"), V2, D::default_accuracy},
    {"slice", "start_indices", K::i64_array, Req, V1},
    {"slice", "limit_indices", K::i64_array, Req, V1},
    {"slice", "strides", K::i64_array, Req, V1},
    {"sort", "dimension", K::integer, Opt, V1, D::minus_one},
    {"sort", "is_stable", K::boolean, Opt, V1, D::no},
    {"sqrt", "result_accuracy", K::other, OptDefault("DEFAULT"), V2, D::default_accuracy},
    {"tan", "result_accuracy", K::other, OptDefault("DEFAULT"), V2, D::default_accuracy},
    {"tanh", "result_accuracy", K::other, OptDefault("DEFAULT"), V2, D::default_accuracy},
    {"top_k", "k", K::integer, NotOds, None, D::none, "k"},
    {"torch_index_select", "batch_dims", K::integer, Req, V1},
    {"torch_index_select", "dim", K::integer, Req, V1},
    {"transpose", "permutation", K::i64_array, Req, V1, D::none, "dims"},
    {"transpose", "result_layout", K::dense, NotOds},  // layout hints JAX writes, kept as they are
    {"transpose", "xla_shape", K::other, NotOds},
    {"triangular_solve", "left_side", K::boolean, Req, V1},
    {"triangular_solve", "lower", K::boolean, Req, V1},
    {"triangular_solve", "unit_diagonal", K::boolean, Req, V1},
    {"triangular_solve", "transpose_a", K::enumeration, Req, V1},
    {"unary_einsum", "einsum_config", K::other, Req, V1},
};

constexpr OpForm Operands = OpForm::operands;

// The columns: op, newest VHLO version (0: none), read by the bytecode reader, pretty form.
constexpr OpDecl kOps[] = {
    {"abs", 1, true, Operands},
    {"add", 1, true, Operands},
    {"after_all", 1, true, Operands},
    {"all_gather", 2, true},
    {"all_reduce", 2, true},
    {"all_to_all", 2, true},
    {"and", 1, true, Operands},
    {"async_done", 1, false},
    {"async_start", 1, false},
    {"atan2", 1, true, Operands},
    {"batch_norm_grad", 1, true},
    {"batch_norm_inference", 1, true},
    {"batch_norm_training", 1, true},
    {"bitcast_convert", 1, true, Operands},
    {"broadcast", 1, false},
    {"broadcast_in_dim", 1, true, Operands},
    {"call", 1, false},  // read as func.call (bytecode_vhlo_ops.cc)
    {"case", 1, true},
    {"cbrt", 2, true, Operands},
    {"ceil", 1, true, Operands},
    {"cholesky", 1, true, Operands},
    {"clamp", 1, true, Operands},
    {"collective_broadcast", 2, true},
    {"collective_permute", 1, true},
    {"collective_reduce", 1, false},
    {"compare", 1, true},
    {"complex", 1, true, Operands},
    {"composite", 2, true},
    {"concatenate", 1, true, Operands},
    {"constant", 1, true},
    {"convert", 1, true, Operands},
    {"convolution", 1, true},
    {"cosine", 2, true, Operands},
    {"count_leading_zeros", 1, true, Operands},
    {"create_token", 1, true, Operands},
    {"cross-replica-sum", 1, false},
    {"custom_call", 2, true},
    {"divide", 1, true, Operands},
    {"dot", 1, true, Operands},
    {"dot_general", 2, true, Operands},
    {"dynamic_broadcast_in_dim", 1, true, Operands},
    {"dynamic_conv", 2, false},
    {"dynamic_gather", 2, true},
    {"dynamic_iota", 1, true, Operands},
    {"dynamic_pad", 1, true, Operands},
    {"dynamic_reshape", 1, true, Operands},
    {"dynamic_slice", 1, true, Operands},
    {"dynamic_update_slice", 1, true, Operands},
    {"einsum", 1, false},
    {"exp2", 1, true, Operands},
    {"exponential", 2, true, Operands},
    {"exponential_minus_one", 2, true, Operands},
    {"fft", 1, true, Operands},
    {"floor", 1, true, Operands},
    {"fma", 1, true, Operands},
    {"func", 1, false},  // the function itself (bytecode_vhlo_ops.cc)
    {"gather", 2, true},
    {"get_dimension_size", 1, true, Operands},
    {"get_tuple_element", 1, false},
    {"if", 1, true},
    {"imag", 1, true, Operands},
    {"infeed", 1, false},
    {"iota", 1, true, Operands},
    {"is_finite", 1, true, Operands},
    {"log", 2, true, Operands},
    {"log2", 1, true, Operands},
    {"log_plus_one", 2, true, Operands},
    {"logistic", 2, true, Operands},
    {"map", 1, true},
    {"maximum", 1, true, Operands},
    {"minimum", 1, true, Operands},
    {"multiply", 1, true, Operands},
    {"negate", 1, true, Operands},
    {"not", 1, true, Operands},
    {"optimization_barrier", 1, true, Operands},
    {"or", 1, true, Operands},
    {"outfeed", 1, false},
    {"pad", 1, true, Operands},
    {"partition_id", 1, true, Operands},
    {"popcnt", 1, true, Operands},
    {"power", 1, true, Operands},
    {"real", 1, true, Operands},
    {"real_dynamic_slice", 1, true, Operands},
    {"recv", 2, false},
    {"reduce", 1, true},
    {"reduce_precision", 1, true, Operands},
    {"reduce_scatter", 1, true},
    {"reduce_window", 1, true},
    {"remainder", 1, true, Operands},
    {"replica_id", 1, true, Operands},
    {"reshape", 1, true, Operands},
    {"return", 1, false},  // read as stablehlo.return or func.return (bytecode_vhlo_ops.cc)
    {"reverse", 1, true, Operands},
    {"rng", 1, true, Operands},
    {"rng_bit_generator", 1, true, Operands},
    {"round_nearest_afz", 1, true, Operands},
    {"round_nearest_even", 1, true, Operands},
    {"rsqrt", 2, true, Operands},
    {"scatter", 2, true},
    {"select", 1, true, Operands},
    {"select_and_scatter", 1, true},
    {"send", 2, false},
    {"set_dimension_size", 1, false, Operands},
    {"shift_left", 1, true, Operands},
    {"shift_right_arithmetic", 1, true, Operands},
    {"shift_right_logical", 1, true, Operands},
    {"sign", 1, true, Operands},
    {"sine", 2, true, Operands},
    {"slice", 1, true},
    {"sort", 1, true},
    {"sqrt", 2, true, Operands},
    {"subtract", 1, true, Operands},
    {"tan", 2, true, Operands},
    {"tanh", 2, true, Operands},
    {"top_k", 0, false},
    {"torch_index_select", 1, false},
    {"transpose", 1, true, Operands},
    {"triangular_solve", 1, true},
    {"tuple", 1, false},
    {"unary_einsum", 1, false},
    {"uniform_dequantize", 1, false, Operands},
    {"uniform_quantize", 1, false, Operands},
    {"while", 1, true},
    {"xor", 1, true, Operands},
};

/// True when `keywords` (space-separated) holds `word`.
bool has_word(std::string_view keywords, std::string_view word) {
  while (!keywords.empty()) {
    size_t sp = std::min(keywords.find(' '), keywords.size());
    if (keywords.substr(0, sp) == word) return true;
    keywords.remove_prefix(std::min(sp + 1, keywords.size()));
  }
  return false;
}

}  // namespace

std::span<const AttrDecl> op_attributes() { return kOpAttributes; }
std::span<const OpDecl> op_declarations() { return kOps; }

std::vector<std::string_view> vhlo_property_order(std::span<const AttrDecl> attrs,
                                                  std::string_view op, int version) {
  std::vector<std::string_view> names;
  for (const AttrDecl& a : attrs)
    if (a.op == op && a.vhlo.since != 0 && a.vhlo.since <= version &&
        (a.vhlo.until == 0 || version <= a.vhlo.until))
      names.push_back(a.name);
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

/// Whether StableHLO 1.`minor` holds `r` (minor 0: before every release a row names).
bool holds(StablehloReleases r, int minor) {
  return (r.since == 0 || r.since <= minor) && (r.until == 0 || minor <= r.until);
}

}  // namespace

std::vector<std::vector<const AttrDecl*>> plain_property_layouts(std::span<const AttrDecl> attrs,
                                                                 std::string_view op) {
  std::vector<const AttrDecl*> rows;
  std::vector<int> starts = {0};  // the releases where the op's attributes change
  for (const AttrDecl& a : attrs)
    if (a.op == op && a.ods.form != OdsForm::none) {
      rows.push_back(&a);
      if (a.ods.releases.since) starts.push_back(a.ods.releases.since);
      if (a.ods.releases.until) starts.push_back(a.ods.releases.until + 1);
    }
  std::sort(rows.begin(), rows.end(), [](auto* x, auto* y) { return x->name < y->name; });
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  std::vector<std::vector<const AttrDecl*>> layouts;
  for (int minor : starts) {
    std::vector<const AttrDecl*> layout;
    for (const AttrDecl* a : rows)
      if (holds(a->ods.releases, minor)) layout.push_back(a);
    if (!layout.empty()) layouts.push_back(std::move(layout));
  }
  return layouts;
}

const AttrDecl* find_attr(std::span<const AttrDecl> attrs, std::string_view op,
                          std::string_view name) {
  for (const AttrDecl& a : attrs)
    if (a.op == op && a.name == name) return &a;
  return nullptr;
}

const AttrDecl* find_keyword(std::span<const AttrDecl> attrs, std::string_view op,
                             std::string_view keyword) {
  for (const AttrDecl& a : attrs)
    if (a.op == op && has_word(a.keyword, keyword)) return &a;
  return nullptr;
}

namespace {

/// op -> its run of rows in op_attributes().
const std::unordered_map<std::string_view, std::span<const AttrDecl>>& rows_by_op() {
  static const auto table = [] {
    std::unordered_map<std::string_view, std::span<const AttrDecl>> t;
    std::span<const AttrDecl> all = kOpAttributes;
    for (size_t i = 0, j = 0; i < all.size(); i = j) {
      for (j = i; j < all.size() && all[j].op == all[i].op;) ++j;
      t.emplace(all[i].op, all.subspan(i, j - i));  // a second run of an op is not seen: a
                                                    // test checks there is none
    }
    return t;
  }();
  return table;
}

}  // namespace

std::span<const AttrDecl> declared_attrs(std::string_view op) {
  auto it = rows_by_op().find(op);
  return it == rows_by_op().end() ? std::span<const AttrDecl>{} : it->second;
}

const AttrDecl* declared_attr(std::string_view op, std::string_view name) {
  return find_attr(declared_attrs(op), op, name);
}

const AttrDecl* declared_attr_keyword(std::string_view op, std::string_view keyword) {
  return find_keyword(declared_attrs(op), op, keyword);
}

const OpDecl* declared_op(std::string_view op) {
  static const auto table = [] {
    std::unordered_map<std::string_view, const OpDecl*> t;
    for (const OpDecl& o : kOps) t[o.op] = &o;
    return t;
  }();
  auto it = table.find(op);
  return it == table.end() ? nullptr : it->second;
}

namespace {
AttrReadObserver g_observer = nullptr;
}  // namespace

void set_attr_read_observer(AttrReadObserver observer) { g_observer = observer; }
AttrReadObserver attr_read_observer() { return g_observer; }

}  // namespace hhlo::detail
