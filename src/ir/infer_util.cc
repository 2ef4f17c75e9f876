#include "infer_util.h"

#include <fmt/format.h>

#include <algorithm>

namespace hhlo {

std::string types_to_string(std::span<const TensorType> types) {
  std::string s = "(";
  for (size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + types[i].to_string();
  return s + ")";
}

void check_region_results(std::string_view op, std::string_view constraint,
                          std::span<const TensorType> returned,
                          std::span<const TensorType> expected) {
  bool ok = returned.size() == expected.size() &&
            std::equal(returned.begin(), returned.end(), expected.begin());
  if (!ok)
    detail::fail(op, constraint, "region body returns {}, expected {}", types_to_string(returned),
                 types_to_string(expected));
}

namespace detail {

std::string list(std::span<const int64_t> v) {
  return "[" + fmt::format("{}", fmt::join(v, ", ")) + "]";
}

bool dim_compatible(int64_t a, int64_t b) { return a == b || a == kDynamic || b == kDynamic; }

bool dims_compatible(const Dims& a, const Dims& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!dim_compatible(a[i], b[i])) return false;
  return true;
}

void check_unique(std::string_view op, std::string_view constraint, std::string_view what,
                  std::span<const int64_t> dims) {
  for (size_t i = 0; i < dims.size(); ++i)
    for (size_t j = i + 1; j < dims.size(); ++j)
      if (dims[i] == dims[j])
        fail(op, constraint, "{} {} repeats dimension {}", what, list(dims), dims[i]);
}

void check_in_range(std::string_view op, std::string_view constraint, std::string_view what,
                    std::span<const int64_t> dims, int64_t rank) {
  for (int64_t d : dims)
    if (d < 0 || d >= rank)
      fail(op, constraint, "{} {} has dimension {} outside [0, {})", what, list(dims), d, rank);
}

void check_batching_dims(std::string_view op, std::span<const std::string_view, 5> tags,
                         std::string_view operand, const Dims& operand_dims,
                         std::span<const int64_t> operand_batching, std::string_view indices,
                         const Dims& indices_dims, std::span<const int64_t> indices_batching,
                         int64_t index_vector_dim) {
  std::string indices_field = fmt::format("{}_batching_dims", indices);
  check_unique(op, tags[0], indices_field, indices_batching);
  check_in_range(op, tags[1], indices_field, indices_batching,
                 static_cast<int64_t>(indices_dims.size()));
  if (std::count(indices_batching.begin(), indices_batching.end(), index_vector_dim))
    fail(op, tags[2], "index_vector_dim {} is also a {} batching dim", index_vector_dim, indices);
  if (operand_batching.size() != indices_batching.size())
    fail(op, tags[3], "{}_batching_dims {} and {} {} differ in size", operand,
         list(operand_batching), indices_field, list(indices_batching));
  for (size_t i = 0; i < operand_batching.size(); ++i) {
    int64_t a = operand_dims[static_cast<size_t>(operand_batching[i])];
    int64_t b = indices_dims[static_cast<size_t>(indices_batching[i])];
    if (!dim_compatible(a, b))
      fail(op, tags[4], "{} batching dim {} has size {}, {} batching dim {} has size {}", operand,
           operand_batching[i], a, indices, indices_batching[i], b);
  }
}

}  // namespace detail
}  // namespace hhlo

namespace hhlo::detail {
int64_t num_windows(std::string_view op, std::string_view constraint, int64_t size, int64_t window,
                    int64_t stride, int64_t base_dilation, int64_t window_dilation, int64_t lo,
                    int64_t hi) {
  if (size == kDynamic) return kDynamic;
  int64_t dilated = 0, padded = 0, dwin = 0;
  bool overflow = false;
  if (size != 0) {
    overflow |= __builtin_mul_overflow(size - 1, base_dilation, &dilated);
    overflow |= __builtin_add_overflow(dilated, int64_t{1}, &dilated);
  }
  overflow |= __builtin_add_overflow(lo, dilated, &padded);
  overflow |= __builtin_add_overflow(padded, hi, &padded);
  if (window != 0) {
    overflow |= __builtin_mul_overflow(window - 1, window_dilation, &dwin);
    overflow |= __builtin_add_overflow(dwin, int64_t{1}, &dwin);
  }
  if (overflow)
    fail(op, constraint,
         "a window size overflows 64 bits (size {}, window {}, base dilation {}, window dilation "
         "{}, padding ({}, {}))",
         size, window, base_dilation, window_dilation, lo, hi);
  if (padded <= 0 || dwin > padded) return 0;
  return (padded - dwin) / stride + 1;
}
}  // namespace hhlo::detail
