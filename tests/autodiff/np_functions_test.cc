// The cumulative reductions (reduce_window with add / multiply / maximum / minimum / logaddexp
// bodies, as jnp.cum* lower) and the jax.numpy functions of issue 23, with their VJP, JVP, vmap
// and forward-over-reverse, against JAX 0.10.2. Each case is written in JAX in
// tests/autodiff/gen_np_functions_vectors.py (run by the test build, HHLO_GENERATED_DIR/
// np_functions_vectors.txt) and here with hhlo::np functions; the forward value, the VJP (JAX's
// random cotangent, every input) and the JVP (JAX's random tangents) must equal JAX's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <map>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/autodiff/vjp_registry.h"
#include "hhlo/autodiff/vmap.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ir/printer.h"
#include "hhlo/ops/ops.h"
#include "hhlo/session.h"
#include "jax_case_util.h"
#include "vectors_util.h"

namespace hhlo {
namespace {

using Vs = std::vector<Value>;
using Fn = std::function<Value(const Vs&)>;
using test::expect_same;
using ::testing::HasSubstr;

const std::map<std::string, Array>& vectors() {
  static const std::map<std::string, Array> v =
      test::read_generated_vectors("np_functions_vectors.txt", "gen_np_functions_vectors.py");
  return v;
}
const Array& vec(const std::string& name) {
  auto it = vectors().find(name);
  if (it == vectors().end()) throw Error("no JAX vector " + name);
  return it->second;
}

// The case `name` with its VJP and JVP against JAX's (jax_case_util.h).
void check_case(const std::string& name, const Fn& fn, double tol = 1e-12) {
  test::check_vjp_jvp_case(vectors(), name, fn, tol);
}

// vmap over axis 0 of a one-input case whose rows are independent: the per-row function `row`
// with its VJP and JVP, batched, must give the case's whole value, VJP and JVP.
void check_vmap(const std::string& name, const Fn& row) {
  SCOPED_TRACE(name + " (vmap)");
  const Array &x = vec(name + "/in/0"), &ct = vec(name + "/ct"), &t = vec(name + "/t/0");
  Module m;
  Func& f = m.add_func("main", {x.type(), ct.type(), t.type()});
  Vs outs = ad::vmap(
      [&row](const Vs& a) {
        Value y = row({a[0]});
        Value g = ad::vjp({y}, ad::Wrt{a[0]}, ad::Cotangents{a[1]})[0];
        Value j = ad::jvp({y}, ad::Wrt{a[0]}, ad::Tangents{a[2]})[0];
        return Vs{y, g, j};
      },
      {f.arg(0), f.arg(1), f.arg(2)}, {0, 0, 0}, {0, 0, 0});
  f.ret(outs);
  std::vector<Array> r = run(m, {x, ct, t});
  expect_same(r[0], vec(name + "/out"), name + " vmap out");
  expect_same(r[1], vec(name + "/vjp/0"), name + " vmap vjp");
  expect_same(r[2], vec(name + "/jvp"), name + " vmap jvp");
}

// jax.jvp(jax.grad(loss)) of the case hvp_<name>: ad::hvp (forward over reverse), and the loss.
void check_hvp(const std::string& name, const ad::ScalarFn& loss, double tol = 1e-12) {
  SCOPED_TRACE("hvp_" + name);
  const Array &x = vec("hvp_" + name + "/in/0"), &t = vec("hvp_" + name + "/t/0");
  Module m;
  Func& f = m.add_func("main", {x.type(), t.type()});
  Vs hv = ad::hvp(loss, {f.arg(0)}, {f.arg(1)});
  f.ret({loss({f.arg(0)}), hv[0]});
  std::vector<Array> r = run(m, {x, t});
  expect_same(r[0], vec("hvp_" + name + "/out"), name + " loss", tol);
  expect_same(r[1], vec("hvp_" + name + "/hvp"), name + " hvp", tol);
}

Value i32s(Value like, Dims dims, std::initializer_list<int32_t> v) {
  return constant<int32_t>(like.func(), std::move(dims), v);
}
Tensor sum_all(Tensor x) { return np::sum(x); }

// ---- cumulative reductions: reduce_window with each body JAX's cumulative ops emit

TEST(Cumulative, SumPrefixSuffixAndFlat) {
  check_case("cumsum_axis1", [](const Vs& x) { return Value(np::cumsum(x[0], 1)); });
  check_case("cumsum_reverse", [](const Vs& x) { return Value(np::cumsum(x[0], 0, true)); });
  check_case("cumsum_flat", [](const Vs& x) { return Value(np::cumsum(x[0])); });
  check_vmap("cumsum_axis1", [](const Vs& x) { return Value(np::cumsum(x[0], 0)); });
}

TEST(Cumulative, ProdIsJaxsScanDerivative) {
  check_case("cumprod_axis1", [](const Vs& x) { return Value(np::cumprod(x[0], 1)); });
  check_case("cumprod_reverse", [](const Vs& x) { return Value(np::cumprod(x[0], 0, true)); });
  check_case("cumprod_length1", [](const Vs& x) { return Value(np::cumprod(x[0], 0)); });
  check_vmap("cumprod_axis1", [](const Vs& x) { return Value(np::cumprod(x[0], 0)); });
}

TEST(Cumulative, ComplexProdAndSum) {
  // A cumulative product is holomorphic: JAX's complex VJP (ct * conj(f'(z))) and JVP.
  check_case("cumprod_complex", [](const Vs& x) { return Value(np::cumprod(x[0], 0)); });
  check_case("cumsum_complex", [](const Vs& x) { return Value(np::cumsum(x[0], 0)); });
}

TEST(Cumulative, ProdIsExactAtZeros) {
  // One zero and two zeros in a row: the products after the second zero have no gradient, the
  // first zero's is the product of the others (no division anywhere).
  check_case("cumprod_zeros", [](const Vs& x) { return Value(np::cumprod(x[0], 1)); });
  check_vmap("cumprod_zeros", [](const Vs& x) { return Value(np::cumprod(x[0], 0)); });
}

TEST(Cumulative, MaxMinTiesSplitAsJax) {
  check_case("cummax_axis0", [](const Vs& x) { return Value(np::cummax(x[0], 0)); });
  check_case("cummax_ties", [](const Vs& x) { return Value(np::cummax(x[0], 0)); });
  check_case("cummin_ties", [](const Vs& x) { return Value(np::cummin(x[0], 0)); });
  check_case("cummin_reverse", [](const Vs& x) { return Value(np::cummin(x[0], 1, true)); });
  check_vmap("cummin_reverse", [](const Vs& x) { return Value(np::cummin(x[0], 0, true)); });
}

TEST(Cumulative, LogSumExp) {
  check_case("cumlogsumexp_axis1", [](const Vs& x) { return Value(np::cumlogsumexp(x[0], 1)); });
  check_case("cumlogsumexp_wide", [](const Vs& x) { return Value(np::cumlogsumexp(x[0], 0)); });
  check_case("cumlogsumexp_reverse",
             [](const Vs& x) { return Value(np::cumlogsumexp(x[0], 0, true)); });
  check_vmap("cumlogsumexp_axis1", [](const Vs& x) { return Value(np::cumlogsumexp(x[0], 0)); });
}

TEST(Cumulative, SecondOrder) {
  check_hvp("cumprod", [](const Vs& x) {
    Tensor c = np::cumprod(x[0], 1);
    return Value(sum_all(c * c));
  });
  check_hvp("cumprod_zeros",
            [](const Vs& x) { return Value(sum_all(np::sin(np::cumprod(x[0])))); });
  check_hvp("cumlogsumexp",
            [](const Vs& x) { return Value(sum_all(np::sin(np::cumlogsumexp(x[0], 0)))); });
  check_hvp("cummax", [](const Vs& x) {
    Tensor c = np::cummax(x[0], 0);
    return Value(sum_all(c * c * c));
  });
}

TEST(Cumulative, LoweredAsJax) {
  // One reduce_window per call, with JAX's body, window and padding.
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f32, {2, 4}}});
  f.ret({np::cumprod(f.arg(0), 1), np::cumlogsumexp(f.arg(0), 0, true)});
  std::string text = to_mlir(m);
  EXPECT_THAT(text, HasSubstr("stablehlo.multiply"));
  EXPECT_THAT(text, HasSubstr("stablehlo.log_plus_one"));
  EXPECT_THAT(text, HasSubstr("window_dimensions = array<i64: 1, 4>"));
  EXPECT_THAT(text, HasSubstr("dense<[[0, 0], [3, 0]]>"));
  EXPECT_THAT(text, HasSubstr("dense<[[0, 1], [0, 0]]>"));
}

