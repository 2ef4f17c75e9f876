// Private: registration entry points of the built-in rule families (one file each) and small
// helpers shared by the rules.
#pragma once

#include <fmt/format.h>

#include <map>
#include <string>
#include <unordered_map>

#include "hhlo/autodiff/jvp_registry.h"
#include "hhlo/autodiff/vjp_registry.h"
#include "hhlo/ir/ops.h"

namespace hhlo::ad::detail {

using Registry = std::map<std::string, VjpRule, std::less<>>;

/// Appends every operand of the ops of `b` and of their regions, in order, repeats kept: the
/// values a region uses, its own and those of enclosing blocks it captures (registry.cc).
void uses_in(const Block& b, std::vector<Value>& out);

void register_elementwise_rules(Registry& r);
void register_shape_rules(Registry& r);
void register_dot_general_rules(Registry& r);
void register_reduce_rules(Registry& r);
void register_convolution_rules(Registry& r);
void register_reduce_window_rules(Registry& r);
void register_indexing_rules(Registry& r);
void register_control_flow_rules(Registry& r);
void register_batch_norm_rules(Registry& r);
void register_linalg_rules(Registry& r);
void register_collectives_rules(Registry& r);

/// The JVP rules, registered by the same family files.
using JvpRegistry = std::map<std::string, JvpRule, std::less<>>;
void register_elementwise_jvps(JvpRegistry& r);
void register_shape_jvps(JvpRegistry& r);
void register_dot_general_jvps(JvpRegistry& r);
void register_reduce_jvps(JvpRegistry& r);
void register_convolution_jvps(JvpRegistry& r);
void register_reduce_window_jvps(JvpRegistry& r);
void register_indexing_jvps(JvpRegistry& r);
void register_control_flow_jvps(JvpRegistry& r);
void register_batch_norm_jvps(JvpRegistry& r);
void register_linalg_jvps(JvpRegistry& r);
void register_collectives_jvps(JvpRegistry& r);

/// The forward walk: tangents of `outputs` from the ops of `block` at index >= `start` (in order),
/// seeded with `seeds` (value id -> tangent; values of enclosing blocks may be seeded too). Only
/// ops between the seeds and `outputs` run their rules. Used by `jvp` and by the control-flow
/// rules inside the regions they build.
std::vector<Tangent> forward_tangents(const Block& block, size_t start,
                                      std::unordered_map<uint32_t, Value> seeds,
                                      const std::vector<Value>& outputs);

/// Checks a set of argnums (JAX's `argnums=(a, b, ...)`) over `primals` arguments: not empty, each
/// in range, none repeated. Throws hhlo::Error naming `what` (the transform) otherwise.
void check_argnums(const char* what, const std::vector<size_t>& argnums, size_t primals);

using hhlo::is_complex;
using hhlo::is_float;
/// The element types that carry cotangents (JAX's inexact types): f16/bf16/f32/f64 and
/// complex<f32>/complex<f64>. Integer and pred values have no gradient.
inline bool is_inexact(DType t) { return is_float(t) || is_complex(t); }
/// Whether operand `x` of `op` gets a cotangent from a rule whose formulas hold for real floats
/// only: true for a float, false for an integer or pred; for a complex `x` it throws (through
/// `unsupported`) "no VJP rule for complex operands", so that a complex chain through such a
/// rule is an error naming the op, never a silent zero.
/// `mode` ("VJP" or "JVP") prefixes the message.
bool real_tangent(const Op& op, Value x, const char* mode = "VJP");
/// Sets the operand mask needs_cotangent() reads while a rule runs (restored on scope exit, so
/// nested walks inside control-flow rules keep their own mask).
class NeededScope {
 public:
  explicit NeededScope(const std::vector<bool>* mask);
  ~NeededScope();
  NeededScope(const NeededScope&) = delete;
  NeededScope& operator=(const NeededScope&) = delete;

 private:
  const std::vector<bool>* saved_;
};

/// The `name` of a stablehlo.composite ("" when missing): its rules are keyed "composite:<name>".
std::string composite_name(const Op& op);
/// The decomposition of composite `op` (a function of the op's Module) inlined at the insertion
/// point of `inputs`' function with its parameters bound to `inputs`; returns its results.
/// Throws (through `unsupported`) when the op names no decomposition, and what inline_call
/// throws.
std::vector<Value> inline_decomposition(const Op& op, const std::vector<Value>& inputs);

/// Where `op` comes from, for error messages: "file:line" of the C++ call site that built it;
/// for an op parsed from text "line N of the parsed text" followed by its MLIR location
/// (`(file:line)` or `(loc(...))`, shortened); "unknown location" when nothing is known.
std::string where(const Op& op);
/// Error for a rule that cannot handle a configuration, naming the op and its location.
[[noreturn]] void unsupported(const Op& op, const std::string& why, const char* mode = "VJP");
/// `x` cast to dtype `d` when it differs.
Value cast_to(Value x, DType d);

}  // namespace hhlo::ad::detail
