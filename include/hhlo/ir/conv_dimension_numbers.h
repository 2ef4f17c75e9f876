// Convolution dimension numbers from layout strings, as `jax.lax.conv_dimension_numbers` and
// `lax.conv_general_dilated(..., dimension_numbers=("NCHW", "OIHW", "NCHW"))` read them.
#pragma once

#include <string_view>

#include "hhlo/ir/attribute.h"

namespace hhlo {

/// The `#stablehlo.conv` dimension numbers (spec "convolution") named by three layout strings of
/// equal length, one letter per dimension: `lhs` (input) and `out` hold 'N' (batch) and 'C'
/// (feature), `rhs` (kernel) 'O' (output feature) and 'I' (input feature); every other letter is
/// a spatial dimension, the same set in all three. Kernel spatial dimensions are taken in `rhs`'s
/// order and the input's and output's spatial dimensions are matched to them by letter, as JAX's
/// `conv_general_permutations` does: ("NHWC", "HWIO", "NHWC") and ("NCHW", "OIHW", "NCHW") are
/// the usual 2-D layouts, ("NCH", "OIH", "NCH") a 1-D one.
/// Throws hhlo::ShapeError("convolution", ...) naming the string when the lengths differ, a
/// string lacks one of its two letters or repeats a letter, or the spatial letters differ.
ConvDimensionNumbers conv_dimension_numbers(std::string_view lhs, std::string_view rhs,
                                            std::string_view out);

}  // namespace hhlo