TEST(Cumulative, OtherWindowsAreClearErrors) {
  // A multiply body over a sliding window (not a prefix) has no rule; nor has a cumulative
  // product whose init is not 1.
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f64, {5}}});
  auto prod_window = [&](int64_t w, double init) {
    WindowOptions o;
    o.padding = {{w - 1, 0}};
    return reduce_window({f.arg(0)}, {constant(f, init, DType::f64)}, {w}, o,
                         [](const Vs& a) { return Vs{multiply(a[0], a[1])}; })[0];
  };
  Value sliding = prod_window(2, 1.0), shifted = prod_window(5, 2.0);
  try {
    ad::grad(ad::reduce_sum(sliding, {0}), {f.arg(0)});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("stablehlo.reduce_window"));
    EXPECT_THAT(e.what(), HasSubstr("cumulative window only"));
  }
  try {
    ad::jvp({shifted}, ad::Wrt{f.arg(0)}, ad::Tangents{f.arg(0)});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("must be the constant 1"));
  }
}

// ---- sorting and indexing

TEST(NpIndexing, SortAndArgsort) {
  check_case("sort", [](const Vs& x) { return Value(np::sort(x[0])); });
  check_case("sort_descending_ties", [](const Vs& x) { return Value(np::sort(x[0], 0, true)); });
  check_case("sort_complex", [](const Vs& x) { return Value(np::sort(x[0])); });
  check_case("sort_flat", [](const Vs& x) { return Value(np::sort(x[0], std::nullopt)); });
  check_vmap("sort", [](const Vs& x) { return Value(np::sort(x[0])); });
  check_hvp("sort", [](const Vs& x) {
    Tensor s = np::sort(x[0]);
    Tensor w = np::astype(Tensor(iota(x[0].func(), {DType::i32, {5}}, 0)), DType::f64);
    return Value(sum_all(s * s * w));
  });
}

