// Reverse-mode automatic differentiation over the IR (DESIGN.md "autodiff"; after JAX's ad.py and
// tinygrad's gradient.py). Gradients are ordinary IR: `vjp` walks the ops between the inputs and
// the outputs of a function under construction in reverse order and appends, to the same
// function, the ops each VJP rule builds with the regular op builders (so backward programs are
// shape-checked like any other). Rules live in a registry keyed by op name (vjp_registry.h).
//
//   Func& f = m.add_func("main", {...});
//   Value loss = ...;                                 // scalar built from f's arguments
//   std::vector<Value> g = ad::grad(loss, {f.arg(0), f.arg(1)});
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hhlo/autodiff/params.h"
#include "hhlo/ir/module.h"

namespace hhlo::ad {

/// A cotangent that may be a symbolic zero (std::nullopt): rules skip work for it.
using Cotangent = std::optional<Value>;

/// Vector-Jacobian product: cotangents of `wrt` given cotangents of `outputs`.
/// - `outputs` and `wrt` are values of the same function, visible from its insertion block;
///   `cotangents[i]` (same type as outputs[i], or nullopt for zero) seeds outputs[i].
/// - Returns one value per `wrt` entry, of the same type (zeros when an output does not depend on
///   it). Backward ops are appended to the function's insertion block.
/// - Complex values (c64/c128 `wrt`, outputs or intermediates) carry cotangents under JAX's
///   convention: the VJP of a holomorphic op is `ct * f'(z)` (the transpose of the JVP, without
///   conjugation), and the cotangent of a complex input z = x + iy of a real-valued function L is
///   dL/dx - i dL/dy (what `jax.grad` returns).
/// Throws hhlo::Error when sizes differ, a cotangent's type differs from its output's, a `wrt`
/// value is not floating point or complex ("cannot differentiate with respect to an integer
/// tensor"), an op on the path has no VJP rule ("no VJP rule for op 'stablehlo.x'", with its
/// source location) or has one for real operands only and meets a complex one ("VJP of
/// 'stablehlo.x' at file:line: no VJP rule for complex operands"), or a rule returns the wrong
/// number or types of cotangents.
std::vector<Value> vjp(const std::vector<Value>& outputs, const std::vector<Cotangent>& cotangents,
                       const std::vector<Value>& wrt);

/// Gradient of a scalar `loss` (rank 0, float) with respect to each `wrt` value (seed 1).
/// Throws hhlo::Error when `loss` is not a floating-point scalar ("grad requires a scalar loss"),
/// and everything `vjp` throws.
std::vector<Value> grad(Value loss, const std::vector<Value>& wrt);

/// Gradient of `loss` with respect to the parameters named in `wrt` (all of `params` when empty).
/// A `wrt` entry names a parameter or a prefix of nested names ("dense1" selects "dense1/w" and
/// "dense1/b"). Returns the gradients under the same names.
/// Throws hhlo::Error when a `wrt` entry names no parameter (listing the known names), a selected
/// parameter is an integer or pred tensor (naming it), and everything `grad` throws.
Params grad(Value loss, const Params& params, const std::vector<std::string>& wrt = {});

/// A scalar function of named parameters, built in the function the parameters belong to.
using LossFn = std::function<Value(const Params&)>;

/// Calls `f(params)` and returns (its value, its gradient w.r.t. `params` selected by `wrt`).
/// Throws what `f` and `grad(Value, const Params&, ...)` throw.
std::pair<Value, Params> value_and_grad(const LossFn& f, const Params& params,
                                        const std::vector<std::string>& wrt = {});

/// Builds a new public function `name` in `module` taking `f`'s arguments followed by one
/// cotangent per result of `f`, and returning `f`'s results followed by the cotangents of the
/// arguments listed in `wrt` (argument indices; all float arguments when empty). `f` is
/// re-traced by `body`, which must build `f`'s computation from the given arguments (the same
/// C++ code that built `f`); this is how `vjp` applies to whole functions.
/// Throws hhlo::Error on a bad index or a `body` whose results differ from the declared ones.
Func& vjp_func(Module& module, std::string name, const std::vector<TensorType>& arg_types,
               const std::function<std::vector<Value>(const std::vector<Value>&)>& body,
               std::vector<size_t> wrt = {});

/// Builds a new public function `name` in `module` taking `arg_types` and returning the scalar
/// `body(args)` followed by its gradient with respect to the arguments listed in `wrt` (all float
/// arguments when empty): JAX's `value_and_grad(f, argnums)` as a function of the module.
/// Throws hhlo::Error when body's result is not one float scalar, and what grad throws.
Func& value_and_grad_func(Module& module, std::string name,
                          const std::vector<TensorType>& arg_types,
                          const std::function<Value(const std::vector<Value>&)>& body,
                          std::vector<size_t> wrt = {});

}  // namespace hhlo::ad
