// Finite-difference gradient checks for VJP rules: the rule under test runs on the CPU plugin
// through hhlo::run and is compared with central differences of the forward program, in f64.
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
/// every i in `wrt` (all f64 arguments when empty). Reports mismatches with gtest EXPECTs and
/// returns the analytic gradients.
std::vector<Array> check_grad(const std::vector<Array>& inputs,
                              const std::function<Value(const std::vector<Value>&)>& fn,
                              std::vector<size_t> wrt = {}, double eps = 1e-6, double tol = 1e-6);

}  // namespace hhlo::test
