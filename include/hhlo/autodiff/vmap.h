// Batching (JAX's vmap over our IR): a per-example function, written once, applied to a batch.
// `vmap` traces the per-example function `f` into a scratch function (per-example argument types),
// then walks its ops in order and emits, into the function the batched arguments belong to, what
// each op's batching rule builds (after jax/_src/interpreters/batching.py and the `_batch_rule`s
// of jax/_src/lax/*.py). Inside the walk a batched value always carries the vmapped axis at
// dimension 0; unbatched operands are broadcast only where an op needs it. Rules live in a
// registry keyed by op name, like the VJP and JVP rules (src/autodiff/batching/<family>.cc).
//
//   Func& g = m.add_func("main", {TensorType(DType::f32, {8, 3})});   // a batch of 8 vectors
//   std::vector<Value> ys = ad::vmap(
//       [](const std::vector<Value>& x) { return std::vector<Value>{np::sum(x[0] * x[0])}; },
//       {g.arg(0)}, {0});                                                // ys[0]: tensor<8xf32>
//
// Composition: the batched program is ordinary IR, so `grad`/`jvp` of a vmapped function work
// when every op the batching rules emit has VJP/JVP rules; `vmap` of `grad(f)` (per-example
// gradients) traces the gradient program first and batches it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/ir/module.h"

namespace hhlo::ad {

/// The vmapped axis of one argument or result (JAX's in_axes / out_axes entry); std::nullopt is
/// JAX's `None`: the argument is shared by every example (not batched), or the result is the same
/// for every example (an error when it is batched). Negative axes count from the end.
using Axis = std::optional<int64_t>;

/// A value during batching: when `batched`, dimension 0 of `value` is the vmapped axis (of the
/// axis size of the walk) and the rest is the per-example shape; otherwise `value` has the
/// per-example type and is the same for every example.
struct Batched {
  Value value;
  bool batched = false;
};

/// A batching rule: receives the per-example op (its operands and results have per-example types;
/// its regions are per-example) and one Batched per operand (never all unbatched: the walk
/// re-emits such ops unchanged), and returns one Batched per result, of type
/// [axis_size] ++ result type when batched, of the result type otherwise. Rules build with the op
/// builders at the insertion point of the batched function.
using BatchRule = std::function<std::vector<Batched>(const Op& op, const std::vector<Batched>& xs,
                                                     int64_t axis_size)>;

/// Registers (or replaces) the batching rule for `op_name` ("stablehlo.add").
void register_batching(std::string op_name, BatchRule rule);
/// The batching rule for `op_name`, or nullptr.
const BatchRule* find_batching(std::string_view op_name);
/// Names of every registered batching rule, sorted (custom-call rules as "custom_call:<target>").
std::vector<std::string> registered_batchings();
/// Registers the batching rule of `stablehlo.custom_call` ops whose call_target_name is `target`.
/// A custom call with a batched operand and no rule is an error naming its target.
void register_custom_batching(std::string target, BatchRule rule);

/// `b.value` with the vmapped axis materialized: itself when batched, else broadcast to
/// [axis_size] ++ its dims (stablehlo.broadcast_in_dim).
Value materialize(const Batched& b, int64_t axis_size);

/// JAX's `jax.vmap(fn, in_axes, out_axes)(*args)` over a built per-example function `fn`.
/// - `args` are values of one function (the batched one, where the ops go), one per argument of
///   `fn`; `in_axes[i]` is the axis of args[i] that is vmapped (nullopt: args[i] has fn's i-th
///   argument type and is shared). Empty `in_axes` means 0 for every argument.
/// - Returns one value per result of `fn`, with the vmapped axis at `out_axes[j]` (empty: 0 for
///   every result; unbatched results are broadcast), or, for a nullopt entry, fn's result type.
/// - `callees`: the module holding the functions `fn` calls with `func.call` (they are inlined);
///   nullptr when `fn` makes no calls.
/// Throws hhlo::Error when counts differ, no argument is batched ("vmap needs at least one
/// batched argument"), the batched axes have different sizes (naming both), an axis is out of
/// range, a per-example type differs from fn's argument type, an op has no batching rule ("vmap:
/// no batching rule for op 'stablehlo.x'", a custom call naming its target), a rule cannot handle
/// its configuration ("vmap of 'stablehlo.x' at file:line: ..."), or out_axes[j] is nullopt for a
/// batched result.
std::vector<Value> vmap(const Func& fn, const std::vector<Value>& args,
                        const std::vector<Axis>& in_axes = {},
                        const std::vector<Axis>& out_axes = {}, const Module* callees = nullptr);

/// `vmap` of a traced per-example function: `f` is called once on arguments of the per-example
/// types (in a detached region of the function `args` belong to, then batched as above; the region
/// is dropped). `f` may close over values of that function (JAX's closed-over values): they are
/// unbatched inside the walk, the same for every example, as an argument with in_axes none; their
/// gradients inside `f` (a `grad` with respect to a closed-over value) are per example.
/// Throws what `f` and `vmap(const Func&, ...)` throw; a value of another function read by `f`
/// is the op builder's error ("operand ... belongs to function @g ...").
std::vector<Value> vmap(const TraceFn& f, const std::vector<Value>& args,
                        const std::vector<Axis>& in_axes = {},
                        const std::vector<Axis>& out_axes = {});

/// Builds a new public function `name` in `module` taking `arg_types` (batched types: the vmapped
/// axis of argument i at in_axes[i]) and returning `vmap(body, args, in_axes, out_axes)`.
/// Throws what `vmap` throws.
Func& vmap_func(Module& module, std::string name, const std::vector<TensorType>& arg_types,
                const TraceFn& body, const std::vector<Axis>& in_axes = {},
                const std::vector<Axis>& out_axes = {});

}  // namespace hhlo::ad
