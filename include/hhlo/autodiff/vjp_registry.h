// The VJP rule registry, keyed by full op name ("stablehlo.add"), plus JAX-style helpers for
// writing rules (ad.py: deflinear, defjvp_zero, _unbroadcast). Built-in rules are registered on
// first use, one file per op family under src/autodiff/rules/.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/ir/module.h"

namespace hhlo::ad {

/// A VJP rule: receives the forward op (operands, results, attributes, regions) and one cotangent
/// per result (nullopt = zero; never all nullopt) and returns one cotangent per operand (nullopt
/// for no gradient: predicates, indices, integer operands), optionally followed by one cotangent
/// per captured_values(op) entry (values of enclosing blocks used inside the op's regions, as
/// if/case branches use them). Rules build with the op builders; the ops go to the function being
/// differentiated.
using VjpRule =
    std::function<std::vector<Cotangent>(const Op& op, const std::vector<Cotangent>& cts)>;

/// Registers (or replaces) the rule for `op_name` (e.g. "stablehlo.custom_call" or a custom name).
void register_vjp(std::string op_name, VjpRule rule);
/// The rule for `op_name`, or nullptr.
const VjpRule* find_vjp(std::string_view op_name);
/// Names of every registered rule, sorted.
std::vector<std::string> registered_vjps();

/// Inside a rule: whether the walk needs the cotangent of operand `i` (false for operands that do
/// not depend on the differentiated inputs, e.g. the data batch of a dense layer). Rules may skip
/// building those cotangents (JAX only transposes undefined primals); outside a rule: true.
bool needs_cotangent(size_t i);

/// Values defined outside `op` but used inside its regions, in order of first use, without
/// repeats.
std::vector<Value> captured_values(const Op& op);
/// Re-emits the ops of `region` at the current insertion point with its block arguments replaced
/// by `args` (values of enclosing blocks keep their identity) and returns the values its
/// terminator returns. Nested regions are rebuilt too. Used to replay loop bodies and branches.
/// Throws hhlo::Error when args.size() differs from the region's arguments.
std::vector<Value> inline_region(const Block& region, const std::vector<Value>& args);

/// Registers the VJP of `stablehlo.custom_call` ops whose call_target_name is `target` (the
/// custom_vjp of a custom call; its rule may itself emit a backward custom call). A custom call
/// without one is an error naming the target.
void register_custom_vjp(std::string target, VjpRule rule);
/// Pairs a forward custom-call target with a backward one (JAX's custom_vjp with both halves as
/// kernels): the VJP of `stablehlo.custom_call @forward_target(x_1..x_n)` with results
/// y_1..y_m is `stablehlo.custom_call @backward_target(x_1..x_n, ct_1..ct_m)` with the same
/// api_version and backend_config, returning n results typed like x_1..x_n (the cotangents of
/// the operands; zero cotangents are passed as zeros). Both targets must be registered with the
/// plugin (hhlo::register_custom_call) before the program is compiled. Cotangents of integer or
/// pred operands that the backward target returns are dropped.
void register_custom_vjp(std::string forward_target, std::string backward_target);

/// A rule for an op whose gradient is zero almost everywhere (floor, sign, round, compare, ...).
VjpRule zero_vjp();
/// A rule for an op linear in its first operand: `transpose(op, ct)` returns the operand's
/// cotangent; symbolic-zero cotangents skip it. Other operands get no cotangent.
VjpRule linear_vjp(std::function<Value(const Op& op, Value ct)> transpose);

/// Transpose of broadcast_in_dim: sums `ct` (of the broadcast result's shape) over the result
/// dimensions not in `broadcast_dimensions` and over those where the operand had size 1, and
/// returns a value of `operand_dims`. Throws ShapeError through the builders on inconsistent input.
Value unbroadcast(Value ct, const Dims& operand_dims,
                  const std::vector<int64_t>& broadcast_dimensions);
/// NumPy-style unbroadcast: the shapes are right-aligned (the transpose of a NumPy broadcast from
/// `operand_dims` to ct's shape).
Value unbroadcast(Value ct, const Dims& operand_dims);

/// Sum of `x` over `dims` (stablehlo.reduce with add); result: x's shape without `dims`.
Value reduce_sum(Value x, const std::vector<int64_t>& dims, Loc loc = Loc::current());
/// np::full_like(x, value) as a Value (the same constant, for rule code that works with Values): a
/// splat constant of x's type (shape and dtype) with `value`. docs/autodiff.md, "One name per
/// function".
Value full_like(Value x, double value, Loc loc = Loc::current());

}  // namespace hhlo::ad
