#include "infer_util.h"

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
