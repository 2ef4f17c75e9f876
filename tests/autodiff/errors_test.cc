// Bad input to grad / vjp: each error is raised with a message naming the problem.
#include <gtest/gtest.h>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/autodiff/vjp_registry.h"
#include "hhlo/ir/ops.h"
#include "hhlo/session.h"

namespace hhlo {
namespace {

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(AutodiffErrors, GradWithRespectToAnIntegerTensor) {
  Module m;
  Func& f = m.add_func("main", {{DType::i32, {3}}, {DType::f32, {3}}});
  Value loss = ad::reduce_sum(multiply(convert(f.arg(0), DType::f32), f.arg(1)), {0});
  EXPECT_NE(error_of([&] { ad::grad(loss, {f.arg(0)}); }).find("integer tensor"),
            std::string::npos);
  ad::Params p{{"ids", f.arg(0)}, {"w", f.arg(1)}};
  std::string msg = error_of([&] { ad::grad(loss, p, {"ids"}); });
  EXPECT_NE(msg.find("'ids'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("integer"), std::string::npos) << msg;
  // Selecting only the float parameter works.
  EXPECT_EQ(ad::grad(loss, p, {"w"}).size(), 1u);
}

TEST(AutodiffErrors, WrtNamingAMissingParameter) {
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {2}}, {DType::f32, {2}}});
  ad::Params p{{"dense/w", f.arg(0)}, {"dense/b", f.arg(1)}};
  Value loss = ad::reduce_sum(multiply(f.arg(0), f.arg(1)), {0});
  std::string msg = error_of([&] { ad::grad(loss, p, {"dense/kernel"}); });
  EXPECT_NE(msg.find("'dense/kernel' names no parameter"), std::string::npos) << msg;
  EXPECT_NE(msg.find("dense/b, dense/w"), std::string::npos) << msg;
  // A prefix selects the nested names.
  ad::Params g = ad::grad(loss, p, {"dense"});
  EXPECT_EQ(g.names(), (std::vector<std::string>{"dense/b", "dense/w"}));
}

TEST(AutodiffErrors, NonScalarLoss) {
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {2}}});
  std::string msg = error_of([&] { ad::grad(exponential(f.arg(0)), {f.arg(0)}); });
  EXPECT_NE(msg.find("scalar loss"), std::string::npos) << msg;
  EXPECT_NE(msg.find("tensor<2xf32>"), std::string::npos) << msg;
}

TEST(AutodiffErrors, OpWithoutRuleIsNamed) {
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {2}}});
  Value y = f.append(OpState{"stablehlo.custom_call",
                             {f.arg(0)},
                             {{DType::f32, {2}}},
                             {{"call_target_name", StringAttr{"my_kernel"}}},
                             {},
                             {}})[0];
  Value loss = ad::reduce_sum(y, {0});
  std::string msg = error_of([&] { ad::grad(loss, {f.arg(0)}); });
  EXPECT_NE(msg.find("no VJP rule for op 'stablehlo.custom_call'"), std::string::npos) << msg;
}

TEST(AutodiffErrors, RuleWithWrongArityIsReported) {
  ad::register_vjp("test.bad_arity", [](const Op&, const std::vector<ad::Cotangent>&) {
    return std::vector<ad::Cotangent>{};
  });
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {}}});
  Value y = f.append(OpState{"test.bad_arity", {f.arg(0)}, {{DType::f32, {}}}, {}, {}, {}})[0];
  std::string msg = error_of([&] { ad::grad(y, {f.arg(0)}); });
  EXPECT_NE(msg.find("returned 0 cotangents for 1 operands"), std::string::npos) << msg;
}

TEST(Autodiff, UnusedInputGetsZerosAndSharedUsesAccumulate) {
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {2}}, {DType::f32, {2}}});
  Value x = f.arg(0);
  Value loss = ad::reduce_sum(add(multiply(x, x), x), {0});  // d/dx = 2x + 1
  f.ret(ad::grad(loss, {x, f.arg(1)}));
  auto out = run(m, {Array::from<float>({2}, {1.5f, -2.0f}), Array::from<float>({2}, {7, 7})});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{4.0f, -3.0f}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{0.0f, 0.0f}));
}

TEST(Autodiff, ValueAndGradOverNamedParams) {
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {}}, {DType::f32, {}}});
  ad::Params p{{"a", f.arg(0)}, {"b", f.arg(1)}};
  auto [loss, g] = ad::value_and_grad(
      [](const ad::Params& q) { return multiply(q.at("a"), exponential(q.at("b"))); }, p);
  f.ret({loss, g.at("a"), g.at("b")});
  auto out = run(m, {Array::from<float>({}, {3.0f}), Array::from<float>({}, {0.0f})});
  EXPECT_FLOAT_EQ(out[0].to_vector<float>()[0], 3.0f);
  EXPECT_FLOAT_EQ(out[1].to_vector<float>()[0], 1.0f);  // e^0
  EXPECT_FLOAT_EQ(out[2].to_vector<float>()[0], 3.0f);  // a e^b
}

TEST(Autodiff, ValueAndGradFuncSelectsArguments) {
  Module m;
  // f(x, n, y) = sum(x * y) * 2 with an integer argument n in between; gradient w.r.t. y only.
  ad::value_and_grad_func(m, "main", {{DType::f32, {2}}, {DType::i32, {}}, {DType::f32, {2}}},
                          [](const std::vector<Value>& a) {
                            Value s = ad::reduce_sum(multiply(a[0], a[2]), {0});
                            return multiply(s, convert(a[1], DType::f32));
                          },
                          {2});
  auto out = run(m, {Array::from<float>({2}, {3, 4}), Array::from<int32_t>({}, {2}),
                     Array::from<float>({2}, {1, 1})});
  EXPECT_EQ(out.size(), 2u);
  EXPECT_FLOAT_EQ(out[0].to_vector<float>()[0], 14.0f);
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{6, 8}));
  Module m2;
  EXPECT_THROW(ad::value_and_grad_func(
                   m2, "main", {{DType::i32, {}}},
                   [](const std::vector<Value>& a) { return convert(a[0], DType::f32); }, {1}),
               Error);
}

TEST(Autodiff, VjpFuncBuildsABackwardFunction) {
  Module m;
  ad::vjp_func(m, "main", {{DType::f32, {2}}}, [](const std::vector<Value>& a) {
    return std::vector<Value>{multiply(a[0], a[0])};
  });
  auto out = run(m, {Array::from<float>({2}, {3, 4}), Array::from<float>({2}, {1, 10})});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{9, 16}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{6, 80}));
}

}  // namespace
}  // namespace hhlo

namespace hhlo {
namespace {

TEST(Autodiff, RulesSkipCotangentsOfInactiveOperands) {
  // loss = sum(x @ w): only w is differentiated, so the backward has one dot_general (for w),
  // not a second one for the data x.
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {4, 3}}, {DType::f32, {3, 2}}});
  Value y = dot_general(f.arg(0), f.arg(1),
                        {.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}});
  Value gw = ad::grad(ad::reduce_sum(y, {0, 1}), {f.arg(1)})[0];
  f.ret({gw});
  int dots = 0;
  for (const auto& op : f.body().ops()) dots += op->name() == "stablehlo.dot_general";
  EXPECT_EQ(dots, 2);
  EXPECT_TRUE(ad::needs_cotangent(0));  // outside a rule
  // d sum(x @ w) / dw[k, j] = sum_i x[i, k].
  auto out = run(m, {Array::from<float>({4, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}),
                     Array(DType::f32, {3, 2})});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{22, 22, 26, 26, 30, 30}));
}

}  // namespace
}  // namespace hhlo
