// Forward mode against JAX 0.10.2: jvp, hvp (forward over reverse), jacfwd and hessian of 30
// functions covering every op family (vectors from tests/autodiff/gen_jvp_vectors.py ->
// data/jvp_vectors.txt; each function is written out there in JAX and here in hhlo ops).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/autodiff/vjp_registry.h"
#include "hhlo/ir/conv_dimension_numbers.h"
#include "hhlo/ir/ops.h"
#include "hhlo/session.h"
#include "vectors_util.h"

namespace hhlo {
namespace {

using Vs = std::vector<Value>;

const std::map<std::string, Array>& vectors() {
  static const std::map<std::string, Array> v =
      test::read_vectors("jvp_vectors.txt", "gen_jvp_vectors.py");
  return v;
}
const Array& vec(const std::string& name) {
  auto it = vectors().find(name);
  if (it == vectors().end()) throw Error("no JAX vector " + name);
  return it->second;
}

Value c(Value like, double v) { return ad::full_like(like, v); }
Value red(Value x, const char* op, double init, std::vector<int64_t> dims) {
  return reduce(x, constant(x.func(), init, x.dtype()), std::move(dims),
                [op](Value a, Value b) { return binary(op, a, b); });
}
Value mean1(Value x) {
  return divide(red(x, "add", 0, {1}), constant(x.func(), 3.0, x.dtype(), {2}));
}
Value row_b(Value v, const Dims& d) { return broadcast_in_dim(v, d, {0}); }
const double kInf = std::numeric_limits<double>::infinity();
ConvDimensionNumbers nhwc() { return conv_dimension_numbers("NHWC", "HWIO", "NHWC"); }

using Fn = std::function<Value(Value, Value)>;
const std::map<std::string, Fn>& cases() {
  static const std::map<std::string, Fn> m = {
      {"sin_mul", [](Value x, Value y) { return multiply(sine(x), y); }},
      {"exp_div",
       [](Value x, Value y) { return divide(exponential(x), add(c(y, 1), multiply(y, y))); }},
      {"logistic_log1p",
       [](Value x, Value y) { return multiply(logistic(x), log_plus_one(multiply(y, y))); }},
      {"sqrt_rsqrt",
       [](Value x, Value y) {
         return add(sqrt(add(multiply(x, x), c(x, 1))), rsqrt(add(multiply(y, y), c(y, 1))));
       }},
      {"tanh_cos_tan",
       [](Value x, Value y) {
         return add(multiply(tanh(x), cosine(y)), tan(multiply(c(x, 0.5), x)));
       }},
      {"expm1_log_cbrt",
       [](Value x, Value y) { return add(exponential_minus_one(x), multiply(log(y), cbrt(y))); }},
      {"max_min",
       [](Value x, Value y) { return add(multiply(maximum(x, y), minimum(x, y)), maximum(x, y)); }},
      {"power", [](Value x, Value y) { return power(x, y); }},
      {"atan2_abs", [](Value x, Value y) { return multiply(atan2(x, y), abs(x)); }},
      {"matmul_tanh",
       [](Value x, Value y) {
         return tanh(dot_general(
             x, y, {.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {1}}));
       }},
      {"reduce_sum_max",
       [](Value x, Value y) {
         return add(red(multiply(x, y), "add", 0, {1}), red(multiply(x, y), "maximum", -kInf, {1}));
       }},
      {"reduce_min_prod",
       [](Value x, Value y) {
         return multiply(red(multiply(x, y), "minimum", kInf, {0}),
                         red(add(x, c(x, 2)), "multiply", 1, {0}));
       }},
      {"shapes",
       [](Value x, Value y) {
         Value cat = concatenate(
             {reshape(transpose(x, {1, 0}), {6}), reshape(slice(y, {0, 1}, {2, 3}), {4})}, 0);
         return multiply(sine(cat),
                         broadcast_in_dim(reshape(slice(x, {0, 0}, {1, 1}), {}), {10}, {}));
       }},
      {"pad_reverse",
       [](Value x, Value y) {
         Func& f = x.func();
         Value a = pad(multiply(x, y), constant(f, 0.5, DType::f64), {1, 0}, {0, 2}, {0, 1});
         Value b = pad(y, constant(f, 0.0, DType::f64), {1, 0}, {0, 2}, {0, 1});
         return multiply(a, reverse(b, {1}));
       }},
      {"select",
       [](Value x, Value y) {
         return select(compare(x, y, ComparisonDirection::GT), multiply(x, y), cosine(x));
       }},
      {"clamp",
       [](Value x, Value y) {
         Func& f = x.func();
         return multiply(clamp(constant(f, -0.4, DType::f64), add(multiply(x, y), x),
                               constant(f, 0.4, DType::f64)),
                         y);
       }},
      {"while_fixed",
       [](Value x, Value y) {
         Func& f = x.func();
         return while_loop(
             {constant(f, 0, DType::i32), x},
             [&](const Vs& s) {
               return Vs{compare(s[0], constant(f, 3, DType::i32), ComparisonDirection::LT)};
             },
             [&](const Vs& s) {
               return Vs{add(s[0], constant(f, 1, DType::i32)), tanh(add(multiply(s[1], y), x))};
             })[1];
       }},
      {"cond_true",
       [](Value x, Value y) {
         Value p = compare(red(x, "add", 0, {0, 1}), constant(x.func(), -100.0, DType::f64),
                           ComparisonDirection::GT);
         return if_(
             p, [&] { return Vs{multiply(sine(x), y)}; }, [&] { return Vs{add(x, y)}; })[0];
       }},
      {"cond_false",
       [](Value x, Value y) {
         Value p = compare(red(x, "add", 0, {0, 1}), constant(x.func(), 100.0, DType::f64),
                           ComparisonDirection::GT);
         return if_(
             p, [&] { return Vs{multiply(sine(x), y)}; },
             [&] { return Vs{add(multiply(x, x), y)}; })[0];
       }},
      {"gather_dynamic_slice",
       [](Value x, Value y) {
         Func& f = x.func();
         GatherDimensionNumbers dn{.offset_dims = {1},
                                   .collapsed_slice_dims = {0},
                                   .start_index_map = {0},
                                   .index_vector_dim = 1};
         Value rows = gather(x, constant(f, Array::from<int32_t>({3, 1}, {1, 0, 1})), dn, {1, 3});
         Value ds =
             dynamic_slice(y, {constant(f, 0, DType::i32), constant(f, 1, DType::i32)}, {1, 3});
         return multiply(rows, broadcast_in_dim(reshape(ds, {3}), {3, 3}, {1}));
       }},
      {"sort",
       [](Value x, Value y) {
         auto r = sort(
             {x, y}, 1,
             [](const Vs& a) { return Vs{compare(a[0], a[1], ComparisonDirection::LT)}; }, true);
         return multiply(r[0], sine(r[1]));
       }},
      {"scatter_add",
       [](Value x, Value y) {
         Func& f = x.func();
         GatherDimensionNumbers gd{.offset_dims = {1},
                                   .collapsed_slice_dims = {0},
                                   .start_index_map = {0},
                                   .index_vector_dim = 1};
         Value yr = gather(y, constant(f, Array::from<int32_t>({3, 1}, {0, 1, 1})), gd, {1, 3});
         Value x0 = broadcast_in_dim(reshape(slice(x, {0, 0}, {1, 3}), {3}), {3, 3}, {1});
         ScatterDimensionNumbers sd{.update_window_dims = {1},
                                    .inserted_window_dims = {0},
                                    .scatter_dims_to_operand_dims = {0},
                                    .index_vector_dim = 1};
         return scatter({multiply(x, x)}, constant(f, Array::from<int32_t>({3, 1}, {1, 0, 1})),
                        {multiply(yr, x0)}, sd, [](const Vs& s) { return Vs{add(s[0], s[1])}; })[0];
       }},
      {"conv",
       [](Value x, Value y) {
         return tanh(convolution(x, y, nhwc(), {.padding = {{1, 0}, {0, 1}}}));
       }},
      {"pools",
       [](Value x, Value y) {
         Func& f = x.func();
         Value mx = reduce_window({multiply(x, y)}, {constant(f, -kInf, DType::f64)}, {1, 2, 2, 1},
                                  {}, [](const Vs& a) { return Vs{maximum(a[0], a[1])}; })[0];
         Value sp = reduce_window({multiply(x, x)}, {constant(f, 0.0, DType::f64)}, {1, 2, 2, 1},
                                  {.window_strides = {1, 2, 2, 1}},
                                  [](const Vs& a) { return Vs{add(a[0], a[1])}; })[0];
         return add(mx, broadcast_in_dim(red(sp, "add", 0, {0, 1, 2, 3}), mx.dims(), {}));
       }},
      {"complex_exp",
       [](Value x, Value y) {
         Value z = complex(x, y);
         return add(real(multiply(exponential(z), complex(y, x))), imag(multiply(z, z)));
       }},
      {"complex_abs",
       [](Value x, Value y) { return abs(multiply(complex(x, y), complex(x, add(c(y, 1), y)))); }},
      {"logsumexp",
       [](Value x, Value y) { return log(red(exponential(multiply(x, y)), "add", 0, {1})); }},
      {"layer_norm",
       [](Value x, Value y) {
         Value cx = subtract(x, row_b(mean1(x), x.dims()));
         Value inv = rsqrt(add(mean1(multiply(cx, cx)), constant(x.func(), 1e-3, DType::f64, {2})));
         return multiply(multiply(cx, row_b(inv, x.dims())), y);
       }},
      {"mlp",
       [](Value x, Value y) {
         Value h = tanh(dot_general(
             x, y, {.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {1}}));
         return red(multiply(h, h), "add", 0, {1});
       }},
      {"remainder_floor",
       [](Value x, Value y) {
         return add(remainder(multiply(x, c(x, 3)), y), multiply(floor(x), y));
       }},
      {"exp2_log2_fma",
       [](Value x, Value y) {
         return add(multiply(exp2(x), log2(add(multiply(y, y), c(y, 1)))), fma(x, y, exp2(y)));
       }},
  };
  return m;
}

void expect_near(const Array& got, const Array& want, const std::string& what) {
  ASSERT_EQ(got.dims(), want.dims()) << what;
  auto g = got.to_vector<double>(), w = want.to_vector<double>();
  for (size_t i = 0; i < g.size(); ++i)
    EXPECT_NEAR(g[i], w[i], 1e-10 * (1 + std::abs(w[i]))) << what << "[" << i << "]";
}

class JaxForward : public ::testing::TestWithParam<std::string> {};

TEST_P(JaxForward, JvpHvpJacfwdHessianMatchJax) {
  const std::string& name = GetParam();
  const Fn& fn = cases().at(name);
  const Array &x = vec(name + "/input/x"), &y = vec(name + "/input/y"), &w = vec(name + "/w");
  bool jac = vectors().count(name + "/jacfwd/x") > 0;
  Module m;
  Func& f = m.add_func("main", {x.type(), y.type(), x.type(), y.type()});
  Value out = fn(f.arg(0), f.arg(1));
  Value t = ad::jvp({out}, ad::Wrt{f.arg(0), f.arg(1)}, ad::Tangents{f.arg(2), f.arg(3)})[0];
  auto loss = [&](const Vs& a) {
    Value p = multiply(fn(a[0], a[1]), constant(f, w));
    std::vector<int64_t> all;
    for (int64_t d = 0; d < p.rank(); ++d) all.push_back(d);
    return ad::reduce_sum(p, all);
  };
  Vs hv = ad::hvp(loss, {f.arg(0), f.arg(1)}, {f.arg(2), f.arg(3)});
  Vs rets = {out, t, hv[0], hv[1]};
  if (jac) {
    rets.push_back(
        ad::jacfwd([&](const Vs& a) { return Vs{fn(a[0], a[1])}; }, {f.arg(0), f.arg(1)}, 0)[0]);
    rets.push_back(ad::hessian(loss, {f.arg(0), f.arg(1)}, 0));
  }
  f.ret(rets);
  auto r = run(m, {x, y, vec(name + "/tangent/x"), vec(name + "/tangent/y")});
  expect_near(r[0], vec(name + "/out"), "out");
  expect_near(r[1], vec(name + "/jvp"), "jvp");
  expect_near(r[2], vec(name + "/hvp/x"), "hvp/x");
  expect_near(r[3], vec(name + "/hvp/y"), "hvp/y");
  if (jac) {
    expect_near(r[4], vec(name + "/jacfwd/x"), "jacfwd/x");
    expect_near(r[5], vec(name + "/hessian/x"), "hessian/x");
  }
}

std::vector<std::string> case_names() {
  std::vector<std::string> n;
  for (const auto& kv : cases()) n.push_back(kv.first);
  return n;
}

INSTANTIATE_TEST_SUITE_P(Autodiff, JaxForward, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return info.param; });

TEST(JaxForwardData, EveryGeneratedCaseHasATest) {
  for (const auto& kv : vectors()) {
    std::string name = kv.first.substr(0, kv.first.find('/'));
    EXPECT_TRUE(cases().count(name)) << name;
  }
  EXPECT_GE(cases().size(), 30u);
}

}  // namespace
}  // namespace hhlo