TEST(NpIndexing, ArgsortIsStableBothWays) {
  // jnp.argsort([1, 0, 1, 0.5, 0, 2]) and with descending=True (ties in their order).
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f64, {6}}});
  f.ret({np::argsort(f.arg(0)), np::argsort(f.arg(0), 0, true, DType::i64)});
  std::vector<Array> r = run(m, {vec("sort_descending_ties/in/0")});
  EXPECT_EQ(r[0].to_vector<int32_t>(), (std::vector<int32_t>{1, 4, 3, 0, 2, 5}));
  EXPECT_EQ(r[1].to_vector<int64_t>(), (std::vector<int64_t>{5, 0, 2, 3, 1, 4}));
}

TEST(NpIndexing, TakeAlongAxis) {
  check_case("take_along_axis", [](const Vs& x) {
    return Value(np::take_along_axis(x[0], i32s(x[0], {3, 2}, {0, 3, 1, 1, -1, 2}), 1));
  });
  check_case("take_along_axis_broadcast", [](const Vs& x) {
    return Value(np::take_along_axis(x[0], i32s(x[0], {1, 4}, {2, 0, 1, 2}), 0));
  });
  check_case("take_along_axis_argsort", [](const Vs& x) {
    return Value(np::take_along_axis(x[0], np::argsort(x[0], 1, true), 1));
  });
}

