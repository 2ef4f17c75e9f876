// Forward mode: hand-derived jvp / jacfwd / jacrev / hessian / hvp values, while loops with a
// data-dependent trip count, custom calls with and without a registered JVP, errors naming the
// op, and the closure property higher-order derivatives need: every op a VJP rule emits has a JVP
// rule (enumerated over programs that exercise every registered VJP rule).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <set>

#include "gradcheck_util.h"
#include "hhlo/autodiff/autodiff.h"
#include "hhlo/autodiff/jvp_registry.h"
#include "hhlo/autodiff/vjp_registry.h"
#include "hhlo/ir/conv_dimension_numbers.h"
#include "hhlo/ir/ops.h"
#include "hhlo/session.h"

namespace hhlo {
namespace {

using test::check_jvp;
using test::rand_f64;
using Vs = std::vector<Value>;

TEST(AutodiffJvp, HandDerivedSineTimesY) {
  // f(x, y) = sin(x) * y; df = cos(x) y dx + sin(x) dy.
  Module m;
  Func& f = m.add_func(
      "main", {{DType::f64, {3}}, {DType::f64, {3}}, {DType::f64, {3}}, {DType::f64, {3}}});
  auto [ys, ts] = ad::jvp([](const Vs& a) { return Vs{multiply(sine(a[0]), a[1])}; },
                          {f.arg(0), f.arg(1)}, {f.arg(2), f.arg(3)});
  f.ret({ys[0], ts[0]});
  std::vector<double> x = {0.1, -0.7, 1.3}, y = {2.0, 0.5, -1.0}, dx = {1.0, 0.0, -2.0},
                      dy = {0.0, 3.0, 0.5};
  auto out = run(
      m, {Array::from<double>({3}, {0.1, -0.7, 1.3}), Array::from<double>({3}, {2.0, 0.5, -1.0}),
          Array::from<double>({3}, {1.0, 0.0, -2.0}), Array::from<double>({3}, {0.0, 3.0, 0.5})});
  auto p = out[0].to_vector<double>(), t = out[1].to_vector<double>();
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(p[i], std::sin(x[i]) * y[i], 1e-15);
    EXPECT_NEAR(t[i], std::cos(x[i]) * y[i] * dx[i] + std::sin(x[i]) * dy[i], 1e-15);
  }
}

TEST(AutodiffJvp, ComplexPrimalsHolomorphicAndAbs) {
  // d exp(z) = exp(z) t, d(z * w) = t w + z s (complex-linear); d|z| = real(conj(z) t) / |z|.
  std::vector<std::complex<double>> z = {{0.3, -0.4}, {-1.0, 0.5}}, w = {{0.7, 0.2}, {0.1, -0.9}},
                                    t = {{1.0, 0.5}, {-0.2, 0.3}}, sv = {{0.0, 1.0}, {0.5, 0.5}};
  auto arr = [](const std::vector<std::complex<double>>& v) {
    Array a(DType::c128, {2});
    auto* p = static_cast<double*>(a.data());
    for (size_t i = 0; i < v.size(); ++i) p[2 * i] = v[i].real(), p[2 * i + 1] = v[i].imag();
    return a;
  };
  Module m;
  TensorType c{DType::c128, {2}};
  Func& f = m.add_func("main", {c, c, c, c});
  auto ts = ad::jvp({exponential(f.arg(0)), multiply(f.arg(0), f.arg(1)), abs(f.arg(0))},
                    ad::Wrt{f.arg(0), f.arg(1)}, ad::Tangents{f.arg(2), f.arg(3)});
  f.ret(ts);
  auto out = run(m, {arr(z), arr(w), arr(t), arr(sv)});
  auto get = [](const Array& a, size_t i) {
    const auto* p = static_cast<const double*>(a.data());
    return std::complex<double>(p[2 * i], p[2 * i + 1]);
  };
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_LT(std::abs(get(out[0], i) - std::exp(z[i]) * t[i]), 1e-14);
    EXPECT_LT(std::abs(get(out[1], i) - (t[i] * w[i] + z[i] * sv[i])), 1e-14);
    EXPECT_NEAR(out[2].to_vector<double>()[i], std::real(std::conj(z[i]) * t[i]) / std::abs(z[i]),
                1e-14);
  }
}

