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

/// Elementwise unary ops (spec: abs, cbrt, ceil, ..., tanh). `op` is the StableHLO name without
/// dialect ("abs"). Result: same shape; element type same as operand, except abs/real/imag of a
/// complex (its part type) and is_finite (i1). Throws ShapeError("", op) for an unknown op and
/// for an element type the op does not accept (constraint "C1": type(result) relation).
TensorType infer_unary(std::string_view op, const TensorType& operand);
/// Elementwise binary ops (add ... shift_right_logical, complex). Shapes must be equal (C1);
/// element types equal (C1) and accepted by the op. `complex` maps f32/f64 to c64/c128.
TensorType infer_binary(std::string_view op, const TensorType& lhs, const TensorType& rhs);
/// True if `op` (no dialect prefix) is in the elementwise unary (arity 1) or binary (arity 2) table.
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
/// convert (spec "convert"): same shape, element type `to`. (C1) complex to non-complex rejected.
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

/// Checks that a region body returned exactly `expected` types; throws ShapeError(op, constraint)
/// naming both type lists otherwise.
void check_region_results(std::string_view op, std::string_view constraint,
                          std::span<const TensorType> returned,
                          std::span<const TensorType> expected);

/// "(tensor<2xf32>, tensor<f32>)" for messages.
std::string types_to_string(std::span<const TensorType> types);

}  // namespace hhlo
