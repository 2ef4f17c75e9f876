// jacfwd / jacrev / hessian with a set of argnums (issue 23), JAX's `argnums=(0, 1)`: one block
// per argnum, the Hessian's cross blocks included. Hand-derived for f(x, y) = sum(x^2 * y) with
// x, y of dims [2]: grad_x = 2 x y, grad_y = x^2; H_xx = diag(2y), H_xy = H_yx = diag(2x),
// H_yy = 0. For g(x, y) = x * y: J_x = diag(y), J_y = diag(x).
#include <gtest/gtest.h>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ops/reductions.h"
#include "hhlo/session.h"

namespace hhlo {
namespace {

using Vs = std::vector<Value>;

std::vector<double> diag(double a, double b) { return {a, 0, 0, b}; }

TEST(Argnums, JacfwdAndJacrevGiveOneBlockPerArgnum) {
  Module m;
  Func& f = m.add_func("main", {{DType::f64, {2}}, {DType::f64, {2}}});
  ad::TraceFn g = [](const Vs& a) { return Vs{multiply(a[0], a[1])}; };
  auto fwd = ad::jacfwd(g, {f.arg(0), f.arg(1)}, std::vector<size_t>{0, 1});
  auto rev = ad::jacrev(g, {f.arg(0), f.arg(1)}, std::vector<size_t>{1, 0});
  ASSERT_EQ(fwd.size(), 1u);
  ASSERT_EQ(fwd[0].size(), 2u);
  ASSERT_EQ(rev[0].size(), 2u);
  f.ret({fwd[0][0], fwd[0][1], rev[0][0], rev[0][1]});
  auto out = run(m, {Array::from<double>({2}, {3, 5}), Array::from<double>({2}, {7, 11})});
  EXPECT_EQ(out[0].to_vector<double>(), diag(7, 11));  // d(xy)/dx = diag(y)
  EXPECT_EQ(out[1].to_vector<double>(), diag(3, 5));   // d(xy)/dy = diag(x)
  EXPECT_EQ(out[2].to_vector<double>(), diag(3, 5));   // argnums (1, 0): y first
  EXPECT_EQ(out[3].to_vector<double>(), diag(7, 11));
}

TEST(Argnums, HessianHasTheCrossBlocks) {
  Module m;
  Func& f = m.add_func("main", {{DType::f64, {2}}, {DType::f64, {2}}});
  ad::ScalarFn loss = [](const Vs& a) {
    return Value(np::sum(multiply(multiply(a[0], a[0]), a[1])));
  };
  auto h = ad::hessian(loss, {f.arg(0), f.arg(1)}, std::vector<size_t>{0, 1});
  ASSERT_EQ(h.size(), 2u);
  f.ret({h[0][0], h[0][1], h[1][0], h[1][1]});
  auto out = run(m, {Array::from<double>({2}, {3, 5}), Array::from<double>({2}, {7, 11})});
  EXPECT_EQ(out[0].to_vector<double>(), diag(14, 22));  // 2y
  EXPECT_EQ(out[1].to_vector<double>(), diag(6, 10));   // 2x
  EXPECT_EQ(out[2].to_vector<double>(), diag(6, 10));
  EXPECT_EQ(out[3].to_vector<double>(), diag(0, 0));
}

TEST(Argnums, EmptyRepeatedOrOutOfRangeArgnumsAreErrors) {
  Module m;
  Func& f = m.add_func("main", {{DType::f64, {2}}, {DType::f64, {2}}});
  ad::TraceFn g = [](const Vs& a) { return Vs{multiply(a[0], a[1])}; };
  EXPECT_THROW(ad::jacfwd(g, {f.arg(0), f.arg(1)}, std::vector<size_t>{}), Error);
  EXPECT_THROW(ad::jacrev(g, {f.arg(0), f.arg(1)}, std::vector<size_t>{0, 0}), Error);
  EXPECT_THROW(ad::jacfwd(g, {f.arg(0), f.arg(1)}, std::vector<size_t>{2}), Error);
}

}  // namespace
}  // namespace hhlo
