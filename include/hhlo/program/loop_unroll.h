// The opt-in unrolling of counted loops (issue 26: the LSTM's `lax.scan`): a program-stage pass
// that copies a prepared module, replacing each top-level `stablehlo.while` of `@main` whose trip
// count it can read (JAX's scan and fori_loop: a counter from a constant, `counter < constant`
// as the whole condition, `counter + 1` as its only update) by a loop whose body is the old body
// k times over, k the largest divisor of the trip count not above the factor asked. The same
// ops run in the same order on the same values; XLA then pays its per-iteration cost (a call of
// the condition and of the body, their buffers) once per k iterations and can fuse across them.
// `hhlo tune` measures it (TunedChoice::unroll_loops); `hhlo run` and `hhlo bench` take
// `--unroll-loops K`.
#pragma once

#include <string>

#include "hhlo/ir/module.h"

namespace hhlo {

/// What unroll_loops did.
struct LoopUnroll {
  /// The copied module: `@main` with every call inlined (attributes of the module, of `@main`
  /// and of its arguments and results kept), its counted loops unrolled.
  Module module;
  /// Loops unrolled.
  int unrolled = 0;
  /// Loops left as they are, and why not the first of them (empty when none was left).
  int kept = 0;
  std::string first_kept_reason;
};

/// Copies `module`'s `@main`, unrolling by up to `factor` each `stablehlo.while` among its
/// top-level ops (after inlining) that counts: an integer scalar operand i starting at a
/// constant c0, a condition region that is only `compare LT, arg_i, constant n`, a body whose
/// result i is `arg_i + 1`, neither region using a value defined outside it but constants
/// (JAX's scan captures n and 1 from the enclosing function: they are copied in). A loop of trip
/// count n - c0 is unrolled by k = the largest divisor of it in [2, factor]; one with no such
/// divisor, or any other loop, is copied as it is and counted in `kept`. Loops inside regions are
/// copied as they are. Throws hhlo::Error when `factor` < 2 or the module has no `@main` that
/// returns, and what inline_call throws (hhlo/ir/inline.h).
LoopUnroll unroll_loops(const Module& module, int factor);

}  // namespace hhlo
