// The JVP rule registry (forward mode), keyed by full op name ("stablehlo.add"), plus JAX-style
// helpers (ad.py: deflinear, defbilinear, defjvp_zero). Built-in rules live next to the VJP rules
// of the same op family (src/autodiff/rules/<family>.cc) and are registered on first use.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/ir/module.h"

namespace hhlo::ad {

/// A JVP rule: receives the forward op (whose results are the primal outputs) and one tangent per
/// operand (nullopt = zero; never all nullopt), followed, for ops with regions, by one tangent per
/// captured_values(op) entry; returns one tangent per result (nullopt for zero, and for integer or
/// pred results). Rules build with the op builders at the insertion point (after the op).
using JvpRule =
    std::function<std::vector<Tangent>(const Op& op, const std::vector<Tangent>& tangents)>;

/// Registers (or replaces) the JVP rule for `op_name`.
void register_jvp(std::string op_name, JvpRule rule);
/// The JVP rule for `op_name`, or nullptr.
const JvpRule* find_jvp(std::string_view op_name);
/// Names of every registered JVP rule, sorted (custom-call rules as "custom_call:<target>").
std::vector<std::string> registered_jvps();
/// Registers the JVP of `stablehlo.custom_call` ops whose call_target_name is `target` (JAX's
/// custom_jvp for a kernel). A custom call without one is an error naming the target.
void register_custom_jvp(std::string target, JvpRule rule);

/// A rule for an op whose derivative is zero almost everywhere (floor, sign, compare, ...).
JvpRule zero_jvp();
/// A rule for an op that is linear in its float and complex operands jointly (add, reshape,
/// gather in its operand, select in its branches, reduce with an add body, ...): the op applied to
/// their tangents (zeros for symbolic zeros), other operands (indices, predicates) kept; tangents
/// of integer or pred results are zero.
JvpRule linear_jvp();
/// A rule for an op bilinear in its two operands (dot_general, convolution; JAX's defbilinear):
/// d(x . y) = dx . y + x . dy, each term the op applied again with one operand's tangent and the
/// other's primal (a zero tangent's term left out).
JvpRule bilinear_jvp();
/// The op `op` re-emitted at the insertion point with `operands` in place of its own (same
/// attributes, regions copied, same result types): how linear ops apply themselves to tangents.
/// Throws hhlo::Error when the count differs; the caller keeps the types equal.
std::vector<Value> reapply(const Op& op, const std::vector<Value>& operands);
/// Inside a rule: the JVP of a composite `body` standing for `op` (a decomposition into ops with
/// rules, e.g. batch norm): builds `body(op.operands())` and returns the tangents of its results
/// for `tangents` (one per operand). Throws what `jvp` throws.
std::vector<Tangent> jvp_of_decomposition(const Op& op, const std::vector<Tangent>& tangents,
                                          const TraceFn& body);

}  // namespace hhlo::ad
