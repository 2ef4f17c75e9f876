// MLIR text of a Module in the generic op form both pinned CPU plugins parse (StableHLO 1.13, the
// runner-up's, to 1.20, the default's).
#pragma once

#include <string>

#include "hhlo/ir/module.h"

namespace hhlo {

/// Printer options.
struct PrintOptions {
  /// Emit `loc("file":line:col)` after each op (the builder's call site).
  bool locations = true;
};

/// The module as MLIR text: `module { func.func @main(...) -> ... { ... } }`, each op in generic
/// form `%0 = "stablehlo.add"(%arg0, %arg1) : (tensor<..>, tensor<..>) -> tensor<..>`, attributes
/// sorted by name, floats exact (NaN/Inf and non-splat dense literals as hex). Deterministic.
/// Throws hhlo::Error when a function has not returned (no `ret` call).
std::string to_mlir(const Module& module, const PrintOptions& options = {});

}  // namespace hhlo
