// Tensor types: an element type plus dimension sizes (StableHLO spec "Types": TensorType).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hhlo/core/dtype.h"

namespace hhlo {

/// Dimension sizes, outermost first. A size of kDynamic is printed as `?`.
using Dims = std::vector<int64_t>;

/// Marks a dynamic dimension (MLIR `?`).
inline constexpr int64_t kDynamic = -1;

/// Product of the dimension sizes (1 for a scalar). Throws hhlo::Error on a dynamic dimension or
/// when the product overflows int64.
int64_t num_elements(const Dims& dims);
/// "2x3" (empty for a scalar; `?` for dynamic sizes).
std::string dims_to_string(const Dims& dims);

/// A ranked tensor type: `tensor<2x3xf32>`. Value type, cheap to copy.
struct TensorType {
  DType dtype = DType::f32;
  Dims dims;

  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  /// True when no dimension is kDynamic.
  bool is_static() const;
  /// Number of elements; throws hhlo::Error when a dimension is dynamic or the count overflows.
  int64_t num_elements() const { return hhlo::num_elements(dims); }
  /// Bytes of a dense row-major buffer of this type. Throws hhlo::Error when a dimension is dynamic
  /// or the size overflows int64.
  int64_t byte_size() const;
  /// MLIR syntax: "tensor<2x3xf32>", "tensor<f32>", "tensor<?x4xi1>".
  std::string to_string() const;
  bool operator==(const TensorType&) const = default;
};

/// Parses MLIR tensor type text such as "tensor<2x3xf32>" or "tensor<complex<f64>>".
/// Throws hhlo::Error naming the text when it is not a ranked tensor type of a supported dtype.
TensorType parse_tensor_type(const std::string& text);

}  // namespace hhlo
