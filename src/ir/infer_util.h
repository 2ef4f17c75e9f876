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

}  // namespace hhlo::detail