TEST(NpIndexing, TakeAlongAxisBatchedIndices) {
  // vmap over rows of x and of the indices (both batched: gather's batching dims) of the 1-D
  // take_along_axis, with its VJP and JVP: the case "take_along_axis" row by row.
  const std::string name = "take_along_axis";
  const Array &x = vec(name + "/in/0"), &ct = vec(name + "/ct"), &t = vec(name + "/t/0");
  Array idx = Array::from<int32_t>({3, 2}, {0, 3, 1, 1, -1, 2});
  Module m;
  Func& f = m.add_func("main", {x.type(), idx.type(), ct.type(), t.type()});
  Vs outs = ad::vmap(
      [](const Vs& a) {
        Value y = np::take_along_axis(a[0], a[1], 0);
        Value g = ad::vjp({y}, ad::Wrt{a[0]}, ad::Cotangents{a[2]})[0];
        Value j = ad::jvp({y}, ad::Wrt{a[0]}, ad::Tangents{a[3]})[0];
        return Vs{y, g, j};
      },
      {f.arg(0), f.arg(1), f.arg(2), f.arg(3)}, {0, 0, 0, 0}, {0, 0, 0});
  f.ret(outs);
  std::vector<Array> r = run(m, {x, idx, ct, t});
  expect_same(r[0], vec(name + "/out"), "vmap out");
  expect_same(r[1], vec(name + "/vjp/0"), "vmap vjp");
  expect_same(r[2], vec(name + "/jvp"), "vmap jvp");
}

TEST(NpIndexing, TakeAlongAxisFillsOutOfRange) {
  // jnp's mode "fill": NaN for floats, the lowest value for signed integers; in range: x's.
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f32, {2, 3}}, TensorType{DType::i32, {2, 3}}});
  Value idx = i32s(f.arg(0), {2, 2}, {3, -1, -4, 0});
  f.ret({np::take_along_axis(f.arg(0), idx, 1), np::take_along_axis(f.arg(1), idx, 1)});
  std::vector<Array> r = run(m, {Array::from<float>({2, 3}, {1, 2, 3, 4, 5, 6}),
                                 Array::from<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6})});
  auto fl = r[0].to_vector<float>();
  EXPECT_TRUE(std::isnan(fl[0]));
  EXPECT_EQ(fl[1], 3.0f);
  EXPECT_TRUE(std::isnan(fl[2]));
  EXPECT_EQ(fl[3], 4.0f);
  int32_t lowest = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(r[1].to_vector<int32_t>(), (std::vector<int32_t>{lowest, 3, lowest, 4}));
}

TEST(NpIndexing, AtUpdates) {
  check_case("at_set", [](const Vs& x) {
    return Value(np::at_set(x[0], i32s(x[0], {2}, {3, 0}), x[1]));
  });
  check_case("at_add", [](const Vs& x) {
    return Value(np::at_add(x[0], i32s(x[0], {4}, {3, 0, 3, -1}), x[1]));
  });
  check_case("at_mul", [](const Vs& x) {
    return Value(np::at_mul(x[0], i32s(x[0], {2}, {3, 0}), x[1], true));
  });
  check_case("at_mul_scalar_index",
             [](const Vs& x) { return Value(np::at_mul(x[0], i32s(x[0], {}, {2}), x[1], true)); });
  check_case("at_max", [](const Vs& x) {
    return Value(np::at_max(x[0], i32s(x[0], {5}, {1, 3, 1, 3, 0}), x[1]));
  });
  check_case("at_min", [](const Vs& x) {
    return Value(np::at_min(x[0], i32s(x[0], {5}, {1, 3, 1, 0, 2}), x[1]));
  });
  check_hvp("at_max", [](const Vs& x) {
    Tensor part = slice(x[0], {1}, {3});
    return Value(sum_all(np::exp(np::at_max(x[0], i32s(x[0], {2}, {0, 2}), part * 2.0))));
  });
}

