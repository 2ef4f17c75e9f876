// Finite-difference checks (f64, on the CPU plugin) of the elementwise, compare/select/clamp and
// convert VJP rules.
#include <gtest/gtest.h>

#include "gradcheck_util.h"
#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

using test::check_grad;
using test::rand_f64;
using Vs = std::vector<Value>;

struct UnaryCase {
  const char* op;
  double lo, hi;
};

class UnaryRule : public ::testing::TestWithParam<UnaryCase> {};

TEST_P(UnaryRule, MatchesFiniteDifferences) {
  const UnaryCase& c = GetParam();
  check_grad({rand_f64({2, 3}, 1, c.lo, c.hi)}, [&](const Vs& a) { return unary(c.op, a[0]); });
}

INSTANTIATE_TEST_SUITE_P(Autodiff, UnaryRule,
                         ::testing::Values(UnaryCase{"negate", -2, 2}, UnaryCase{"abs", 0.2, 2},
                                           UnaryCase{"exponential", -1, 1},
                                           UnaryCase{"exponential_minus_one", -1, 1},
                                           UnaryCase{"log", 0.5, 2},
                                           UnaryCase{"log_plus_one", -0.5, 2},
                                           UnaryCase{"logistic", -3, 3}, UnaryCase{"tanh", -2, 2},
                                           UnaryCase{"sqrt", 0.5, 2}, UnaryCase{"rsqrt", 0.5, 2},
                                           UnaryCase{"cbrt", 0.5, 2}, UnaryCase{"sine", -2, 2},
                                           UnaryCase{"cosine", -2, 2}, UnaryCase{"tan", -1, 1}),
                         [](const auto& info) { return std::string(info.param.op); });

TEST(AutodiffZeroRules, PiecewiseConstantOpsHaveZeroGradient) {
  for (const char* op : {"floor", "ceil", "sign", "round_nearest_afz", "round_nearest_even"}) {
    // Away from the jumps the finite difference is 0 too.
    auto g = check_grad({Array::from<double>({3}, {0.3, 1.7, -2.2})},
                        [&](const Vs& a) { return add(unary(op, a[0]), a[0]); });
    // d(sum((op(x) + x) * w))/dx = w: only the identity path contributes.
    EXPECT_EQ(g[0].to_vector<double>(), test::rand_f64({3}, 12345, 0.5, 1.5).to_vector<double>())
        << op;
  }
}

struct BinaryCase {
  const char* op;
  double lo, hi;
};
class BinaryRule : public ::testing::TestWithParam<BinaryCase> {};

TEST_P(BinaryRule, MatchesFiniteDifferences) {
  const BinaryCase& c = GetParam();
  check_grad({rand_f64({2, 3}, 2, c.lo, c.hi), rand_f64({2, 3}, 3, c.lo, c.hi)},
             [&](const Vs& a) { return binary(c.op, a[0], a[1]); });
}

INSTANTIATE_TEST_SUITE_P(Autodiff, BinaryRule,
                         ::testing::Values(BinaryCase{"add", -2, 2}, BinaryCase{"subtract", -2, 2},
                                           BinaryCase{"multiply", -2, 2},
                                           BinaryCase{"divide", 0.5, 2},
                                           BinaryCase{"maximum", -2, 2},
                                           BinaryCase{"minimum", -2, 2},
                                           BinaryCase{"power", 0.5, 2}, BinaryCase{"atan2", 0.2, 2},
                                           BinaryCase{"remainder", 0.3, 2}),
                         [](const auto& info) { return std::string(info.param.op); });

TEST(AutodiffRules, MaximumSplitsTiesEvenly) {
  // JAX convention: d max(x, x) / dx through both operands = 0.5 + 0.5.
  Array x = Array::from<double>({2}, {1.0, -1.0});
  auto g = check_grad(
      {x, x}, [](const Vs& a) { return maximum(a[0], a[1]); }, {0}, 1e-6, 1e9);
  auto gw = g[0].to_vector<double>();
  Array w = test::rand_f64({2}, 12345, 0.5, 1.5);
  EXPECT_NEAR(gw[0], 0.5 * w.to_vector<double>()[0], 1e-12);
}

TEST(AutodiffRules, SelectGivesNoGradientToThePredicate) {
  check_grad({rand_f64({4}, 4), rand_f64({4}, 5), rand_f64({4}, 6)}, [](const Vs& a) {
    Value p = compare(a[0], constant(a[0].func(), 0.0, DType::f64, {4}), ComparisonDirection::GT);
    return select(p, multiply(a[1], a[0]), a[2]);
  });
}

TEST(AutodiffRules, Clamp) {
  Array x = Array::from<double>({5}, {-1.5, -0.3, 0.2, 0.7, 1.9});
  check_grad({Array::from<double>({5}, {-0.5, -0.5, -0.5, -0.5, -0.5}), x,
              Array::from<double>({5}, {0.5, 0.5, 0.5, 0.5, 0.5})},
             [](const Vs& a) { return clamp(a[0], a[1], a[2]); });
  // Scalar bounds receive the summed cotangent.
  check_grad({Array::from<double>({}, {-0.5}), x, Array::from<double>({}, {0.5})},
             [](const Vs& a) { return clamp(a[0], a[1], a[2]); });
}

TEST(AutodiffRules, ConvertRoundTripsThroughF32) {
  check_grad(
      {rand_f64({3}, 7)},
      [](const Vs& a) {
        Value y = convert(a[0], DType::f32);
        return convert(multiply(y, y), DType::f64);
      },
      {}, 1e-3, 1e-4);
}

}  // namespace
}  // namespace hhlo
