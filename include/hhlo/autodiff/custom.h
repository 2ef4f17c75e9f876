// JAX's `jax.custom_jvp` and `jax.custom_vjp` for traced C++ functions: a function whose
// derivative is given by a rule instead of by differentiating its ops. A call emits one
// `stablehlo.composite` ("hhlo.custom_jvp" / "hhlo.custom_vjp", composite_attributes
// {name = "<name>", id = <n>}) whose decomposition is the function itself (what XLA runs); the
// transformations find the rule through the id in a table of live CustomJvp / CustomVjp objects,
// so no global registration per function is needed (src/autodiff/custom.cc).
//
//   ad::CustomJvp softplus("softplus", [](const std::vector<Value>& x) {
//     return std::vector<Value>{np::log1p(np::exp(x[0]))};
//   });
//   softplus.defjvp([](const std::vector<Value>& x, const std::vector<Value>& t) {
//     return std::pair{std::vector<Value>{np::log1p(np::exp(x[0]))},
//                      std::vector<Value>{Tensor(t[0]) * np::sigmoid(x[0])}};
//   });
//   Value y = softplus({f.arg(0)})[0];     // grad, jvp, hessian, vmap use the rule
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hhlo/autodiff/autodiff.h"

namespace hhlo::ad {

namespace detail {
struct CustomRules;
}

/// A custom JVP rule (JAX's `defjvp` function): given the primals and one tangent per primal (same
/// types; zeros for symbolic zeros and for integer primals), returns (the primal outputs, one
/// tangent per output, of the output's type). It must be linear in the tangents for reverse mode,
/// which transposes it (as JAX does): reverse mode of a rule that applies a non-linear op to a
/// tangent (sin(t), t * t, t / t, abs, max, compare, ...) is an error naming the function and the
/// op, as JAX's transpose raises.
using JvpRuleFn = std::function<std::pair<std::vector<Value>, std::vector<Value>>(
    const std::vector<Value>& primals, const std::vector<Value>& tangents)>;
/// The rule of a CustomJvp with nondiff_argnums (JAX's `f_jvp(*nondiff_args, primals, tangents)`):
/// the non-differentiated arguments (in their order), then the other primals and their tangents.
using JvpRuleNondiffFn = std::function<std::pair<std::vector<Value>, std::vector<Value>>(
    const std::vector<Value>& nondiff, const std::vector<Value>& primals,
    const std::vector<Value>& tangents)>;

/// JAX's `jax.custom_jvp`: a traced function `fn` whose forward-mode derivative is the rule given
/// to `defjvp`; reverse mode (grad, vjp, jacrev) transposes that rule, vmap batches the function
/// and the rule together, higher order differentiates the rule's ops. Copies share one rule set.
class CustomJvp {
 public:
  /// `name` appears in the composite's attributes and in errors; `fn` maps the primals to the
  /// outputs and must build only from its arguments (pass closed-over values as arguments).
  /// `nondiff_argnums` (JAX's `custom_jvp(f, nondiff_argnums=...)`): argument indices that are
  /// not differentiated: the rule gets them apart, without tangents, and they get zero gradients
  /// and tangents (JAX stops their gradient). Throws hhlo::Error for a repeated index; an index
  /// beyond a call's arguments is an error of that call.
  CustomJvp(std::string name, TraceFn fn, std::vector<size_t> nondiff_argnums = {});
  /// JAX's `f.defjvp(rule)`: sets (or replaces) the JVP rule. Returns *this. Throws hhlo::Error
  /// when the function has nondiff_argnums (give a JvpRuleNondiffFn).
  CustomJvp& defjvp(JvpRuleFn rule);
  /// JAX's `f.defjvp(rule)` for a function with nondiff_argnums. Returns *this. Throws
  /// hhlo::Error when the function has none.
  CustomJvp& defjvp(JvpRuleNondiffFn rule);
  /// Calls the function on `args` (values of the function being built; any dtypes and dims):
  /// emits the composite and returns its results (fn's result types). The rule is needed only
  /// when the call is differentiated, and this object (or a copy) must live until then.
  /// Throws hhlo::Error when `args` is empty or `fn` throws or reads a value of another function
  /// ("custom_jvp 'name': ..."); later, a transformation of the call throws hhlo::Error when no
  /// rule was given ("call defjvp"), the object is gone, or the rule returns the wrong number or
  /// types of outputs or tangents (naming the function and the output).
  std::vector<Value> operator()(const std::vector<Value>& args, Loc loc = Loc::current()) const;

 private:
  std::shared_ptr<detail::CustomRules> rules_;
};

/// A custom VJP forward (JAX's `fwd`): given the primals, returns (the outputs, the residuals the
/// backward needs: any values of the function being built).
using FwdFn = std::function<std::pair<std::vector<Value>, std::vector<Value>>(
    const std::vector<Value>& primals)>;
/// A custom VJP backward (JAX's `bwd`): given the residuals and one cotangent per output (zeros
/// for symbolic zeros), returns one cotangent per primal, of the primal's type, or std::nullopt
/// for none (JAX's None; what integer primals get anyway).
using BwdFn = std::function<std::vector<Cotangent>(const std::vector<Value>& residuals,
                                                   const std::vector<Value>& cotangents)>;

/// JAX's `jax.custom_vjp`: a traced function `fn` whose reverse-mode derivative is `bwd` over the
/// residuals of `fwd` (both given to `defvjp`). vmap batches the function, fwd and bwd together
/// (cotangents of unbatched primals summed over the batch, as JAX). Forward mode (jvp, jacfwd,
/// hvp, hessian) of a call is an error, as in JAX. Copies share one rule set.
class CustomVjp {
 public:
  /// As CustomJvp's constructor.
  CustomVjp(std::string name, TraceFn fn);
  /// JAX's `f.defvjp(fwd, bwd)`: sets (or replaces) the rule. Returns *this.
  CustomVjp& defvjp(FwdFn fwd, BwdFn bwd);
  /// As CustomJvp's call; a transformation of the call throws hhlo::Error when no rule was given
  /// ("call defvjp"), the object is gone, fwd's outputs or bwd's cotangents have the wrong number
  /// or types, or it is forward mode ("can't apply forward-mode autodiff (jvp) to custom_vjp
  /// function 'name'").
  std::vector<Value> operator()(const std::vector<Value>& args, Loc loc = Loc::current()) const;

 private:
  std::shared_ptr<detail::CustomRules> rules_;
};

}  // namespace hhlo::ad
