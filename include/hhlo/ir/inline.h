// Inlining a function of one module (typically a parsed one: hhlo/ir/parser.h) into a function
// under construction, with every `func.call` inside it inlined too. This is how imported programs
// become ordinary IR that the transforms (autodiff, batching) walk: see docs/autodiff.md
// "Gradients of imported programs".
//
//   Module exported = parse_module_file("loss.mlir");
//   Module m;
//   Func& f = m.add_func("main", entry_function(exported).arg_types());
//   Value loss = inline_call(f, exported, "main", f.args())[0];
#pragma once

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "hhlo/ir/module.h"

namespace hhlo {

/// Appends the body of function `callee` of `source` to `dest`'s insertion block with its
/// arguments bound to `args`, and returns the values it returns (one per result of `callee`).
/// - Every `func.call` in the body (at any region depth) is inlined the same way, recursively,
///   from `source`; functions calling themselves (directly or not) are an error.
/// - Ops keep their names, attributes (opaque ones such as `mhlo.frontend_attributes` or
///   `mhlo.sharding` verbatim), result types, regions and locations (source lines included).
/// - Attributes the StableHLO printer may leave out at their default values are made explicit
///   in the form our op builders give them, so that rules written for built ops read imported
///   ones: `reduce_window` and `select_and_scatter` without `padding` get zero padding (a dense
///   i64 tensor of shape [rank, 2]), `convolution` without `padding` zero padding of shape
///   [spatial rank, 2], and the window attributes `window_strides`, `base_dilations`,
///   `window_dilations`, `lhs_dilation`, `rhs_dilation`, `feature_group_count`,
///   `batch_group_count` their default ones where missing.
/// `source` may be `dest`'s own module as long as `callee` is not `dest`.
/// Throws hhlo::Error when `callee` (or a function it calls) is not in `source` (naming the
/// functions that are), when the argument count or a type differs from `callee`'s signature
/// (naming the argument and both types), when a value of `args` does not belong to `dest`, when
/// a function has not returned, or on recursion ("recursive call of @f").
std::vector<Value> inline_call(Func& dest, const Module& source, std::string_view callee,
                               const std::vector<Value>& args);

/// A substitution inline_call consults before copying an op (any op but `func.call` and the
/// terminators; inside regions only with RewriteScope::regions_too): given the source op and its
/// operands, already values of `dest`, it returns the values `dest` uses for the op's results
/// instead of a copy (emitted by the rewrite at `dest`'s insertion point, one per result, of the
/// result's type), or std::nullopt to have the op copied. The autodiff layer recognises JAX's QR
/// this way (src/autodiff/imported_qr.cc).
using InlineRewrite = std::function<std::optional<std::vector<Value>>(
    const Op& op, const std::vector<Value>& operands)>;

/// Where inline_call consults its rewrite: the ops of the inlined function bodies only, or also
/// the ops inside their regions at any depth (a `stablehlo.while` body, a `case` branch, a
/// reduction's body), where the rewrite's values are emitted into the region being copied.
enum class RewriteScope { bodies, regions_too };

/// inline_call with `rewrite` consulted for each op of the body (and, with `scope`
/// regions_too, of its regions). Throws what inline_call throws, and hhlo::Error naming the op
/// when the rewrite returns the wrong number or types of values.
std::vector<Value> inline_call(Func& dest, const Module& source, std::string_view callee,
                               const std::vector<Value>& args, const InlineRewrite& rewrite,
                               RewriteScope scope = RewriteScope::bodies);

/// Appends a copy of the body of function `callee` of `source` to `dest` (a function of another
/// module under construction, taking `callee`'s argument types) with its arguments bound to
/// `args`, and returns the values it returns. Unlike inline_call, `func.call`s are copied as calls
/// and every symbol reference (a composite's `decomposition`, a custom call's
/// `called_computations`) is kept as it is, so that copying every function of a module under its
/// own name keeps the module whole. `rewrite` is consulted for each op at any region depth (as
/// RewriteScope::regions_too), `func.call`s and terminators excepted. Throws what inline_call
/// throws.
std::vector<Value> copy_function_body(Func& dest, const Module& source, std::string_view callee,
                                      const std::vector<Value>& args, const InlineRewrite& rewrite);

/// Appends a copy of the ops of region block `block` (the body of a `stablehlo.while`, a
/// reduction, a branch; of a function of `source`) to `dest`'s insertion block with its
/// arguments bound to `args`, and returns the values its `stablehlo.return` returns (the return
/// itself is not copied). Nested regions are copied with their ops, and `func.call`s inlined from
/// `source`, as inline_call does. A `stablehlo.constant` of the enclosing function that the block
/// uses (JAX's loops capture their bounds and steps so) is copied where it is first used. Throws
/// hhlo::Error when the count or a type of `args` differs from the block's arguments, when a
/// value of `args` does not belong to `dest`, when an op of the block uses another value defined
/// outside it, and when the block has no `stablehlo.return`.
std::vector<Value> inline_region(Func& dest, const Module& source, const Block& block,
                                 const std::vector<Value>& args);

}  // namespace hhlo