// Issue 44: an out-of-range index of an .at[] update is dropped (jnp's default mode "drop"), so
// the gradient of a dropped update is 0, not the clamped row's (x 4x2, indices [1, 9]: d/du was
// [3, 4, 7, 8] where JAX gives [3, 4, 0, 0]). Each update kind, negative indices that stay out of
// range, mode "clip" (negative indices wrapped, then clamped, as JAX's), take_along_axis's
// "fill", and a scatter whose 2-wide window does not fit (XLA drops it whole), against JAX.
TEST(NpIndexing, OutOfRangeUpdatesAreDroppedAndGetNoGradient) {
  check_case("at_set_oob", [](const Vs& x) {
    return Value(np::at_set(x[0], i32s(x[0], {4}, {9, 0, -6, -1}), x[1]));
  });
  check_case("at_add_oob", [](const Vs& x) {
    return Value(np::at_add(x[0], i32s(x[0], {4}, {1, 9, -7, -1}), x[1]));
  });
  check_case("at_add_clip", [](const Vs& x) {
    Value idx = i32s(x[0], {3}, {1, 9, -7});
    Func& f = x[0].func();
    Value zero = constant(f, 0, DType::i32, {3}), n = constant(f, 4, DType::i32, {3});
    Value wrapped = select(compare(idx, zero, ComparisonDirection::LT), add(idx, n), idx);
    Value clipped = clamp(zero, wrapped, constant(f, 3, DType::i32, {3}));
    return Value(np::at_add(x[0], clipped, x[1]));
  });
  check_case("at_mul_oob", [](const Vs& x) {
    return Value(np::at_mul(x[0], i32s(x[0], {3}, {3, 7, -5}), x[1], true));
  });
  check_case("at_max_oob", [](const Vs& x) {
    return Value(np::at_max(x[0], i32s(x[0], {4}, {1, 5, -9, 0}), x[1]));
  });
  check_case("at_min_oob", [](const Vs& x) {
    return Value(np::at_min(x[0], i32s(x[0], {4}, {2, 4, 0, -5}), x[1]));
  });
  check_case("take_along_axis_fill", [](const Vs& x) {
    return Value(np::take_along_axis(x[0], i32s(x[0], {2, 3}, {5, -9, 1, 0, 4, -1}), 1));
  });
  check_case("scatter_add_window_oob", [](const Vs& x) {
    ScatterDimensionNumbers dn{.update_window_dims = {1},
                               .inserted_window_dims = {},
                               .scatter_dims_to_operand_dims = {0},
                               .index_vector_dim = 1};
    Value idx = constant<int64_t>(x[0].func(), {4, 1}, {0, 4, 2, -1});
    return scatter({x[0]}, idx, {x[1]}, dn, [](const Vs& a) { return Vs{add(a[0], a[1])}; })[0];
  });
}

TEST(NpIndexing, AtUpdatesBatch) {
  // vmap of x.at[idx].max(v) and .mul(v) with the indices shared: per-row values and gradients.
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f64, {3, 4}}, TensorType{DType::f64, {3, 2}}});
  Vs outs = ad::vmap(
      [](const Vs& a) {
        Value idx = i32s(a[0], {2}, {2, 0});
        Value y = np::at_max(a[0], idx, a[1]);
        Value z = np::at_mul(a[0], idx, a[1], true);
        Value loss = ad::reduce_sum(add(multiply(y, y), z), {0});
        return ad::grad(loss, {a[0], a[1]});
      },
      {f.arg(0), f.arg(1)}, {0, 0}, {0, 0});
  f.ret(outs);
  Array x = Array::from<double>({3, 4}, {1, 5, 2, 0, -1, -2, 3, 4, 0.5, 0.25, -3, 2});
  Array v = Array::from<double>({3, 2}, {3, 0, -1, 6, 0.5, 1});
  std::vector<Array> r = run(m, {x, v});
  // Row by row: y = max-updated, z = mul-updated; d/dx = 2y * [x retained] + [v at that row],
  // d/dv = 2y * [v won] + x at that row.
  std::vector<double> gx(12), gv(6);
  auto xs = x.to_vector<double>(), vs = v.to_vector<double>();
  for (int b = 0; b < 3; ++b) {
    for (int i = 0; i < 4; ++i) {
      double xi = xs[static_cast<size_t>(4 * b + i)];
      int k = i == 2 ? 0 : i == 0 ? 1 : -1;
      double g = 2 * xi + 1;
      if (k >= 0) {
        double vi = vs[static_cast<size_t>(2 * b + k)];
        double y = std::max(xi, vi);
        g = 2 * y * (xi > vi ? 1 : xi == vi ? 0.5 : 0) + vi;
        gv[static_cast<size_t>(2 * b + k)] = 2 * y * (vi > xi ? 1 : xi == vi ? 0.5 : 0) + xi;
      }
      gx[static_cast<size_t>(4 * b + i)] = g;
    }
  }
  expect_same(r[0], Array::from<double>({3, 4}, gx), "vmap at grad x");
  expect_same(r[1], Array::from<double>({3, 2}, gv), "vmap at grad v");
}

