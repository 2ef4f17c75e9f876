// Whole-module verifier: re-checks what the builders guarantee, for modules assembled by other
// means (Func::append with hand-made OpState, transformations in other layers).
#pragma once

#include "hhlo/ir/module.h"

namespace hhlo {

/// Re-checks every function of `module`:
///  - every operand is defined before its use and visible from the op's block;
///  - each StableHLO op's recorded result types equal what its shape rule (hhlo/ir/infer.h)
///    infers from its operand types and attributes, and its required attributes are present;
///  - region bodies end in `stablehlo.return` with the types the op requires (reduce,
///    reduce_window, scatter, sort, map, select_and_scatter, while, if, case);
///  - every function ends in `func.return` matching its result types; `func.call` names an
///    existing function with matching types; no function reaches itself through calls.
/// Throws hhlo::ShapeError from the violated rule (op name and constraint), or hhlo::Error naming
/// the function and op for structural problems (unknown op, missing attribute, a call cycle).
void verify(const Module& module);

/// Options of verify for imported modules (hhlo/ir/parser.h).
struct VerifyOptions {
  /// Accept ops outside supported_ops() (other dialects, StableHLO ops without a shape rule
  /// here) with their recorded result types; their regions may end in any `*.return`/`*.yield`.
  bool allow_unknown_ops = false;
  /// Skip the shape rule of ops with a dynamic (`?`) dimension in an operand or result type.
  bool skip_dynamic = false;
  /// When not null, receives the op being checked when verify throws (nullptr when the failure is
  /// not at an op, e.g. a function without func.return).
  const Op** failed_op = nullptr;
};
/// verify with options; the same checks and errors.
void verify(const Module& module, const VerifyOptions& options);

}  // namespace hhlo
