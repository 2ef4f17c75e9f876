// Shared helpers of the shape rules (internal to src/ir).
#pragma once

#include <fmt/format.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hhlo/core/error.h"
#include "hhlo/core/tensor_type.h"
#include "hhlo/ir/infer.h"

namespace hhlo::detail {

/// Throws ShapeError(op, constraint, fmt::format(...)).
template <typename... Args>
[[noreturn]] void fail(std::string_view op, std::string_view constraint,
                       fmt::format_string<Args...> f, Args&&... args) {
  throw ShapeError(std::string(op), std::string(constraint),
                   fmt::format(f, std::forward<Args>(args)...));
}

/// "[1, 2, 3]".
std::string list(std::span<const int64_t> v);
/// Sizes equal or either dynamic.
bool dim_compatible(int64_t a, int64_t b);
bool dims_compatible(const Dims& a, const Dims& b);
/// Throws (op, constraint) if some entry of `dims` repeats.
void check_unique(std::string_view op, std::string_view constraint, std::string_view what,
                  std::span<const int64_t> dims);
/// Throws (op, constraint) if some entry is outside [0, rank).
void check_in_range(std::string_view op, std::string_view constraint, std::string_view what,
                    std::span<const int64_t> dims, int64_t rank);

/// The batching-dims checks gather and scatter share (gather C13-C17, scatter C14-C18): the
/// indices' batching dims unique (tags[0]), in [0, rank(indices)) (tags[1]) and not
/// `index_vector_dim` (tags[2]); as many as the operand's (tags[3]); each pair of sizes compatible
/// (tags[4]). `operand` and `indices` name the two sides in messages ("operand" and
/// "start_indices" for gather, "input" and "scatter_indices" for scatter, whose fields are
/// `<name>_batching_dims`).
void check_batching_dims(std::string_view op, std::span<const std::string_view, 5> tags,
                         std::string_view operand, const Dims& operand_dims,
                         std::span<const int64_t> operand_batching, std::string_view indices,
                         const Dims& indices_dims, std::span<const int64_t> indices_batching,
                         int64_t index_vector_dim);

/// The spec constraint an elementwise op's result type must satisfy, for a recorded result type
/// that differs from the inferred one: abs/real/imag "C1" (shape) or "C2" (element type),
/// complex "C2" or "C3", is_finite "C1" (shape) or "Results" (i1), every other op "C1".
std::string_view elementwise_result_constraint(std::string_view op, bool shape_differs);

}  // namespace hhlo::detail

namespace hhlo::detail {
/// Number of windows along one dimension (spec reduce_window C15 / convolution C25):
/// dilated = (size - 1) * base_dilation + 1 (0 if size is 0), padded = lo + dilated + hi,
/// dilated window = (window - 1) * window_dilation + 1; 0 when the window does not fit.
/// Throws ShapeError(op, constraint) when one of those sizes overflows 64 bits.
int64_t num_windows(std::string_view op, std::string_view constraint, int64_t size, int64_t window,
                    int64_t stride, int64_t base_dilation, int64_t window_dilation, int64_t lo,
                    int64_t hi);
}  // namespace hhlo::detail
