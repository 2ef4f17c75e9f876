// Execution: triangular_solve, cholesky, fft, reduce_precision. Expected values from NumPy.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>

#include "exec_util.h"
#include "exec_util_near.h"
#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

using test::expect_near;
using test::run;
using test::values;
TensorType f64(Dims d) { return {DType::f64, std::move(d)}; }

TEST(LinalgExec, CholeskyAndTriangularSolve) {
  Module m;
  Func& f = m.add_func("main", {f64({3, 3}), f64({3, 3}), f64({3, 2}), f64({2, 3})});
  Value c = cholesky(f.arg(0));
  Value x = triangular_solve(f.arg(1), f.arg(2));
  Value y = triangular_solve(f.arg(1), f.arg(3),
                             {.left_side = false, .transpose_a = Transpose::TRANSPOSE});
  f.ret({c, x, y});
  auto out = run(m, {Array::from<double>({3, 3}, {4, 2, 0, 2, 5, 1, 0, 1, 3}),
                     Array::from<double>({3, 3}, {2, 0, 0, 1, 3, 0, 4, 5, 6}),
                     Array::from<double>({3, 2}, {1, 2, 3, 4, 5, 6}),
                     Array::from<double>({2, 3}, {1, 3, 5, 2, 4, 6})});
  // Only the lower triangle of a cholesky result is defined.
  auto cv = values(out[0]);
  std::vector<double> want = {2.0, 0, 0, 1.0, 2.0, 0, 0.0, 0.5, 1.6583123951777};
  for (int i : {0, 3, 4, 6, 7, 8})
    EXPECT_NEAR(cv[static_cast<size_t>(i)], want[static_cast<size_t>(i)], 1e-12);
  expect_near(values(out[1]), {0.5, 1.0, 0.8333333333333333, 1.0, -0.1944444444444444, -0.5},
              1e-12);
  expect_near(values(out[2]), {0.5, 0.8333333333333333, -0.1944444444444444, 1.0, 1.0, -0.5},
              1e-12);
}

TEST(LinalgExec, Fft) {
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {4}}});
  Value r = fft(f.arg(0), FftType::RFFT, {4});
  Value back = fft(r, FftType::IRFFT, {4});
  Value c = convert(f.arg(0), DType::c64);
  Value full = fft(c, FftType::FFT, {4});
  Value inv = fft(full, FftType::IFFT, {4});
  f.ret({real(r), imag(r), back, real(inv)});
  auto out = run(m, {Array::from<float>({4}, {1, 2, 3, 4})});
  expect_near(values(out[0]), {10, -2, -2});
  expect_near(values(out[1]), {0, 2, 0});
  expect_near(values(out[2]), {1, 2, 3, 4});
  expect_near(values(out[3]), {1, 2, 3, 4});
}

TEST(LinalgExec, ReducePrecision) {
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {3}}});
  f.ret({reduce_precision(f.arg(0), 5, 10)});
  auto out = run(m, {Array::from<float>({3}, {1.0009765625f, 3.14159265f, 131008.0f})});
  auto v = values(out[0]);
  EXPECT_EQ(v[0], 1.0009765625);
  EXPECT_EQ(v[1], 3.140625);
  EXPECT_TRUE(std::isinf(v[2]));
}

}  // namespace
}  // namespace hhlo
