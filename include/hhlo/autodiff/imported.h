// Gradients of imported programs (docs/autodiff.md "Gradients of imported programs"): the
// reverse- and forward-mode transforms of hhlo/autodiff/autodiff.h applied to a function of a
// parsed module (a `jax.export`, a `jax.jit(f).lower()` text, any StableHLO file), giving a new
// module that computes its value and derivatives and compiles like any other.
//
//   Module loss = parse_module_file("mlp_loss.mlir");           // loss(w1, b1, w2, b2, x, y)
//   Module g = ad::value_and_grad_module(loss, {.wrt = {0, 1, 2, 3}});
//   // @main(w1, b1, w2, b2, x, y) -> (loss, dloss/dw1, dloss/db1, dloss/dw2, dloss/db2)
//
// The entry function is inlined into the new one (inline_call, hhlo/ir/inline.h: every
// `func.call` of JAX's private functions too), opaque attributes travel along, and the VJP / JVP
// rules run on the imported ops. An op with no rule is an error naming it and its line in the
// parsed text.
#pragma once

#include <string>
#include <vector>

#include "hhlo/ir/module.h"

namespace hhlo::ad {

/// Which function of an imported module to transform, with respect to what.
struct ImportedOptions {
  /// The function to differentiate (public or private).
  std::string entry = "main";
  /// Indices of the arguments to differentiate with respect to; empty: every float argument.
  std::vector<size_t> wrt;
  /// value_and_grad_module: index of the result that is the scalar loss.
  size_t loss = 0;
  /// Name of the function of the new module (its only function, public).
  std::string name = "main";
};

/// JAX's `jax.value_and_grad(f, argnums=wrt, has_aux=...)` of the imported function `entry` of
/// `source`: a new module whose public function `name` takes `entry`'s arguments (same types and
/// argument attributes, `tf.aliasing_output` / `jax.buffer_donor` dropped) and returns every
/// result of `entry`, in order and with their attributes (a JAX loss has just one), followed by
/// the gradient of result `loss` with respect to each argument in `wrt` (same types as the
/// arguments; named by `jax.result_info = "grad[i]"` for argument i). Module attributes
/// (`mhlo.num_partitions`, ...) and the module name are copied.
/// Throws hhlo::Error when `entry` is not a function of `source`, a `wrt` index is out of range
/// or names an integer or pred argument, result `loss` does not exist or is not a float scalar,
/// and what inline_call and ad::grad throw (e.g. "vjp: no VJP rule for op 'stablehlo.x' (at line
/// N of the parsed text (loc(...)))", naming a custom call's target too).
Module value_and_grad_module(const Module& source, const ImportedOptions& options = {});

/// JAX's `jax.vjp` of the imported function `entry` as a function: a new module whose function
/// `name` takes `entry`'s arguments followed by one cotangent per result (same types; float
/// results only carry cotangents, integer ones take a cotangent argument that is ignored) and
/// returns `entry`'s results followed by the cotangents of the arguments in `wrt`.
/// Throws what value_and_grad_module throws (except the scalar-loss check).
Module vjp_module(const Module& source, const ImportedOptions& options = {});

/// JAX's `jax.jvp` of the imported function `entry` as a function: a new module whose function
/// `name` takes `entry`'s arguments followed by one tangent per argument in `wrt` (same types)
/// and returns `entry`'s results followed by their tangents (zeros for integer results).
/// Throws what inline_call and ad::jvp throw ("jvp: no JVP rule for op ...").
Module jvp_module(const Module& source, const ImportedOptions& options = {});

}  // namespace hhlo::ad
