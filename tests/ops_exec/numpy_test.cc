// Execution of the NumPy-style layer on the CPU plugin; expected values from NumPy (computed once
// with .venv/bin/python and pasted) or by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "exec_util.h"
#include "hhlo/ops/ops.h"

namespace hhlo {
namespace {

using test::run;
using test::values;
TensorType f32(Dims d) { return {DType::f32, std::move(d)}; }

void expect_near(const std::vector<double>& got, const std::vector<double>& want,
                 double tol = 1e-5) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

TEST(NumpyExec, BroadcastingArithmeticAndScalars) {
  Module m;
  Func& f = m.add_func("main", {f32({2, 3}), f32({3}), f32({2, 1})});
  Tensor x = f.arg(0), row = f.arg(1), col = f.arg(2);
  f.ret({x + row, x * col, 1.0 - x / 2, -row, np::maximum(x, row)});
  auto out = run(m, {Array::from<float>({2, 3}, {1, 2, 3, 4, 5, 6}),
                     Array::from<float>({3}, {10, 20, 30}), Array::from<float>({2, 1}, {2, 3})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{2, 4, 6, 12, 15, 18}));
  EXPECT_EQ(values(out[2]), (std::vector<double>{0.5, 0, -0.5, -1, -1.5, -2}));
  EXPECT_EQ(values(out[3]), (std::vector<double>{-10, -20, -30}));
  EXPECT_EQ(values(out[4]), (std::vector<double>{10, 20, 30, 10, 20, 30}));
}

TEST(NumpyExec, Reductions) {
  Module m;
  Func& f = m.add_func("main", {f32({2, 3})});
  Tensor x = f.arg(0);
  f.ret({np::sum(x), np::sum(x, {0}), np::mean(x, {1}, true), np::max(x, {-1}), np::min(x),
         np::argmax(x, 1), np::argmin(x, 0), np::logsumexp(x, {1})});
  auto out = run(m, {Array::from<float>({2, 3}, {1, 9, 3, 8, 2, 8})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{31}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{9, 11, 11}));
  EXPECT_EQ(out[2].dims(), (Dims{2, 1}));
  expect_near(values(out[2]), {13.0 / 3, 6});
  EXPECT_EQ(values(out[3]), (std::vector<double>{9, 8}));
  EXPECT_EQ(values(out[4]), (std::vector<double>{1}));
  EXPECT_EQ(out[5].to_vector<int32_t>(), (std::vector<int32_t>{1, 0}));  // tie 8,8 -> first
  EXPECT_EQ(out[6].to_vector<int32_t>(), (std::vector<int32_t>{0, 1, 0}));
  expect_near(values(out[7]), {std::log(std::exp(1.0) + std::exp(9.0) + std::exp(3.0)),
                               std::log(2 * std::exp(8.0) + std::exp(2.0))});
}

TEST(NumpyExec, SoftmaxStable) {
  Module m;
  Func& f = m.add_func("main", {f32({2, 3}), f32({2})});
  f.ret({np::softmax(f.arg(0)), np::log_softmax(f.arg(0)), np::softmax(f.arg(1))});
  auto out = run(
      m, {Array::from<float>({2, 3}, {1, 2, 3, 4, 5, 7}), Array::from<float>({2}, {1000, 1000})});
  expect_near(values(out[0]), {0.09003057330846786, 0.2447284609079361, 0.6652409434318542,
                               0.04201006516814232, 0.11419519782066345, 0.8437947034835815});
  expect_near(values(out[1]), {-2.4076061248779297, -1.4076060056686401, -0.40760600566864014,
                               -3.1698460578918457, -2.1698460578918457, -0.16984602808952332});
  expect_near(values(out[2]), {0.5, 0.5});
}

TEST(NumpyExec, MatmulEinsum) {
  Module m;
  Func& f = m.add_func("main", {f32({2, 3, 4}), f32({4, 2}), f32({4})});
  Tensor a = f.arg(0), b = f.arg(1), v = f.arg(2);
  f.ret({np::matmul(a, b), np::einsum("bij,jk->bki", a, b), np::matmul(a, v), np::matmul(v, b)});
  std::vector<float> av(24), bv(8);
  for (int i = 0; i < 24; ++i) av[static_cast<size_t>(i)] = static_cast<float>(i);
  for (int i = 0; i < 8; ++i) bv[static_cast<size_t>(i)] = static_cast<float>(i);
  auto out = run(m, {Array::from<float>({2, 3, 4}, av), Array::from<float>({4, 2}, bv),
                     Array::from<float>({4}, {1, 0, 0, 1})});
  EXPECT_EQ(out[0].dims(), (Dims{2, 3, 2}));
  EXPECT_EQ(values(out[0]),
            (std::vector<double>{28, 34, 76, 98, 124, 162, 172, 226, 220, 290, 268, 354}));
  EXPECT_EQ(out[1].dims(), (Dims{2, 2, 3}));
  EXPECT_EQ(values(out[1]),
            (std::vector<double>{28, 76, 124, 34, 98, 162, 172, 220, 268, 226, 290, 354}));
  EXPECT_EQ(out[2].dims(), (Dims{2, 3}));
  EXPECT_EQ(values(out[2]), (std::vector<double>{3, 11, 19, 27, 35, 43}));
  EXPECT_EQ(values(out[3]), (std::vector<double>{6, 8}));
}

TEST(NumpyExec, EinsumPresum) {
  Module m;
  Func& f = m.add_func("main", {f32({3, 4}), f32({3, 4})});
  f.ret({np::einsum("ij,kj->k", f.arg(0), f.arg(1))});
  std::vector<float> a(12), b(12);
  for (int i = 0; i < 12; ++i)
    a[static_cast<size_t>(i)] = static_cast<float>(i),
    b[static_cast<size_t>(i)] = static_cast<float>(12 + i);
  auto out = run(m, {Array::from<float>({3, 4}, a), Array::from<float>({3, 4}, b)});
  EXPECT_EQ(values(out[0]), (std::vector<double>{906, 1170, 1434}));
}

TEST(NumpyExec, WhereAstypeStackSplitTakeTopk) {
  Module m;
  Func& f = m.add_func("main", {f32({2, 3}), {DType::i32, {2}}});
  Tensor x = f.arg(0);
  auto parts = np::split(x, 3, 1);
  auto [vals, idx] = np::topk(x, 2);
  f.ret({np::where(np::greater(x, np::scalar(f, 2.5, DType::f32)), x, np::full_like(x, 0)),
         np::astype(x, DType::i32), np::stack({x, x}, 1), parts[2], np::take(x, f.arg(1), 1),
         np::take(x, f.arg(1), 0), vals, idx});
  auto out =
      run(m, {Array::from<float>({2, 3}, {1, 5, 3, 4, 2, 6}), Array::from<int32_t>({2}, {2, -3})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{0, 5, 3, 4, 0, 6}));
  EXPECT_EQ(out[1].to_vector<int32_t>(), (std::vector<int32_t>{1, 5, 3, 4, 2, 6}));
  EXPECT_EQ(out[2].dims(), (Dims{2, 2, 3}));
  EXPECT_EQ(values(out[2]), (std::vector<double>{1, 5, 3, 1, 5, 3, 4, 2, 6, 4, 2, 6}));
  EXPECT_EQ(values(out[3]), (std::vector<double>{3, 6}));
  EXPECT_EQ(out[4].dims(), (Dims{2, 2}));  // -3 wraps to column 0
  EXPECT_EQ(values(out[4]), (std::vector<double>{3, 1, 6, 4}));
  EXPECT_EQ(out[5].dims(), (Dims{2, 3}));  // rows 1 (clamped from 2) and 0 (-3 + 2 = -1, clamped)
  EXPECT_EQ(values(out[5]), (std::vector<double>{4, 2, 6, 1, 5, 3}));
  EXPECT_EQ(values(out[6]), (std::vector<double>{5, 3, 6, 4}));
  EXPECT_EQ(out[7].to_vector<int32_t>(), (std::vector<int32_t>{1, 2, 2, 0}));
}

}  // namespace
}  // namespace hhlo
