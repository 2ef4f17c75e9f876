// Shape refinement: specialise a module whose entry function has dynamic dimensions
// (`tensor<?x8xf32>`, what a shape-polymorphic `jax.export` produces) to concrete argument shapes,
// the job of StableHLO's `stablehlo-refine-arguments` + `stablehlo-refine-shapes` passes and of
// JAX's `refine_polymorphic_shapes` (inliner, refinement, shape_assertion check). The plugin
// compiles only static programs (`'stablehlo.dynamic_broadcast_in_dim' op can't be translated to
// XLA HLO`), so this runs before compile. See docs/ir.md "Shape refinement".
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hhlo/core/error.h"
#include "hhlo/ir/module.h"

namespace hhlo {

/// A `stablehlo.custom_call @shape_assertion` whose condition is false for the given argument
/// shapes: what() is JAX's `error_message` with its `{0}`, `{1}`, ... replaced by the values of the
/// assertion's operands after the condition (e.g. "Input shapes do not match the polymorphic
/// shapes specification. Division had remainder 1 when computing the value of 'b'. ...").
class ShapeAssertionError : public Error {
 public:
  using Error::Error;
};

/// Options of refine_shapes.
struct RefineOptions {
  /// The entry function to specialise.
  std::string entry = "main";
  /// Verify the refined module (hhlo/ir/verifier.h, unknown ops allowed) before returning.
  bool verify = true;
  /// At most this many ops are emitted: inlining can multiply a program's size (f calls g twice,
  /// g calls h twice, ...), and a hostile file must not exhaust memory.
  size_t max_ops = size_t{1} << 21;
};

/// True when function `f`'s argument or result types, or the result type of an op of its body
/// (regions included), have a dynamic (`?`) dimension.
bool has_dynamic_shapes(const Func& f);

/// Specialises `module` in place to entry argument types `arg_types` (static; one per argument,
/// same element type and rank, each static dimension of the entry's type kept). Afterwards the
/// module holds one function, the entry (same name, argument and result attributes, function
/// attributes), with static types everywhere:
///  - every `func.call` reached from the entry is inlined (JAX exports call private functions such
///    as `@_wrapped_jax_export_main` and pass dimension values as `tensor<i32>`/`tensor<i64>`);
///  - result types of every op are recomputed from its operands by the IR's shape rules
///    (hhlo/ir/infer.h); ops without a rule here (custom_call, other dialects) keep theirs;
///  - shape computations on small integer/i1 tensors (at most 4096 elements) whose operands are
///    constants are folded to `stablehlo.constant`: get_dimension_size, constant, convert, add,
///    subtract, multiply, divide, remainder, max, min, abs, negate, sign, and, or, xor, not,
///    compare, select, clamp, reshape, broadcast_in_dim, concatenate, slice, transpose;
///  - `dynamic_broadcast_in_dim`, `dynamic_reshape`, `dynamic_iota`, `dynamic_pad`,
///    `dynamic_gather`, `real_dynamic_slice` and `dynamic_conv` whose shape operands became
///    constants become `broadcast_in_dim`, `reshape`, `iota`, `pad`, `gather`, `slice`,
///    `convolution`, and the custom calls `@stablehlo.dynamic_reduce_window`,
///    `@stablehlo.dynamic_rng_bit_generator` and `@stablehlo.dynamic_top_k` (JAX's `rbg` keys and
///    `lax.top_k` with a symbolic k) become `reduce_window`, `rng_bit_generator` and `chlo.top_k`
///    (JAX's static lowering of top_k);
///  - `real_dynamic_slice(x, start, add(start, C), strides)` (either order of the add) with `C`
///    and `strides` constants and `start` data-dependent (JAX's `lax.dynamic_slice` with slice
///    sizes from dimension variables) becomes `dynamic_slice` of sizes `C`, then a `slice` with
///    the strides when one is not 1 (result dimension i: ceil(C[i] / strides[i]));
///  - `stablehlo.custom_call @shape_assertion(cond, args...)` is evaluated and removed.
/// Throws hhlo::Error when the entry does not exist, `arg_types` does not match it (count,
/// element type, rank, a static dimension), a call is recursive or a type stays dynamic (naming
/// the op, e.g. a dynamic_reshape whose shape is computed from tensor data), the inlined program
/// exceeds `options.max_ops`; ShapeAssertionError
/// for a failed shape_assertion; hhlo::ShapeError naming the op, its location and the constraint
/// when a shape rule rejects the refined types or a refined result type disagrees with a static
/// type written in the file.
void refine_shapes(Module& module, std::span<const TensorType> arg_types,
                   const RefineOptions& options = {});

/// The position of `platform` ("cpu", "cuda") in a multi-platform export's platforms (JAX's
/// `Exported.platforms`), or nullopt when `platforms` is empty. Throws hhlo::Error naming both
/// when `platform` is not in a non-empty list.
std::optional<int64_t> platform_index_for(std::span<const std::string> platforms,
                                          std::string_view platform);

}  // namespace hhlo
