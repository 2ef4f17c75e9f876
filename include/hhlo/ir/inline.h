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

/// A substitute for an op while inlining: given the op about to be appended to `dest` (its
/// operands already `dest`'s values, its default attributes made explicit), returns the values
/// that stand for its results (one per result, of the result's type), appended to `dest` by the
/// rewrite itself, or nullopt to copy the op as it is. Ops with regions are always copied (the
/// ops inside their regions pass through the rewrite).
using OpRewrite = std::function<std::optional<std::vector<Value>>(Func& dest, const OpState& op)>;

/// inline_call with `rewrite` deciding, op by op, what is appended (a rewrite pass that copies a
/// function: hhlo/program/onednn_rewrite.h). Throws as inline_call, hhlo::Error when a rewrite
/// returns the wrong number or types of values (naming the op), and what `rewrite` throws.
std::vector<Value> inline_call(Func& dest, const Module& source, std::string_view callee,
                               const std::vector<Value>& args, const OpRewrite& rewrite);

}  // namespace hhlo
