// hhlo::np::stop_gradient: JAX's `lax.stop_gradient` (`jax.lax.stop_gradient`), the identity in
// value whose derivative is zero in both modes.
#pragma once

#include "hhlo/ops/tensor.h"

namespace hhlo::np {

/// `x` itself in value (same dims and dtype, any dtype), a constant to every transformation: its
/// VJP gives no cotangent to `x` and its JVP a zero tangent, as jax.lax.stop_gradient's; vmap
/// batches it elementwise. Built as one `stablehlo.composite "hhlo.stop_gradient"` around an
/// identity decomposition (a private function per operand type, shared by the module), which XLA
/// inlines; its rules are registered under "composite:hhlo.stop_gradient"
/// (src/autodiff/rules/control_flow.cc). Never throws for a Tensor of a function being built.
Tensor stop_gradient(Tensor x, Loc loc = Loc::current());

}  // namespace hhlo::np
