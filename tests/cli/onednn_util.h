// Helpers of the oneDNN kernel tests (onednn_cli_test.cc, onednn_matmul_cli_test.cc): operands
// of known values and their comparison with XLA's own results.
#pragma once

#include <cstdint>
#include <string>

#include "hhlo/core/array.h"

namespace hhlo::test {

/// `tensor<AxBx...xDTYPE>` of dims `d`.
std::string tensor_text(const Dims& d, const char* dtype = "f32");

/// An f32 array of dims `d` with deterministic values in [-1, 1) from `seed` (an LCG).
Array uniform_values(const Dims& d, uint32_t seed);

/// The largest |a - b| over two f32 arrays of the same size, and the largest |a| (its scale).
struct F32Difference {
  double worst = 0, scale = 0;
};
F32Difference f32_difference(const Array& a, const Array& b);

}  // namespace hhlo::test
