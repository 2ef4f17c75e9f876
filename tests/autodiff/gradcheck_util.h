// Finite-difference checks for VJP and JVP rules: the rule under test runs on the CPU plugin
// through hhlo::run and is compared with central differences of the forward program, in f64.
// `check_grad` checks, for the same function, the gradient (reverse mode), the JVP (forward mode)
// and the Hessian-vector product (forward over reverse, so the JVP rules of every op the VJP rules
// emit are exercised too).
#pragma once

#include <functional>
#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/ir/module.h"

namespace hhlo::test {

/// f64 array of `dims` with values uniform in [lo, hi) from `seed` (deterministic).
Array rand_f64(Dims dims, uint64_t seed, double lo = -1.0, double hi = 1.0);

/// Builds `fn(args)` (one float output), forms L = sum(fn(args) * W) with a fixed random W, and
/// checks dL/d(args[i]) from hhlo::ad::grad against central finite differences (step `eps`) for
/// every i in `wrt` (all f64 arguments when empty); then `check_jvp` of `fn` and `check_hvp` of L
/// in a random direction. Reports mismatches with gtest EXPECTs and returns the analytic gradients.
/// Set `second_order` false where an op's VJP emits ops without JVP rules (documented gaps).
std::vector<Array> check_grad(const std::vector<Array>& inputs,
                              const std::function<Value(const std::vector<Value>&)>& fn,
                              std::vector<size_t> wrt = {}, double eps = 1e-6, double tol = 1e-6,
                              bool second_order = true);

/// Checks hhlo::ad::jvp of `fn` (one f64 output) in a random direction over the `wrt` arguments
/// (all f64 ones when empty) against the central difference (fn(x + eps v) - fn(x - eps v)) / 2eps,
/// element by element. Returns the analytic tangent.
Array check_jvp(const std::vector<Array>& inputs,
                const std::function<Value(const std::vector<Value>&)>& fn,
                std::vector<size_t> wrt = {}, double eps = 1e-6, double tol = 1e-6);

/// Checks the Hessian-vector product of the scalar `loss` (forward over reverse: jvp of grad) in a
/// random direction v against the central difference of the gradient (grad(x + eps v) -
/// grad(x - eps v)) / 2eps. Returns H v per `wrt` argument.
std::vector<Array> check_hvp(const std::vector<Array>& inputs,
                             const std::function<Value(const std::vector<Value>&)>& loss,
                             std::vector<size_t> wrt = {}, double eps = 1e-5, double tol = 1e-5);

}  // namespace hhlo::test
