// Reverse- and forward-mode automatic differentiation over the IR (DESIGN.md "autodiff"; after
// JAX's ad.py and tinygrad's gradient.py). Gradients are ordinary IR: `vjp` walks the ops between
// the inputs and the outputs of a function under construction in reverse order and appends, to the
// same function, the ops each VJP rule builds with the regular op builders (so backward programs
// are shape-checked like any other). Rules live in a registry keyed by op name (vjp_registry.h).
// Forward mode (`jvp`, after JAX's jvp) walks the same ops in order and appends what each JVP rule
// (jvp_registry.h) builds; `jacfwd`, `jacrev`, `hessian` and `hvp` (forward-over-reverse) are
// built from the two.
//
//   Func& f = m.add_func("main", {...});
//   Value loss = ...;                                 // scalar built from f's arguments
//   std::vector<Value> g = ad::grad(loss, {f.arg(0), f.arg(1)});
#pragma once

#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hhlo/autodiff/params.h"
#include "hhlo/ir/module.h"

namespace hhlo::ad {

/// A cotangent that may be a symbolic zero (std::nullopt): rules skip work for it.
using Cotangent = std::optional<Value>;
/// A tangent that may be a symbolic zero (std::nullopt): rules skip work for it.
using Tangent = std::optional<Value>;

/// The values a derivative is taken with respect to, in `vjp(outputs, Wrt{...}, Cotangents{...})`
/// and `jvp(outputs, Wrt{...}, Tangents{...})`. The three lists of those calls are three types
/// with explicit constructors, so a call that swaps two of them does not compile (the core vjp's
/// order changed once, and with braced lists of values both orders compiled and silently swapped
/// the roles: CHANGELOG.md). Write `ad::Wrt{x, y}` or `ad::Wrt{values}`.
struct Wrt {
  explicit Wrt(std::vector<Value> v) : values(std::move(v)) {}
  explicit Wrt(std::initializer_list<Value> v) : values(v) {}
  std::vector<Value> values;
};

/// The seeds of `vjp`: one cotangent per output, in the outputs' order (std::nullopt for a zero).
/// Write `ad::Cotangents{ct}`, `ad::Cotangents{ct0, std::nullopt}` or `ad::Cotangents{values}`.
struct Cotangents {
  explicit Cotangents(std::vector<Cotangent> v) : values(std::move(v)) {}
  /// Every cotangent given (none is a symbolic zero).
  explicit Cotangents(const std::vector<Value>& v) : values(v.begin(), v.end()) {}
  explicit Cotangents(std::initializer_list<Cotangent> v) : values(v) {}
  std::vector<Cotangent> values;
};

/// The seeds of `jvp`: one tangent per `wrt` value, in its order (std::nullopt for a zero).
/// Write `ad::Tangents{t}`, `ad::Tangents{t0, std::nullopt}` or `ad::Tangents{values}`.
struct Tangents {
  explicit Tangents(std::vector<Tangent> v) : values(std::move(v)) {}
  /// Every tangent given (none is a symbolic zero).
  explicit Tangents(const std::vector<Value>& v) : values(v.begin(), v.end()) {}
  explicit Tangents(std::initializer_list<Tangent> v) : values(v) {}
  std::vector<Tangent> values;
};

/// Vector-Jacobian product: cotangents of `wrt` given cotangents of `outputs`, as
/// `ad::vjp(outputs, ad::Wrt{x}, ad::Cotangents{ct})`. The arguments come in the order of
/// `jvp(outputs, Wrt, Tangents)` and of JAX's `vjp(f, *primals)(cotangents)`: what is
/// differentiated, with respect to what, then the seeds; `Wrt` and `Cotangents` are distinct
/// types, so a swapped call does not compile.
/// - `outputs` and `wrt` are values of the same function, visible from its insertion block;
///   `cotangents.values[i]` (same type as outputs[i], or nullopt for zero) seeds outputs[i].
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
std::vector<Value> vjp(const std::vector<Value>& outputs, const Wrt& wrt,
                       const Cotangents& cotangents);

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

/// A scalar function of its arguments (for `grad`, `value_and_grad`, `hvp` and `hessian`), built
/// in the function the arguments belong to (the C++ code that builds the computation, re-run by
/// each transform). It may read values of that function it does not receive (closures).
using ScalarFn = std::function<Value(const std::vector<Value>&)>;

/// JAX's `jax.grad(f, argnums=argnum)(*primals)`: calls `f(primals)` at the insertion point and
/// returns the gradient of its scalar float result with respect to primals[argnum] (same type).
/// Throws hhlo::Error when `argnum` is out of range ("grad: argnum 3 out of range (2 primals)"),
/// primals[argnum] is not float or complex, and what `grad(Value, ...)` throws.
Value grad(const ScalarFn& f, const std::vector<Value>& primals, size_t argnum = 0);

/// JAX's `jax.grad(f, argnums=(a, b, ...))(*primals)`: one gradient per entry of `argnums`, in
/// the order given (argnums (2, 0) gives d/dx2 first), each of its primal's type; `f` is traced
/// once. Throws hhlo::Error for an empty `argnums`, an index out of range or repeated, and what
/// the single-argnum form throws.
std::vector<Value> grad(const ScalarFn& f, const std::vector<Value>& primals,
                        const std::vector<size_t>& argnums);

/// JAX's `jax.value_and_grad(f, argnums=argnum)(*primals)`: (f's scalar result, its gradient with
/// respect to primals[argnum]). Throws what `grad(const ScalarFn&, ...)` throws.
std::pair<Value, Value> value_and_grad(const ScalarFn& f, const std::vector<Value>& primals,
                                       size_t argnum = 0);

/// JAX's `jax.value_and_grad(f, argnums=(a, b, ...))(*primals)`: (f's scalar result, one gradient
/// per entry of `argnums`, in the order given). Throws what `grad` with argnums throws.
std::pair<Value, std::vector<Value>> value_and_grad(const ScalarFn& f,
                                                    const std::vector<Value>& primals,
                                                    const std::vector<size_t>& argnums);

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

/// A function under transformation: builds its results from its arguments in the function the
/// arguments belong to (the C++ code that builds the computation, re-run by each transform).
using TraceFn = std::function<std::vector<Value>(const std::vector<Value>&)>;

/// Jacobian-vector product (forward mode): tangents of `outputs` given tangents of `wrt`, as
/// `ad::jvp(outputs, ad::Wrt{x}, ad::Tangents{t})` (distinct types: a swapped call does not
/// compile).
/// - `outputs` and `wrt` are values of the same function visible from its insertion block;
///   `tangents.values[i]` (same type as wrt[i], or nullopt for zero) seeds wrt[i].
/// - Walks the ops of the insertion block that lie between `wrt` and `outputs` in order and
///   appends what each op's JVP rule builds. Returns one tangent per output, of its type (zeros
///   when an output does not depend on `wrt`, also for integer and pred outputs).
/// - Complex values: the JVP of a holomorphic op is `t * f'(z)` (JAX's convention); real(z),
///   imag(z), complex(x, y), abs(z) are R-linear / real-differentiable as in JAX.
/// Throws hhlo::Error when sizes differ, a tangent's type differs from its value's, a `wrt` value
/// is not floating point or complex, an op on the path has no JVP rule ("jvp: no JVP rule for op
/// 'stablehlo.x' (at file:line)"; a custom call without one names its target), or a rule cannot
/// handle its configuration ("JVP of 'stablehlo.x' at file:line: ...").
std::vector<Value> jvp(const std::vector<Value>& outputs, const Wrt& wrt, const Tangents& tangents);

/// JAX's `jax.jvp(f, primals, tangents)`: calls `f(primals)` at the insertion point and returns
/// (its results, their tangents) for `tangents` (one per primal, same types). `primals` must be
/// non-empty float or complex values of one function. Throws what `jvp` above throws.
std::pair<std::vector<Value>, std::vector<Value>> jvp(const TraceFn& f,
                                                      const std::vector<Value>& primals,
                                                      const std::vector<Value>& tangents);

/// The pullback `vjp(f, primals)` returns: one cotangent per primal (zeros where none reaches
/// it) for one cotangent per result of `f` (nullopt for zero), appended where it is called.
using Pullback = std::function<std::vector<Value>(const std::vector<Cotangent>&)>;

/// JAX's `jax.vjp(f, *primals)`: calls `f(primals)` at the insertion point and returns (its
/// results, the pullback), which runs `vjp(results, Wrt{primals}, Cotangents{cotangents})` when
/// called (in the same function, while it is being built). `primals` must be non-empty float or
/// complex values of one function. Throws hhlo::Error for no primals, an integer primal or primals
/// of different functions; the pullback throws what `vjp` above throws.
std::pair<std::vector<Value>, Pullback> vjp(const TraceFn& f, const std::vector<Value>& primals);

/// JAX's `jax.jacfwd(f, argnums=argnum)(*primals)`: one Jacobian per result y of `f`, of dims
/// y.dims ++ primals[argnum].dims and y's dtype, from one JVP per element of primals[argnum] (a
/// one-hot tangent each; the tangent program is emitted once per element). Throws hhlo::Error
/// for a bad `argnum`, a non-float primals[argnum] (complex: use jvp), and what `jvp` throws.
std::vector<Value> jacfwd(const TraceFn& f, const std::vector<Value>& primals, size_t argnum = 0);

/// JAX's `jax.jacrev(f, argnums=argnum)(*primals)`: as `jacfwd`, from one VJP per element of each
/// result (results must be float). Throws what `jacfwd` and `vjp` throw.
std::vector<Value> jacrev(const TraceFn& f, const std::vector<Value>& primals, size_t argnum = 0);

/// JAX's `jax.jacfwd(f, argnums=(a, b, ...))(*primals)`: for each result y of `f` (outer index),
/// one Jacobian per entry of `argnums` (inner index, in the order given), each as the
/// single-argnum form gives it (dims y.dims ++ primals[a].dims); `f` is traced once per argnum.
/// Throws hhlo::Error for an empty `argnums` or an index out of range or repeated, and what the
/// single-argnum form throws.
std::vector<std::vector<Value>> jacfwd(const TraceFn& f, const std::vector<Value>& primals,
                                       const std::vector<size_t>& argnums);

/// JAX's `jax.jacrev(f, argnums=(a, b, ...))(*primals)`: as the jacfwd above (result outer,
/// argnum inner), one VJP per result element giving every argnum's row at once. Throws as jacfwd
/// and the single-argnum jacrev.
std::vector<std::vector<Value>> jacrev(const TraceFn& f, const std::vector<Value>& primals,
                                       const std::vector<size_t>& argnums);

/// Hessian-vector product by forward-over-reverse (JAX's `jvp(grad(f), primals, tangents)`):
/// returns H v, one value per primal (same types), for the scalar float `f` and the direction
/// `tangents` (one per primal). Needs a JVP rule for every op `f` uses and every op their VJP
/// rules emit. Throws what `grad` and `jvp` throw.
std::vector<Value> hvp(const ScalarFn& f, const std::vector<Value>& primals,
                       const std::vector<Value>& tangents);

/// JAX's `jax.hessian(f, argnums=argnum)(*primals)` (= jacfwd(grad(f))): the Hessian of the scalar
/// float `f` with respect to primals[argnum], of dims x.dims ++ x.dims. Throws what `jacfwd` and
/// `grad` throw.
Value hessian(const ScalarFn& f, const std::vector<Value>& primals, size_t argnum = 0);

/// JAX's `jax.hessian(f, argnums=(a, b, ...))(*primals)`: the blocks H[i][k] = d2 f / dx_i dx_k
/// for x_i = primals[argnums[i]], x_k = primals[argnums[k]], of dims x_i.dims ++ x_k.dims (the
/// cross blocks included; H[i][k] is H[k][i] transposed). Throws as jacfwd with argnums and grad.
std::vector<std::vector<Value>> hessian(const ScalarFn& f, const std::vector<Value>& primals,
                                        const std::vector<size_t>& argnums);

}  // namespace hhlo::ad