TEST(AutodiffJvp, OutputsIndependentOfTheInputsGetZeroTangents) {
  Module m;
  Func& f = m.add_func("main", {{DType::f64, {2}}, {DType::f64, {2}}});
  Value c = constant(f, 2.0, DType::f64, {2});
  Value i = iota(f, {DType::i32, {2}}, 0);
  auto t = ad::jvp({c, i, f.arg(0)}, ad::Wrt{f.arg(0)}, ad::Tangents{f.arg(1)});
  f.ret(t);
  auto out = run(m, {Array::from<double>({2}, {1, 2}), Array::from<double>({2}, {5, 6})});
  EXPECT_EQ(out[0].to_vector<double>(), (std::vector<double>{0, 0}));
  EXPECT_EQ(out[1].to_vector<int32_t>(), (std::vector<int32_t>{0, 0}));
  EXPECT_EQ(out[2].to_vector<double>(), (std::vector<double>{5, 6}));
}

TEST(AutodiffJvp, WhileWithDataDependentTripCount) {
  // Double x until its sum exceeds 10: the trip count depends on x (no static count, which reverse
  // mode would need); forward mode carries the tangent through the loop. Also a captured w.
  auto fn = [](const Vs& a) {
    Func& f = a[0].func();
    Value w = a[1];
    auto r = while_loop(
        {a[0]},
        [&](const Vs& s) {
          return Vs{compare(ad::reduce_sum(s[0], {0}), constant(f, 10.0, DType::f64),
                            ComparisonDirection::LT)};
        },
        [&](const Vs& s) {
          return Vs{add(multiply(s[0], constant(f, 2.0, DType::f64, {3})), sine(w))};
        });
    return r[0];
  };
  check_jvp({rand_f64({3}, 1, 0.2, 0.5), rand_f64({3}, 2)}, fn);
}

TEST(AutodiffJvp, JacfwdJacrevAndHessianOfACubic) {
  // f(x) = [x0^2 x1, x0 + x1^3]; J = [[2 x0 x1, x0^2], [1, 3 x1^2]]. L(x) = x0^2 x1 + x1^3:
  // H = [[2 x1, 2 x0], [2 x0, 6 x1]].
  Module m;
  Func& f = m.add_func("main", {{DType::f64, {2}}});
  auto fn = [](const Vs& a) {
    Value x0 = slice(a[0], {0}, {1}), x1 = slice(a[0], {1}, {2});
    return Vs{
        concatenate({multiply(multiply(x0, x0), x1), add(x0, multiply(x1, multiply(x1, x1)))}, 0)};
  };
  Value jf = ad::jacfwd(fn, {f.arg(0)})[0];
  Value jr = ad::jacrev(fn, {f.arg(0)})[0];
  Value h = ad::hessian(
      [](const Vs& a) {
        Value x0 = slice(a[0], {0}, {1}), x1 = slice(a[0], {1}, {2});
        return reshape(add(multiply(multiply(x0, x0), x1), multiply(x1, multiply(x1, x1))), {});
      },
      {f.arg(0)});
  EXPECT_EQ(jf.dims(), (Dims{2, 2}));
  EXPECT_EQ(h.dims(), (Dims{2, 2}));
  f.ret({jf, jr, h});
  double x0 = 0.7, x1 = -1.3;
  auto out = run(m, {Array::from<double>({2}, {x0, x1})});
  std::vector<double> j = {2 * x0 * x1, x0 * x0, 1, 3 * x1 * x1},
                      hh = {2 * x1, 2 * x0, 2 * x0, 6 * x1};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(out[0].to_vector<double>()[i], j[i], 1e-14);
    EXPECT_NEAR(out[1].to_vector<double>()[i], j[i], 1e-14);
    EXPECT_NEAR(out[2].to_vector<double>()[i], hh[i], 1e-14);
  }
}

