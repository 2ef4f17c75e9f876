// conv_dimension_numbers (hhlo/ir/conv_dimension_numbers.h): JAX's conv_general_permutations.
#include "hhlo/ir/conv_dimension_numbers.h"

#include <fmt/format.h>

#include <algorithm>

#include "hhlo/core/error.h"

namespace hhlo {
namespace {

struct Perm {
  int64_t first = 0, second = 0;  // N and C, or O and I
  std::vector<int64_t> spatial;
};

[[noreturn]] void bad(std::string_view what, std::string_view lhs, std::string_view rhs,
                      std::string_view out) {
  throw ShapeError(
      "convolution", "",
      fmt::format("dimension numbers (\"{}\", \"{}\", \"{}\"): {}", lhs, rhs, out, what));
}

/// Positions of `a`, `b` and the spatial letters of `spec`; the spatial ones in `order`'s order.
Perm perm(std::string_view spec, char a, char b, std::string_view order, std::string_view lhs,
          std::string_view rhs, std::string_view out) {
  for (size_t i = 0; i < spec.size(); ++i)
    if (spec.find(spec[i], i + 1) != std::string_view::npos)
      bad(fmt::format("'{}' repeats '{}'", spec, spec[i]), lhs, rhs, out);
  size_t ia = spec.find(a), ib = spec.find(b);
  if (ia == std::string_view::npos || ib == std::string_view::npos)
    bad(fmt::format("'{}' must hold '{}' and '{}'", spec, a, b), lhs, rhs, out);
  Perm p{static_cast<int64_t>(ia), static_cast<int64_t>(ib), {}};
  for (char c : order) {
    if (c == 'O' || c == 'I') continue;
    size_t at = spec.find(c);
    if (at == std::string_view::npos || c == a || c == b)
      bad(fmt::format("spatial dimension '{}' of '{}' is not in '{}'", c, rhs, spec), lhs, rhs,
          out);
    p.spatial.push_back(static_cast<int64_t>(at));
  }
  return p;
}

}  // namespace

ConvDimensionNumbers conv_dimension_numbers(std::string_view lhs, std::string_view rhs,
                                            std::string_view out) {
  if (lhs.size() != rhs.size() || rhs.size() != out.size())
    bad("the three strings must have the same length (one letter per dimension)", lhs, rhs, out);
  Perm k = perm(rhs, 'O', 'I', rhs, lhs, rhs, out);
  Perm i = perm(lhs, 'N', 'C', rhs, lhs, rhs, out);
  Perm o = perm(out, 'N', 'C', rhs, lhs, rhs, out);
  return {.input_batch_dimension = i.first,
          .input_feature_dimension = i.second,
          .input_spatial_dimensions = i.spatial,
          .kernel_input_feature_dimension = k.second,
          .kernel_output_feature_dimension = k.first,
          .kernel_spatial_dimensions = k.spatial,
          .output_batch_dimension = o.first,
          .output_feature_dimension = o.second,
          .output_spatial_dimensions = o.spatial};
}

}  // namespace hhlo