TEST(NpIndexing, AtMulValuesGradientNeedsUniqueIndices) {
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f64, {4}}, TensorType{DType::f64, {2}}});
  Value y = np::at_mul(f.arg(0), i32s(f.arg(0), {2}, {1, 1}), f.arg(1));
  // The operand's gradient exists; the values' needs unique_indices, as JAX's scatter_mul.
  EXPECT_NO_THROW(ad::grad(ad::reduce_sum(y, {0}), {f.arg(0)}));
  try {
    ad::grad(ad::reduce_sum(y, {0}), {f.arg(1)});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("unique_indices"));
  }
}

TEST(NpIndexing, DynamicSlices) {
  auto starts = [](Value like, int32_t a, int32_t b) {
    return std::vector<Tensor>{constant(like.func(), a, DType::i32),
                               constant(like.func(), b, DType::i64)};
  };
  check_case("dynamic_slice", [&](const Vs& x) {
    return Value(np::dynamic_slice(x[0], starts(x[0], 1, 2), {2, 2}));
  });
  check_case("dynamic_slice_clamped", [&](const Vs& x) {
    return Value(np::dynamic_slice(x[0], starts(x[0], 3, 4), {2, 3}));
  });
  check_case("dynamic_update_slice", [&](const Vs& x) {
    return Value(np::dynamic_update_slice(x[0], x[1], starts(x[0], 1, 1)));
  });
}

// ---- creation and elementwise math

TEST(NpMath, Eye) {
  check_case("eye_mask",
             [](const Vs& x) { return Value(x[0] * np::eye(x[0].func(), 3, 4, 1, DType::f64)); });
  check_case("eye_square", [](const Vs& x) {
    return Value(np::matmul(x[0], np::eye(x[0].func(), 3, std::nullopt, 0, DType::f64)) -
                 x[0] * 2.0);
  });
}

TEST(NpMath, Conj) {
  check_case("conj_real", [](const Vs& x) { return Value(np::conj(x[0]) * x[0]); });
  check_case("conj_complex", [](const Vs& x) {
    Tensor c = np::conj(x[0]);
    return Value(c * x[0] + c * np::full_like(c, 2.0));
  });
}

TEST(NpMath, Trigonometric) {
  check_case("sin", [](const Vs& x) { return Value(np::sin(x[0])); });
  check_case("cos", [](const Vs& x) { return Value(np::cos(x[0])); });
  check_case("tan", [](const Vs& x) { return Value(np::tan(x[0])); });
  check_case("arcsin", [](const Vs& x) { return Value(np::arcsin(x[0])); });
  check_case("arccos", [](const Vs& x) { return Value(np::arccos(x[0])); });
  check_case("arctan", [](const Vs& x) { return Value(np::arctan(x[0])); });
  check_case("arctan2", [](const Vs& x) { return Value(np::arctan2(x[0], x[1])); });
}

TEST(NpMath, Hyperbolic) {
  check_case("sinh", [](const Vs& x) { return Value(np::sinh(x[0])); });
  check_case("cosh", [](const Vs& x) { return Value(np::cosh(x[0])); });
  check_case("arcsinh", [](const Vs& x) { return Value(np::arcsinh(x[0])); });
  check_case("arccosh", [](const Vs& x) { return Value(np::arccosh(x[0])); });
  check_case("arctanh", [](const Vs& x) { return Value(np::arctanh(x[0])); });
  check_hvp("arcsinh_arctanh", [](const Vs& x) {
    return Value(sum_all(np::arcsinh(x[0]) * np::arctanh(x[0] / 2.0)));
  });
}

TEST(NpMath, LogExpAndSquare) {
  check_case("log1p_expm1", [](const Vs& x) { return Value(np::log1p(x[0]) + np::expm1(x[0])); });
  check_case("square", [](const Vs& x) { return Value(np::square(x[0])); });
}

}  // namespace
}  // namespace hhlo
