// The program stage's rewrites that keep the plugin to the StableHLO specification: ops whose
// XLA:CPU result differs from the spec (docs/facts.md, "Ops the default CPU plugin computes
// otherwise than the StableHLO spec") are rewritten into ops it computes right, and ops that abort
// the plugin's process are refused before it sees them. prepare_program (hhlo/program/program.h)
// applies it to every program, so `hhlo run`, `bench`, `tune`, Session and serve all run the spec's
// values.
#pragma once

#include <string>

#include "hhlo/ir/module.h"

namespace hhlo {

/// Rewrites in `module` (every function, every region) the ops XLA:CPU computes otherwise than
/// the StableHLO spec, each into ops of the same result type it computes right:
///  - `maximum`/`minimum` of complex operands (the plugin compares real parts only and keeps the
///    left operand on ties): the spec's lexicographic order on (real, imaginary), as the reference
///    interpreter computes it: `select(re_l == re_r ? im_l > im_r : re_l > re_r, lhs, rhs)` for
///    maximum (`<` for minimum), so an operand with a NaN part gives the other one;
///  - `add` of i1 (folded at compile time, the plugin gives XOR): `or`, the spec's logical OR;
///  - `ceil`/`floor` of bf16, f32 and f64 (the plugin reads subnormal arguments as zero): a
///    subnormal argument, found from its bits, gives 1 or -0 (ceil), 0 or -1 (floor) by its sign;
///  - `reduce_precision` of a float with `mantissa_bits` 0 (the plugin keeps NaN): a NaN gives
///    +inf, as the reference interpreter gives (a format without mantissa bits has no NaN);
///  - `bitcast_convert` to or from i1 (the plugin takes i1 as a byte and gives another shape): the
///    spec's one bit per element, element k of the last dimension bit k from the least
///    significant (`tensor<64xi1>` <-> `tensor<i64>`), by shifts, an `or` reduction and a test;
///  - the ops StableHLO added after 1.22 (exp2, log2 at 1.23, fma at 1.24) that the plugin cannot
///  parse (it reads StableHLO up to 1.20), as JAX
///    0.12.1's jax.export writes them for an older target: `fma(a, b, c)` as
///    `add(multiply(a, b), c)` (two roundings), `exp2(x)` as `exponential(multiply(ln 2, x))`,
///    `log2(x)` as `multiply(log(x), log2(e))`, result_accuracy kept on the exponential/log.
/// `ceil`, `floor`, `reduce_precision`, `exp2`, `log2` and i1 `bitcast_convert` with a dynamic
/// (`?`) result dimension are kept. The module is copied only when some op needs a rewrite;
/// functions, calls, attributes and locations are kept. Returns the number of ops rewritten. Throws
/// hhlo::Error naming `source_name`, the op, its line and the cause for an op that aborts the
/// plugin's process (a CHECK failure, exit 134): `bitcast_convert` between complex types of
/// different widths (complex<f64> to two complex<f32> and back).
int rewrite_to_the_spec(Module& module, const std::string& source_name);

/// Throws what rewrite_to_the_spec throws for an op of `module` that aborts the plugin's process,
/// and nothing else (`hhlo check` refuses what `run` would).
void refuse_plugin_aborts(const Module& module, const std::string& source_name);

}  // namespace hhlo
