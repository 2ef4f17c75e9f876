// Finite-difference checks of if / case / while, and custom_vjp for custom calls.
#include <gtest/gtest.h>

#include "gradcheck_util.h"
#include "hhlo/autodiff/autodiff.h"
#include "hhlo/autodiff/vjp_registry.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ir/printer.h"

namespace hhlo {
namespace {

using test::check_grad;
using test::rand_f64;
using Vs = std::vector<Value>;

TEST(AutodiffControlFlow, IfDifferentiatesTheTakenBranchesCaptures) {
  for (double sel : {1.0, -1.0}) {
    SCOPED_TRACE(sel);
    check_grad(
        {rand_f64({3}, 1), rand_f64({3}, 2), Array::from<double>({}, {sel})},
        [](const Vs& a) {
          Value p = compare(a[2], constant(a[2].func(), 0.0, DType::f64), ComparisonDirection::GT);
          return if_(
              p, [&] { return Vs{multiply(a[0], a[1])}; }, [&] { return Vs{sine(a[0])}; })[0];
        },
        {0, 1});
  }
}

TEST(AutodiffControlFlow, CaseWithThreeBranches) {
  for (int32_t k : {0, 1, 2}) {
    SCOPED_TRACE(k);
    check_grad({rand_f64({2}, 3), Array::from<int32_t>({}, {k})}, [](const Vs& a) {
      return case_(a[1], {[&] { return Vs{exponential(a[0])}; },
                          [&] { return Vs{multiply(a[0], a[0])}; }, [&] { return Vs{a[0]}; }})[0];
    });
  }
}

TEST(AutodiffControlFlow, WhileWithStaticTripCountIsUnrolled) {
  // x_{k+1} = tanh(x_k * w) four times; gradients w.r.t. the carried x and the captured w.
  check_grad({rand_f64({3}, 4), rand_f64({3}, 5)}, [](const Vs& a) {
    Func& f = a[0].func();
    Value w = a[1];
    auto r = while_loop(
        {constant(f, 0, DType::i32), a[0]},
        [&](const Vs& s) {
          return Vs{compare(s[0], constant(f, 4, DType::i32), ComparisonDirection::LT)};
        },
        [&](const Vs& s) {
          return Vs{add(s[0], constant(f, 1, DType::i32)), tanh(multiply(s[1], w))};
        });
    return r[1];
  });
}

TEST(AutodiffControlFlow, WhileWithoutStaticTripCountIsAClearError) {
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {}}});
  auto r = while_loop(
      {f.arg(0)},
      [&](const Vs& s) {
        return Vs{compare(s[0], constant(f, 10.0f, DType::f32), ComparisonDirection::LT)};
      },
      [&](const Vs& s) { return Vs{multiply(s[0], constant(f, 2.0f, DType::f32))}; });
  try {
    ad::grad(r[0], {f.arg(0)});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("static trip count"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("stablehlo.while"), std::string::npos) << e.what();
  }
}

TEST(AutodiffCustomVjp, RegisteredBackwardIsUsedAndMissingOneIsNamed) {
  // Forward: a custom call (never executed here); backward registered as 3 * g.
  ad::register_custom_vjp("test_triple", [](const Op& op, const std::vector<ad::Cotangent>& cts) {
    std::vector<ad::Cotangent> out(op.operands().size());
    if (cts[0]) out[0] = multiply(*cts[0], ad::full_like(*cts[0], 3.0));
    return out;
  });
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {2}}});
  Value y = custom_call(f, "test_triple", {f.arg(0)}, {{DType::f32, {2}}})[0];
  Value y2 = custom_call(f, "test_unknown", {f.arg(0)}, {{DType::f32, {2}}})[0];
  Value g = ad::vjp({y}, ad::Wrt{f.arg(0)}, ad::Cotangents{ad::full_like(y, 1.0)})[0];
  EXPECT_EQ(g.type(), y.type());
  const Op* mul = g.defining_op();
  ASSERT_NE(mul, nullptr);
  EXPECT_EQ(mul->name(), "stablehlo.multiply");
  try {
    ad::vjp({y2}, ad::Wrt{f.arg(0)}, ad::Cotangents{ad::full_like(y2, 1.0)});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("target 'test_unknown'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hhlo

namespace hhlo {
namespace {

TEST(AutodiffControlFlow, OptimizationBarrierAndReducePrecisionPassCotangentsThrough) {
  test::check_grad({test::rand_f64({3}, 21), test::rand_f64({3}, 22)},
                   [](const std::vector<Value>& a) {
                     auto b = optimization_barrier({a[0], a[1]});
                     // f64 keeps all its bits: reduce_precision(11, 52) is the identity, so FD sees
                     // the same values.
                     return multiply(reduce_precision(b[0], 11, 52), sine(b[1]));
                   });
}

}  // namespace
}  // namespace hhlo

namespace hhlo {
namespace {

TEST(AutodiffControlFlow, WhileOperandAlsoCapturedByTheBodyGetsItsCotangentOnce) {
  // c_{k+1} = tanh(c_k * y + x), c_0 = x: x is both the initial carry and captured by the body
  // (it used to receive its total cotangent twice).
  test::check_grad({test::rand_f64({3}, 31), test::rand_f64({3}, 32)},
                   [](const std::vector<Value>& a) {
                     Func& f = a[0].func();
                     Value x = a[0], y = a[1];
                     return while_loop(
                         {constant(f, 0, DType::i32), x},
                         [&](const std::vector<Value>& s) {
                           return std::vector<Value>{
                               compare(s[0], constant(f, 3, DType::i32), ComparisonDirection::LT)};
                         },
                         [&](const std::vector<Value>& s) {
                           return std::vector<Value>{add(s[0], constant(f, 1, DType::i32)),
                                                     tanh(add(multiply(s[1], y), x))};
                         })[1];
                   });
}

}  // namespace
}  // namespace hhlo
