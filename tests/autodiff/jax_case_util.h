// One JAX case of a gen_*_vectors.py script checked end to end (nonsmooth_test.cc,
// np_functions_test.cc): a function of hhlo ops with its VJP and JVP, run, against JAX's values.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/ir/module.h"

namespace hhlo::test {

/// Expects `got` equal to JAX's `want` within `tol` relative: same dims and dtype, NaN for NaN,
/// the same infinity (0.0 and -0.0 compare equal); complex values by their distance.
void expect_same(const Array& got, const Array& want, const std::string& what, double tol = 1e-12);

/// Builds `fn` over the inputs `NAME/in/<i>` of case `name` in `vectors`, with its VJP (the
/// cotangent `NAME/ct`, every input) and JVP (the tangents `NAME/t/<i>`), runs it, and compares
/// `NAME/out`, `NAME/vjp/<i>` and `NAME/jvp` (expect_same within `tol`).
void check_vjp_jvp_case(const std::map<std::string, Array>& vectors, const std::string& name,
                        const std::function<Value(const std::vector<Value>&)>& fn,
                        double tol = 1e-12);

}  // namespace hhlo::test
