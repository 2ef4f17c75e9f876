// StableHLO type inference: pure functions from operand types and attributes to result types.
// Each throws hhlo::ShapeError(op, "Cn", detail) citing the violated constraint of the op's
// section in the StableHLO specification (docs/spec.md upstream). Builders (hhlo/ir/ops.h), the
// verifier and tests all call these same functions; none of them touches the IR.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "hhlo/core/tensor_type.h"
#include "hhlo/ir/attribute.h"

namespace hhlo {

/// Elementwise unary ops (spec: abs, cbrt, ceil, ..., tanh; exp2 and log2 from StableHLO 1.23).
/// `op` is the StableHLO name without dialect ("abs"). Result: same shape; element type same as
/// operand, except abs/real/imag of a complex (its part type) and is_finite (i1). Throws
/// ShapeError("", op) for an unknown op and for an element type the op does not accept (constraint
/// "C1": type(result) relation).
TensorType infer_unary(std::string_view op, const TensorType& operand);
/// Elementwise binary ops (add ... shift_right_logical, complex). Shapes must be equal (C1);
/// element types equal (C1) and accepted by the op. `complex` maps f32/f64 to c64/c128.
TensorType infer_binary(std::string_view op, const TensorType& lhs, const TensorType& rhs);
/// fma (spec "fma", StableHLO 1.24+): `a * b + c` with one rounding. (C1) a, b, c and the result
/// have one type, of float or complex elements. Throws ShapeError("fma", "C1") otherwise.
TensorType infer_fma(const TensorType& a, const TensorType& b, const TensorType& c);
/// True if `op` (no dialect prefix) is in the elementwise unary (arity 1), binary (arity 2) or
/// ternary (arity 3: fma) table.
bool is_elementwise(std::string_view op, int arity);
/// Names of the elementwise table, for coverage listings.
std::vector<std::string_view> elementwise_op_names(int arity);

/// compare (spec "compare"): (C1) same element type, (C2) same shape; (C3) comparison_type
/// consistent with the element type. Result: i1 with the operands' shape.
TensorType infer_compare(const TensorType& lhs, const TensorType& rhs,
                         std::optional<ComparisonType> type);
/// Default comparison_type for an element type (SIGNED, UNSIGNED, FLOAT).
ComparisonType default_comparison_type(DType t);
/// select (spec "select"): pred is i1 (C1: scalar or same shape as on_true), (C2) on_true and
/// on_false have the same type, which is the result type.
TensorType infer_select(const TensorType& pred, const TensorType& on_true,
                        const TensorType& on_false);
/// clamp (spec "clamp"): (C1) min/max scalar or shape(operand), (C2) same element types.
TensorType infer_clamp(const TensorType& min, const TensorType& operand, const TensorType& max);
/// convert (spec "convert"): same shape, element type `to`; any element type to any other
/// (complex to a non-complex type drops the imaginary part). Never throws.
TensorType infer_convert(const TensorType& operand, DType to);
/// iota (spec "iota"): (C1) 0 <= iota_dimension < rank(output).
TensorType infer_iota(const TensorType& output, int64_t iota_dimension);
/// broadcast_in_dim (spec "broadcast_in_dim"): (C2) size(broadcast_dimensions) = rank(operand),
/// (C3) 0 <= dims < rank(result), (C4) unique, (C5) dim(operand, d) is 1 or equal to
/// dim(result, broadcast_dimensions[d]).
TensorType infer_broadcast_in_dim(const TensorType& operand, const Dims& result_dims,
                                  std::span<const int64_t> broadcast_dimensions);
/// reshape (spec "reshape"): (C2) same number of elements.
TensorType infer_reshape(const TensorType& operand, const Dims& result_dims);
/// transpose (spec "transpose"): (C2) permutation is a permutation of range(rank(operand)).
TensorType infer_transpose(const TensorType& operand, std::span<const int64_t> permutation);
/// slice (spec "slice"): (C2) sizes equal rank, (C3) 0 <= start <= limit <= dim, (C4) strides > 0.
/// Result dims ceil((limit - start) / stride).
TensorType infer_slice(const TensorType& operand, std::span<const int64_t> start_indices,
                       std::span<const int64_t> limit_indices, std::span<const int64_t> strides);
/// concatenate (spec "concatenate"): (C1) same element type, (C2) same shape but `dimension`,
/// (C3) at least one input, (C4) 0 <= dimension < rank.
TensorType infer_concatenate(std::span<const TensorType> inputs, int64_t dimension);
/// dot_general (spec "dot_general"): (C1)/(C2) batching/contracting lists of equal size,
/// (C3)/(C4) unique per side, (C5)-(C8) in range, (C9) batch sizes equal, (C10) contracting sizes
/// equal, (C11) precision_config has 0 or 2 entries. Result dims: batch, lhs free, rhs free;
/// element type `preferred` or lhs's (lhs and rhs element types must match unless `preferred`).
TensorType infer_dot_general(const TensorType& lhs, const TensorType& rhs,
                             const DotDimensionNumbers& dims, size_t precision_config_size = 0,
                             std::optional<DType> preferred = std::nullopt);
/// reduce (spec "reduce"): (C1) inputs same shape, (C2) init i has inputs[i]'s element type and
/// rank 0, (C3) N inputs = N inits > 0, (C4) 0 <= dimensions < rank, (C5) unique. Results: inputs'
/// shape without `dimensions`. The body types (C6) are checked by check_region_results.
std::vector<TensorType> infer_reduce(std::span<const TensorType> inputs,
                                     std::span<const TensorType> init_values,
                                     std::span<const int64_t> dimensions);

/// gather (spec "gather"): checks (C1)-(C21) on the dimension numbers and slice_sizes; result
/// dims: start_indices' batch dims (index_vector_dim removed) interleaved with the offset dims
/// (slice_sizes without collapsed and operand batching dims) at positions `offset_dims` (C22).
TensorType infer_gather(const TensorType& operand, const TensorType& start_indices,
                        const GatherDimensionNumbers& dims, std::span<const int64_t> slice_sizes);
/// sort (spec "sort"): (C1) at least one input, (C3) all inputs of one shape, (C4)
/// -rank <= dimension < rank. Results: the input types (C2). Comparator types (C5) are checked
/// with check_region_results.
std::vector<TensorType> infer_sort(std::span<const TensorType> inputs, int64_t dimension);

/// bitcast_convert (spec "bitcast_convert"): (C1) equal bit widths keep the shape; a narrower
/// result adds a trailing dim of size width(operand)/width(to); a wider one drops the operand's
/// last dim, which must equal width(to)/width(operand). (C2) complex only to complex. No i1.
TensorType infer_bitcast_convert(const TensorType& operand, DType to);
/// reduce_precision (spec "reduce_precision"): float operand, (C2) exponent_bits >= 1,
/// (C3) mantissa_bits >= 0, each within si32 (the attributes' type). Result: operand type.
TensorType infer_reduce_precision(const TensorType& operand, int64_t exponent_bits,
                                  int64_t mantissa_bits);
/// dynamic_slice (spec "dynamic_slice"): (C2) one scalar integer start index per dim and
/// size(slice_sizes) = rank, (C3) all start indices of one type, (C4) 0 <= slice_sizes <= dims.
TensorType infer_dynamic_slice(const TensorType& operand, std::span<const TensorType> start_indices,
                               std::span<const int64_t> slice_sizes);
/// dynamic_update_slice (spec "dynamic_update_slice"): (C2) update has operand's element type,
/// (C3) same rank, (C4) one start index per dim, (C5) same start index types, (C6) update dims
/// <= operand dims. Result: operand type.
TensorType infer_dynamic_update_slice(const TensorType& operand, const TensorType& update,
                                      std::span<const TensorType> start_indices);
/// pad (spec "pad"): (C1) padding_value scalar of operand's element type, (C2) three lists of
/// rank entries, (C3) interior >= 0, (C4) result dim = low + d + high + (d - 1) * interior >= 0.
/// Negative low/high padding crops.
TensorType infer_pad(const TensorType& operand, const TensorType& padding_value,
                     std::span<const int64_t> low, std::span<const int64_t> high,
                     std::span<const int64_t> interior);
/// reverse (spec "reverse"): (C2) unique dimensions, (C3) in [0, rank). Result: operand type.
TensorType infer_reverse(const TensorType& operand, std::span<const int64_t> dimensions);
/// get_dimension_size (spec "get_dimension_size"): (C1) 0 <= dimension < rank. Result tensor<i32>.
TensorType infer_get_dimension_size(const TensorType& operand, int64_t dimension);
/// scatter (spec "scatter"): constraints (C1)-(C22) on inputs, indices, updates and dimension
/// numbers. Results: the inputs' types (C24, C25). Body types (C23) via check_region_results.
std::vector<TensorType> infer_scatter(std::span<const TensorType> inputs,
                                      const TensorType& scatter_indices,
                                      std::span<const TensorType> updates,
                                      const ScatterDimensionNumbers& dims);
/// Attributes of convolution besides the dimension numbers. Empty vectors mean the defaults
/// (strides/dilations 1, padding 0, no reversal).
struct ConvOptions {
  std::vector<int64_t> window_strides;
  /// (low, high) per spatial dimension.
  std::vector<std::pair<int64_t, int64_t>> padding;
  std::vector<int64_t> lhs_dilation, rhs_dilation;
  std::vector<bool> window_reversal;
  int64_t feature_group_count = 1, batch_group_count = 1;
  /// Empty, or two entries (lhs, rhs).
  std::vector<Precision> precision_config;
  /// Result element type; default the lhs's.
  std::optional<DType> preferred_element_type;
};
/// convolution (spec "convolution"): (C1)-(C24) on ranks, window attributes, dimension numbers
/// and group counts; result dims per (C25): batch / batch_group_count, kernel output features,
/// and per spatial dim the number of windows of the dilated, padded input.
TensorType infer_convolution(const TensorType& lhs, const TensorType& rhs,
                             const ConvDimensionNumbers& dims, const ConvOptions& options);
/// batch_norm_inference (spec): (C1) 0 <= feature_index < rank, (C2) same element types,
/// (C3)-(C6) scale/offset/mean/variance are 1-D of dim(operand, feature_index). Result: operand.
TensorType infer_batch_norm_inference(const TensorType& operand, const TensorType& scale,
                                      const TensorType& offset, const TensorType& mean,
                                      const TensorType& variance, int64_t feature_index);
/// batch_norm_training (spec): same checks for scale/offset; results (output, batch_mean,
/// batch_var).
std::vector<TensorType> infer_batch_norm_training(const TensorType& operand,
                                                  const TensorType& scale, const TensorType& offset,
                                                  int64_t feature_index);
/// batch_norm_grad (spec): checks as above, grad_output shaped like operand; results
/// (grad_operand, grad_scale, grad_offset).
std::vector<TensorType> infer_batch_norm_grad(const TensorType& operand, const TensorType& scale,
                                              const TensorType& mean, const TensorType& variance,
                                              const TensorType& grad_output, int64_t feature_index);
/// triangular_solve (spec): (C1) same element type, (C2) 2 <= rank(a) = rank(b), (C3) equal batch
/// dims, (C4) a square and matching b's dim -2 (left_side) or -1. Result: b's type.
TensorType infer_triangular_solve(const TensorType& a, const TensorType& b, bool left_side);
/// cholesky (spec): (C2) rank >= 2, (C3) square trailing dims; float/complex. Result: a's type.
TensorType infer_cholesky(const TensorType& a);
/// fft (spec "fft"): (C1) 1 <= size(fft_length) <= 3 and <= rank, (C2) element types by fft_type
/// (FFT/IFFT complex -> same, RFFT float -> complex, IRFFT complex -> float), (C3) trailing dims
/// match fft_length (RFFT result / IRFFT operand last dim is fft_length[-1] / 2 + 1).
TensorType infer_fft(const TensorType& operand, FftType type, std::span<const int64_t> fft_length);
/// rng (spec "rng"): (C1) a, b scalars of one element type, (C2) NORMAL needs float, UNIFORM
/// int/float. Result tensor<shape x E>.
TensorType infer_rng(const TensorType& a, const TensorType& b, const Dims& shape,
                     RngDistribution distribution);
/// rng_bit_generator (spec): (C2) state size 2 for THREE_FRY, 2 or 3 for PHILOX; ui64/ui32/i64
/// state; output integer or float. Results (output_state = initial_state type, output).
std::vector<TensorType> infer_rng_bit_generator(const TensorType& initial_state,
                                                RngAlgorithm algorithm, const TensorType& output);
/// reduce_window (spec "reduce_window"): (C1)-(C12) on counts, shapes, window attributes
/// (each list has rank entries, all positive; padding rank x 2), results per (C15) the number of
/// windows. Empty strides/dilations mean 1, empty padding 0.
std::vector<TensorType> infer_reduce_window(std::span<const TensorType> inputs,
                                            std::span<const TensorType> init_values,
                                            std::span<const int64_t> window_dimensions,
                                            std::span<const int64_t> window_strides,
                                            std::span<const int64_t> base_dilations,
                                            std::span<const int64_t> window_dilations,
                                            std::span<const std::pair<int64_t, int64_t>> padding);
/// select_and_scatter (spec): (C1) source has operand's element type, (C2) source shape is the
/// number of windows, (C3) init scalar of that type, (C4)-(C8) window attributes. Result: operand.
TensorType infer_select_and_scatter(const TensorType& operand, const TensorType& source,
                                    const TensorType& init_value,
                                    std::span<const int64_t> window_dimensions,
                                    std::span<const int64_t> window_strides,
                                    std::span<const std::pair<int64_t, int64_t>> padding);

// Collectives (spec "all_reduce", "all_gather", ...). The process-grid size (num_replicas,
// num_partitions) is not known when a program is built: the upper bounds of the (C) "0 <= ids <
// size" constraints are left to the compiler; the lower bound, uniqueness and the shapes are
// checked here.

/// all_reduce (spec "all_reduce"): (C1) unique ids, (C3) ids >= 0, (C4) use_global_device_ids
/// needs a channel handle > 0, (C5) operands of one element type. Results: the operand types
/// (C6, C7). The computation's type (C5) is checked with check_region_results.
std::vector<TensorType> infer_all_reduce(std::span<const TensorType> operands,
                                         const ReplicaGroups& replica_groups,
                                         const std::optional<ChannelHandle>& channel_handle,
                                         bool use_global_device_ids);
/// all_gather (spec "all_gather"): (C1) 0 <= all_gather_dim < rank, (C2) unique ids, (C4) ids
/// >= 0 (at least one group), (C5) use_global_device_ids needs a channel handle > 0. Results
/// (C6): the operand types with dim all_gather_dim multiplied by the group size.
std::vector<TensorType> infer_all_gather(std::span<const TensorType> operands,
                                         int64_t all_gather_dim,
                                         const ReplicaGroups& replica_groups,
                                         const std::optional<ChannelHandle>& channel_handle,
                                         bool use_global_device_ids);
/// reduce_scatter (spec "reduce_scatter"): (C1) dim scatter_dimension divisible by the group
/// size, (C2) 0 <= scatter_dimension < rank, (C3) unique ids, (C5) ids >= 0 (at least one
/// group), (C6) use_global_device_ids needs a channel handle > 0. Result (C8, C9): operand's type
/// with that dim divided by the group size. The computation (C7): check_region_results.
TensorType infer_reduce_scatter(const TensorType& operand, int64_t scatter_dimension,
                                const ReplicaGroups& replica_groups,
                                const std::optional<ChannelHandle>& channel_handle,
                                bool use_global_device_ids);
/// all_to_all (spec "all_to_all"): (C1) 0 <= split_dimension < rank, (C2) that dim divisible by
/// split_count, (C3) 0 <= concat_dimension < rank, (C4) split_count > 0, (C5) unique ids, (C7)
/// ids >= 0, (C8) group size = split_count. Results (C9): split dim / split_count, concat dim *
/// split_count.
std::vector<TensorType> infer_all_to_all(std::span<const TensorType> operands,
                                         int64_t split_dimension, int64_t concat_dimension,
                                         int64_t split_count, const ReplicaGroups& replica_groups);
/// collective_permute (spec "collective_permute"): (C1) pairs of two ids, (C2) unique sources,
/// (C3) unique targets, (C4) ids >= 0. Result (C5): operand's type.
TensorType infer_collective_permute(const TensorType& operand,
                                    const ReplicaGroups& source_target_pairs);
/// collective_broadcast (spec "collective_broadcast"): (C1) unique ids, (C2) ids >= 0. Result
/// (C3): operand's type.
TensorType infer_collective_broadcast(const TensorType& operand,
                                      const ReplicaGroups& replica_groups);

/// Checks that a region body returned exactly `expected` types; throws ShapeError(op, constraint)
/// naming both type lists otherwise.
void check_region_results(std::string_view op, std::string_view constraint,
                          std::span<const TensorType> returned,
                          std::span<const TensorType> expected);

/// "(tensor<2xf32>, tensor<f32>)" for messages.
std::string types_to_string(std::span<const TensorType> types);

}  // namespace hhlo