TEST(AutodiffJvp, HvpOfAQuarticMatchesTheHandDerivedHessian) {
  // L(x) = sum(x^4) / 4 + sum(x)^2 / 2: H = diag(3 x^2) + 1 1^T.
  Module m;
  Func& f = m.add_func("main", {{DType::f64, {3}}, {DType::f64, {3}}});
  Value hv = ad::hvp(
      [](const Vs& a) {
        Value x2 = multiply(a[0], a[0]);
        Value s = ad::reduce_sum(a[0], {0});
        return add(multiply(ad::reduce_sum(multiply(x2, x2), {0}),
                            constant(a[0].func(), 0.25, DType::f64)),
                   multiply(multiply(s, s), constant(a[0].func(), 0.5, DType::f64)));
      },
      {f.arg(0)}, {f.arg(1)})[0];
  f.ret({hv});
  std::vector<double> x = {0.5, -1.0, 2.0}, v = {1.0, 2.0, -0.5};
  auto out = run(m, {Array::from<double>({3}, {0.5, -1.0, 2.0}),
                     Array::from<double>({3}, {1.0, 2.0, -0.5})})[0]
                 .to_vector<double>();
  double sv = v[0] + v[1] + v[2];
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(out[i], 3 * x[i] * x[i] * v[i] + sv, 1e-12);
}

TEST(AutodiffJvp, CustomCallUsesItsRegisteredJvpAndAMissingOneIsNamed) {
  ad::register_custom_jvp("test_jvp_double", [](const Op&, const std::vector<ad::Tangent>& ts) {
    return std::vector<ad::Tangent>{multiply(*ts[0], ad::full_like(*ts[0], 2.0))};
  });
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {2}}, {DType::f32, {2}}});
  Value y = custom_call(f, "test_jvp_double", {f.arg(0)}, {{DType::f32, {2}}})[0];
  Value t = ad::jvp({y}, ad::Wrt{f.arg(0)}, ad::Tangents{f.arg(1)})[0];
  ASSERT_NE(t.defining_op(), nullptr);
  EXPECT_EQ(t.defining_op()->name(), "stablehlo.multiply");
  Value y2 = custom_call(f, "test_jvp_unknown", {f.arg(0)}, {{DType::f32, {2}}})[0];
  try {
    ad::jvp({y2}, ad::Wrt{f.arg(0)}, ad::Tangents{f.arg(1)});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("target 'test_jvp_unknown'"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("register_custom_jvp"), std::string::npos) << e.what();
  }
}

TEST(AutodiffJvp, AnOpWithoutAJvpRuleIsAnErrorNamingIt) {
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {}}, {DType::f32, {}}});
  Value r = rng(f.arg(0), f.arg(1), {3}, RngDistribution::UNIFORM);
  try {
    ad::jvp({r}, ad::Wrt{f.arg(0)}, ad::Tangents{f.arg(1)});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no JVP rule for op 'stablehlo.rng'"), std::string::npos)
        << e.what();
  }
  // Not on the path to the outputs: no error.
  Value ok = ad::jvp({sine(f.arg(0))}, ad::Wrt{f.arg(0)}, ad::Tangents{f.arg(1)})[0];
  EXPECT_EQ(ok.dims(), Dims{});
}

TEST(AutodiffJvp, ArgumentErrors) {
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {2}}, {DType::f64, {2}}, {DType::i32, {2}}});
  EXPECT_THROW(ad::jvp({f.arg(0)}, ad::Wrt{f.arg(0)}, ad::Tangents{f.arg(1)}),
               Error);  // tangent type
  EXPECT_THROW(ad::jvp({f.arg(2)}, ad::Wrt{f.arg(2)}, ad::Tangents{f.arg(2)}),
               Error);                                                          // integer primal
  EXPECT_THROW(ad::jvp({f.arg(0)}, ad::Wrt{f.arg(0)}, ad::Tangents{}), Error);  // count
  try {
    ad::jvp({cbrt(complex(f.arg(0), f.arg(0)))}, ad::Wrt{f.arg(0)}, ad::Tangents{f.arg(0)});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("JVP of 'stablehlo.cbrt'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("complex"), std::string::npos) << e.what();
  }
}

