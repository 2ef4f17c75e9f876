// maximum/minimum propagate NaN (spec "maximum", "minimum"), in reduce and through the NumPy layer,
// with the values only known at run time (parameters). XLA:CPU drops the NaN under its default
// xla_cpu_enable_fast_min_max = true; CompileOptions turns it off by default (docs/facts.md).
// Expected values by hand from the spec (NumPy's np.max / np.argmax agree: NaN wins).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "exec_util.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ops/ops.h"

namespace hhlo {
namespace {

using test::run;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

/// reduce(x, init) applies maximum (or minimum) over x's only dimension, x a parameter.
Module reduce_module(DType dtype, bool max) {
  Module m;
  Func& f = m.add_func("main", {TensorType{dtype, {2}}});
  Value init = constant(f, max ? -kInf : kInf, dtype);
  f.ret({reduce(f.arg(0), init, {0},
                [max](Value a, Value b) { return max ? maximum(a, b) : minimum(a, b); })});
  return m;
}

TEST(IeeeMinMax, ReduceMaxAndMinOfNaNAndOneIsNaN) {
  for (bool max : {true, false}) {
    SCOPED_TRACE(max ? "max" : "min");
    float nan = std::numeric_limits<float>::quiet_NaN();
    Array f = run(reduce_module(DType::f32, max), {Array::from<float>({2}, {nan, 1})})[0];
    EXPECT_TRUE(std::isnan(f.to_vector<float>()[0])) << f.to_vector<float>()[0];
    Array d = run(reduce_module(DType::f64, max), {Array::from<double>({2}, {kNaN, 1})})[0];
    EXPECT_TRUE(std::isnan(d.to_vector<double>()[0])) << d.to_vector<double>()[0];
    // NaN last as well as first.
    Array g = run(reduce_module(DType::f64, max), {Array::from<double>({2}, {1, kNaN})})[0];
    EXPECT_TRUE(std::isnan(g.to_vector<double>()[0])) << g.to_vector<double>()[0];
    // Without NaN the result is the plain maximum/minimum.
    Array h = run(reduce_module(DType::f32, max), {Array::from<float>({2}, {-3, 1})})[0];
    EXPECT_EQ(h.to_vector<float>()[0], max ? 1.0f : -3.0f);
  }
}

TEST(IeeeMinMax, ElementwiseMaximumAndMinimumOfParametersPropagateNaN) {
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f32, {}}, TensorType{DType::f32, {}}});
  f.ret({maximum(f.arg(0), f.arg(1)), minimum(f.arg(0), f.arg(1)), maximum(f.arg(1), f.arg(0))});
  float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = run(m, {Array::scalar<float>(5), Array::scalar<float>(nan)});
  for (size_t i = 0; i < out.size(); ++i)
    EXPECT_TRUE(std::isnan(out[i].to_vector<float>()[0]))
        << i << ": " << out[i].to_vector<float>()[0];
}

TEST(IeeeMinMax, NumpyMaxMinAndArgmaxAgreeOnNaN) {
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f32, {2}}, TensorType{DType::f64, {3}}});
  Tensor x = f.arg(0), y = f.arg(1);
  f.ret({np::max(x), np::min(x), np::max(y), np::argmax(y, 0), np::min(y), np::argmin(y, 0)});
  float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = run(m, {Array::from<float>({2}, {nan, 1}), Array::from<double>({3}, {7, kNaN, 11})});
  EXPECT_TRUE(std::isnan(out[0].to_vector<float>()[0])) << out[0].to_vector<float>()[0];
  EXPECT_TRUE(std::isnan(out[1].to_vector<float>()[0])) << out[1].to_vector<float>()[0];
  // np.max([7, nan, 11]) is nan and np.argmax is 1: the maximum is the element argmax names.
  EXPECT_TRUE(std::isnan(out[2].to_vector<double>()[0])) << out[2].to_vector<double>()[0];
  EXPECT_EQ(out[3].to_vector<int32_t>(), (std::vector<int32_t>{1}));
  EXPECT_TRUE(std::isnan(out[4].to_vector<double>()[0])) << out[4].to_vector<double>()[0];
  EXPECT_EQ(out[5].to_vector<int32_t>(), (std::vector<int32_t>{1}));
}

}  // namespace
}  // namespace hhlo
