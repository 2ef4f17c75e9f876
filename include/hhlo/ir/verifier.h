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
///    existing function with matching argument and result types.
/// Throws hhlo::ShapeError from the violated rule (op name and constraint), or hhlo::Error naming
/// the function and op for structural problems (unknown op, missing attribute, bad terminator).
void verify(const Module& module);

}  // namespace hhlo