// ---- closure: the ops VJP rules emit have JVP rules

// Every op in `b` (and in the if / case / while regions inside it, which the forward walk
// differentiates) that has a float or complex operand or result.
void differentiable_ops(const Block& b, std::set<std::string>& out) {
  for (const auto& op : b.ops()) {
    bool inexact = false;
    for (Value v : op->operands())
      inexact = inexact || is_float(v.dtype()) || is_complex(v.dtype());
    for (Value v : op->results()) inexact = inexact || is_float(v.dtype()) || is_complex(v.dtype());
    if (inexact && op->name() != "stablehlo.return" && op->name() != "func.return")
      out.insert(op->name());
    if (op->name() == "stablehlo.if" || op->name() == "stablehlo.case" ||
        op->name() == "stablehlo.while")
      for (const auto& r : op->regions()) differentiable_ops(*r, out);
  }
}

TEST(AutodiffJvp, EveryOpThatAVjpRuleEmitsHasAJvpRule) {
  const DType t = DType::f32;
  ConvDimensionNumbers nhwc = conv_dimension_numbers("NHWC", "HWIO", "NHWC");
  // Forward programs exercising every registered VJP rule (a new VJP rule fails the coverage
  // check below until it is added here).
  std::vector<std::function<Value(Func&)>> programs;
  auto x = [](Func& f) { return f.arg(0); };
  for (const char* u : {"negate",
                        "abs",
                        "exponential",
                        "exp2",
                        "exponential_minus_one",
                        "log",
                        "log2",
                        "log_plus_one",
                        "logistic",
                        "tanh",
                        "sqrt",
                        "rsqrt",
                        "cbrt",
                        "sine",
                        "cosine",
                        "tan",
                        "floor",
                        "ceil",
                        "sign",
                        "round_nearest_afz",
                        "round_nearest_even"})
    programs.push_back([=](Func& f) { return unary(u, x(f)); });
  for (const char* b : {"add", "subtract", "multiply", "divide", "maximum", "minimum", "power",
                        "atan2", "remainder"})
    programs.push_back([=](Func& f) { return binary(b, x(f), f.arg(1)); });
  programs.push_back([](Func& f) { return fma(f.arg(0), f.arg(1), f.arg(0)); });
  programs.push_back([](Func& f) {
    Value z = complex(f.arg(0), f.arg(1));
    return add(add(abs(z), real(multiply(z, z))), imag(z));
  });
  programs.push_back([](Func& f) {
    Value p = compare(f.arg(0), f.arg(1), ComparisonDirection::GT);
    Value fin = convert(is_finite(f.arg(0)), t);
    return add(select(p, f.arg(0), f.arg(1)), add(clamp(f.arg(1), f.arg(0), f.arg(1)), fin));
  });
  programs.push_back([](Func& f) {
    return add(convert(convert(f.arg(0), DType::f64), t), iota(f, {t, {2, 3}}, 1));
  });
  programs.push_back([](Func& f) {  // shape ops on [2, 3]
    Value b = broadcast_in_dim(f.arg(0), {4, 2, 3}, {1, 2});
    Value r = reshape(transpose(b, {2, 1, 0}), {3, 8});
    Value s = slice(r, {0, 1}, {3, 7}, {1, 2});
    Value c = concatenate({s, s}, 1);
    Value p = pad(c, constant(f, 0.0f, t), {1, 0}, {0, 1}, {0, 1});
    return reshape(slice(reverse(p, {0}), {0, 0}, {2, 3}), {2, 3});
  });
  programs.push_back([](Func& f) {  // indexing
    std::vector<Value> idx = {constant(f, 0, DType::i32), constant(f, 1, DType::i32)};
    Value d = dynamic_update_slice(f.arg(0), dynamic_slice(f.arg(1), idx, {2, 2}), idx);
    GatherDimensionNumbers gd{.offset_dims = {1},
                              .collapsed_slice_dims = {0},
                              .start_index_map = {0},
                              .index_vector_dim = 1};
    Value rows = constant(f, Array::from<int32_t>({2, 1}, {1, 0}));
    Value g = gather(d, rows, gd, {1, 3});
    ScatterDimensionNumbers sd{.update_window_dims = {1},
                               .inserted_window_dims = {0},
                               .scatter_dims_to_operand_dims = {0},
                               .index_vector_dim = 1};
    Value sa =
        scatter({g}, rows, {f.arg(1)}, sd, [](const Vs& s) { return Vs{add(s[0], s[1])}; })[0];
    Value sr = scatter({sa}, rows, {f.arg(0)}, sd, [](const Vs& s) { return Vs{s[1]}; })[0];
    return sort({sr}, 1,
                [](const Vs& c) { return Vs{compare(c[0], c[1], ComparisonDirection::LT)}; })[0];
  });
  programs.push_back([](Func& f) {
    Value d = dot_general(f.arg(0), f.arg(1),
                          {.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {1}});
    return broadcast_in_dim(ad::reduce_sum(d, {0, 1}), {2, 3}, {});
  });
  programs.push_back([](Func& f) {
    auto red = [&](Value v, const char* op, float init) {
      return reduce(v, constant(f, init, t), {1},
                    [op](Value a, Value b) { return binary(op, a, b); });
    };
    Value s = add(add(red(f.arg(0), "add", 0), red(f.arg(0), "maximum", -1e30f)),
                  add(red(f.arg(0), "minimum", 1e30f), red(f.arg(0), "multiply", 1)));
    return broadcast_in_dim(s, {2, 3}, {0});
  });
  programs.push_back([=](Func& f) {
    Value img = reshape(concatenate({f.arg(0), f.arg(1), f.arg(0), f.arg(1)}, 0), {1, 4, 3, 2});
    Value k = reshape(slice(f.arg(1), {0, 0}, {2, 2}), {1, 1, 2, 2});
    Value k2 = reshape(slice(f.arg(1), {0, 0}, {2, 2}), {1, 1, 1, 4});
    Value c1 = convolution(img, k, nhwc, {.padding = {{0, 0}, {0, 0}}});
    Value c2 = convolution(img, k2, nhwc, {.feature_group_count = 2});
    Value imgb = reshape(concatenate({f.arg(0), f.arg(1), f.arg(0), f.arg(1)}, 0), {2, 2, 3, 2});
    Value c3 = convolution(imgb, k, nhwc, {.batch_group_count = 2});
    Value sum_pool = reduce_window({c1}, {constant(f, 0.0f, t)}, {1, 2, 2, 1}, {},
                                   [](const Vs& a) { return Vs{add(a[0], a[1])}; })[0];
    Value max_pool = reduce_window({c1}, {constant(f, -1e30f, t)}, {1, 2, 2, 1}, {},
                                   [](const Vs& a) { return Vs{maximum(a[0], a[1])}; })[0];
    Value r = add(ad::reduce_sum(add(sum_pool, max_pool), {0, 1, 2, 3}),
                  add(ad::reduce_sum(c2, {0, 1, 2, 3}), ad::reduce_sum(c3, {0, 1, 2, 3})));
    return broadcast_in_dim(r, {2, 3}, {});
  });
  programs.push_back([](Func& f) {
    Value scale = slice(f.arg(1), {0, 0}, {1, 3});
    Value s3 = reshape(scale, {3});
    Value tr = batch_norm_training(f.arg(0), s3, s3, 1e-3f, 1)[0];
    return batch_norm_inference(tr, s3, s3, s3, multiply(s3, s3), 1e-3f, 1);
  });
  programs.push_back([](Func& f) {  // control flow
    Value p = compare(f.arg(0), f.arg(1), ComparisonDirection::GT);
    Value p0 = reshape(slice(p, {0, 0}, {1, 1}), {});
    Value a = if_(
        p0, [&] { return Vs{multiply(f.arg(0), f.arg(1))}; },
        [&] { return Vs{sine(f.arg(0))}; })[0];
    Value k = constant(f, 1, DType::i32);
    Value b = case_(k, {[&] { return Vs{exponential(a)}; }, [&] { return Vs{tanh(a)}; }})[0];
    auto w = while_loop(
        {constant(f, 0, DType::i32), b},
        [&](const Vs& s) {
          return Vs{compare(s[0], constant(f, 3, DType::i32), ComparisonDirection::LT)};
        },
        [&](const Vs& s) {
          return Vs{add(s[0], constant(f, 1, DType::i32)), multiply(s[1], f.arg(1))};
        });
    Value o = optimization_barrier({w[1]})[0];
    return reduce_precision(o, 8, 23);
  });
  programs.push_back([=](Func& f) {  // linear algebra and fft (src/autodiff/rules/linalg.cc)
    Value a = slice(f.arg(0), {0, 0}, {2, 2});
    Value spd = add(
        dot_general(a, a, {.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {1}}),
        constant(f, Array::from<float>({2, 2}, {3, 0, 0, 3})));
    Value l = cholesky(spd, true);
    Value x = triangular_solve(l, f.arg(1), {.left_side = true, .lower = true});
    Value spec = fft(x, FftType::RFFT, {3});
    Value back = fft(spec, FftType::IRFFT, {3});
    return add(back, x);
  });
  programs.push_back([](Func& f) {  // collectives (src/autodiff/rules/collectives.cc)
    ReplicaGroups g{{{0, 1}}};
    auto sum = [](Value a, Value b) { return add(a, b); };
    Value a = all_reduce(f.arg(0), g, sum);
    Value c = reduce_scatter(all_gather(a, 0, g), 0, g, sum);
    Value e = all_to_all(all_to_all(c, 0, 1, 2, g), 1, 0, 2, g);
    return multiply(collective_permute(collective_broadcast(e, g), {{0, 1}, {1, 0}}), f.arg(1));
  });
  programs.push_back([](Func& f) {  // a composite without a rule: through its decomposition
    Func& d = f.module().add_func("closure_dec", {f.arg(0).type()}, Visibility::private_);
    d.ret({multiply(d.arg(0), d.arg(0))});
    return composite("test.square", {f.arg(0)}, d)[0];
  });
  ad::register_custom_vjp("test_closure_fwd",
                          [](const Op& op, const std::vector<ad::Cotangent>& cts) {
                            return std::vector<ad::Cotangent>{multiply(*cts[0], op.operands()[0])};
                          });
  programs.push_back([=](Func& f) {
    return custom_call(f, "test_closure_fwd", {f.arg(0)}, {{t, {2, 3}}})[0];
  });

  std::set<std::string> forward, emitted;
  for (const auto& prog : programs) {
    Module m;
    Func& f = m.add_func("main", {{t, {2, 3}}, {t, {2, 3}}});
    Value out = prog(f);
    differentiable_ops(f.body(), forward);
    ad::vjp({out}, ad::Wrt{f.arg(0), f.arg(1)}, ad::Cotangents{ad::full_like(out, 1.0)});
    differentiable_ops(f.body(), emitted);  // forward and backward ops
  }
  // Coverage: every registered VJP rule (built-in) is exercised by the programs above.
  for (const std::string& name : ad::registered_vjps()) {
    if (name.rfind("stablehlo.", 0) != 0) continue;  // custom calls and rules other tests register
    EXPECT_TRUE(forward.count(name))
        << "VJP rule " << name << " is not exercised by the closure test";
  }
  // Closure: every differentiable op of the forward and backward programs has a JVP rule.
  for (const std::string& name : emitted) {
    if (name == "stablehlo.custom_call")
      continue;  // per target: register_custom_jvp (checked above)
    EXPECT_NE(ad::find_jvp(name), nullptr)
        << "op " << name << " (emitted by a VJP rule) has no JVP rule";
  }
  EXPECT_TRUE(emitted.count("stablehlo.select_and_scatter"));
  EXPECT_TRUE(emitted.count("stablehlo.batch_norm_grad"));
}

}  // namespace
}  // namespace hhlo
