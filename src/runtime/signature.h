// Private: reads the parameter types of `@main` from StableHLO MLIR text, so that execute() can
// check its arguments before calling into the plugin.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "hhlo/core/tensor_type.h"

namespace hhlo::detail {

/// Types of @main's parameters, or nullopt when the text is bytecode, has no @main, or a
/// parameter type is not a ranked tensor of a supported dtype.
std::optional<std::vector<TensorType>> parse_main_inputs(std::string_view mlir);

}  // namespace hhlo::detail
