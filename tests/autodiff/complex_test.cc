// Autodiff through complex values (issue 8, section 4). Real-in, real-out functions through
// complex intermediates are convention-free: each case is checked against JAX (vectors from
// tests/autodiff/gen_complex_vectors.py -> data/complex_vectors.txt, the same functions written
// out there) and against central finite differences in f64. Gradients with respect to complex
// inputs and vjp's with complex cotangents are checked against JAX, which fixes the convention.
// A complex chain through an op without a (complex) rule must be an error naming the op.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <fstream>
#include <map>
#include <sstream>

#include "gradcheck_util.h"
#include "hhlo/autodiff/autodiff.h"
#include "hhlo/autodiff/vjp_registry.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ir/verifier.h"
#include "hhlo/session.h"
#include "vectors_util.h"

namespace hhlo {
namespace {

using Vs = std::vector<Value>;
using Vectors = std::map<std::string, Array>;

const Vectors& vectors() {
  static const Vectors v = test::read_vectors("complex_vectors.txt", "gen_complex_vectors.py");
  return v;
}
const Array& vec(const std::string& name) {
  auto it = vectors().find(name);
  if (it == vectors().end()) throw Error("no JAX vector " + name);
  return it->second;
}

// Element i of a real or complex array as a complex<double>.
std::complex<double> elem(const Array& a, int64_t i) {
  switch (a.dtype()) {
    case DType::f32:
      return static_cast<const float*>(a.data())[i];
    case DType::f64:
      return static_cast<const double*>(a.data())[i];
    case DType::c64:
      return std::complex<double>(static_cast<const std::complex<float>*>(a.data())[i]);
    default:
      return static_cast<const std::complex<double>*>(a.data())[i];
  }
}

void expect_close(const Array& got, const Array& want, double tol, const std::string& what) {
  ASSERT_EQ(got.type(), want.type()) << what;
  for (int64_t i = 0; i < got.num_elements(); ++i)
    EXPECT_LE(std::abs(elem(got, i) - elem(want, i)), tol * (1.0 + std::abs(elem(want, i))))
        << what << "[" << i << "]: got " << elem(got, i) << ", JAX " << elem(want, i);
}

using CaseFn = std::function<Value(const Vs& in)>;

// Builds loss = fn(inputs of `c`) and its gradient w.r.t. every input, runs both on the CPU plugin
// and compares them with JAX's.
void check_against_jax(const std::string& c, const std::vector<std::string>& names,
                       const CaseFn& fn, double tol = 1e-12) {
  std::vector<TensorType> types;
  std::vector<Array> args;
  for (const auto& n : names) {
    args.push_back(vec(c + "/input/" + n));
    types.push_back(args.back().type());
  }
  Module m;
  Func& f = m.add_func("main", types);
  Value loss = fn(f.args());
  Vs outs = {loss};
  for (Value g : ad::grad(loss, f.args())) outs.push_back(g);
  f.ret(outs);
  verify(m);
  std::vector<Array> got = run(m, args);
  expect_close(got[0], vec(c + "/loss"), tol, c + " loss");
  for (size_t i = 0; i < names.size(); ++i)
    expect_close(got[i + 1], vec(c + "/grad/" + names[i]), tol, c + " d/d" + names[i]);
}

Value sum_all(Value x) {
  std::vector<int64_t> all;
  for (int64_t d = 0; d < x.rank(); ++d) all.push_back(d);
  return ad::reduce_sum(x, all);
}
// sum(w1 * real(v) + w2 * imag(v)), the loss of the generator's parts_loss.
Value parts_loss(Value v, Value w1, Value w2) {
  return sum_all(add(multiply(w1, real(v)), multiply(w2, imag(v))));
}

// ---------------------------------------------------------------- the issue's three programs

TEST(AutodiffComplex, IssueAbsSquaredOfComplexHasGradientTwo) {
  // r, i : f32[5] = ones; loss = sum(abs(complex(r, i)) * abs(complex(r, i))): JAX gives 2 for
  // both.
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {5}}, {DType::f32, {5}}});
  Value zc = complex(f.arg(0), f.arg(1));
  Value loss = sum_all(multiply(abs(zc), abs(zc)));
  Vs g = ad::grad(loss, {f.arg(0), f.arg(1)});
  f.ret({loss, g[0], g[1]});
  Array ones = Array::from<float>({5}, {1, 1, 1, 1, 1});
  auto out = run(m, {ones, ones});
  EXPECT_NEAR(out[0].to_vector<float>()[0], 10.0f, 1e-5);
  for (int k = 1; k <= 2; ++k)
    for (float v : out[static_cast<size_t>(k)].to_vector<float>())
      EXPECT_NEAR(v, 2.0f, 1e-6) << "grad " << k;
  expect_close(out[1], vec("issue/abs_sq/grad/r"), 1e-6, "JAX d/dr");
  expect_close(out[2], vec("issue/abs_sq/grad/i"), 1e-6, "JAX d/di");
}

TEST(AutodiffComplex, IssueRealSquaredPlusImagSquaredHasGradientTwo) {
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {5}}, {DType::f32, {5}}});
  Value zc = complex(f.arg(0), f.arg(1));
  Value loss = sum_all(add(multiply(real(zc), real(zc)), multiply(imag(zc), imag(zc))));
  Vs g = ad::grad(loss, {f.arg(0), f.arg(1)});
  f.ret({g[0], g[1]});
  Array ones = Array::from<float>({5}, {1, 1, 1, 1, 1});
  auto out = run(m, {ones, ones});
  EXPECT_EQ(out[0].to_vector<float>(), std::vector<float>(5, 2.0f));
  EXPECT_EQ(out[1].to_vector<float>(), std::vector<float>(5, 2.0f));
  expect_close(out[0], vec("issue/real_imag_sq/grad/r"), 0, "JAX d/dr");
}

TEST(AutodiffComplex, IssueImagOfExpOfComplexZeroXHasGradientCosX) {
  // f64 loss = imag(exp(complex(0, x))) = sin(x) at x = pi/3: loss 0.8660254, gradient 0.5.
  Module m;
  Func& f = m.add_func("main", {{DType::f64, {}}});
  Value loss = imag(exponential(complex(constant(f, 0.0, DType::f64), f.arg(0))));
  f.ret({loss, ad::grad(loss, {f.arg(0)})[0]});
  auto out = run(m, {Array::scalar<double>(M_PI / 3)});
  EXPECT_NEAR(out[0].to_vector<double>()[0], 0.8660254037844386, 1e-15);
  EXPECT_NEAR(out[1].to_vector<double>()[0], 0.5, 1e-15);
  expect_close(out[1], vec("issue/exp_imag/grad/x"), 1e-15, "JAX d/dx");
}

// ---------------------------------------------------------------- each op against JAX and FD

class ComplexUnary : public ::testing::TestWithParam<const char*> {};

TEST_P(ComplexUnary, MatchesJaxAndFiniteDifferences) {
  std::string op = GetParam();
  auto fn = [&](const Vs& a) { return unary(op, complex(a[0], a[1])); };
  check_against_jax("unary/" + op, {"a", "b", "w1", "w2"},
                    [&](const Vs& a) { return parts_loss(fn(a), a[2], a[3]); });
  // Central differences of real(op(z)) + 2 imag(op(z)) w.r.t. a and b.
  test::check_grad({vec("unary/" + op + "/input/a"), vec("unary/" + op + "/input/b")},
                   [&](const Vs& a) {
                     Value v = fn(a);
                     return add(real(v), multiply(imag(v), ad::full_like(imag(v), 2.0)));
                   });
}

INSTANTIATE_TEST_SUITE_P(Autodiff, ComplexUnary,
                         ::testing::Values("negate", "exponential", "exponential_minus_one", "log",
                                           "log_plus_one", "logistic", "sqrt", "rsqrt", "sine",
                                           "cosine", "tan", "tanh"),
                         [](const auto& info) { return std::string(info.param); });

class ComplexBinary : public ::testing::TestWithParam<const char*> {};

TEST_P(ComplexBinary, MatchesJaxAndFiniteDifferences) {
  std::string op = GetParam();
  std::string c = "binary/" + op;
  auto fn = [&](const Vs& a) { return binary(op, complex(a[0], a[1]), complex(a[2], a[3])); };
  check_against_jax(c, {"a", "b", "c", "d", "w1", "w2"},
                    [&](const Vs& a) { return parts_loss(fn(a), a[4], a[5]); });
  test::check_grad(
      {vec(c + "/input/a"), vec(c + "/input/b"), vec(c + "/input/c"), vec(c + "/input/d")},
      [&](const Vs& a) {
        Value v = fn(a);
        return subtract(real(v), imag(v));
      });
}

INSTANTIATE_TEST_SUITE_P(Autodiff, ComplexBinary,
                         ::testing::Values("add", "subtract", "multiply", "divide", "power"),
                         [](const auto& info) { return std::string(info.param); });

TEST(AutodiffComplex, AbsOfComplexMatchesJaxIncludingAtZero) {
  // The first element is 0 + 0i: JAX's gradient there is 0 (and so is ours).
  check_against_jax("abs/complex", {"a", "b", "w1"},
                    [](const Vs& a) { return sum_all(multiply(a[2], abs(complex(a[0], a[1])))); });
  Array a = vec("abs/complex/input/a"), b = vec("abs/complex/input/b");
  static_cast<double*>(a.data())[0] = 0.3;  // away from the kink for the finite differences
  test::check_grad({a, b}, [](const Vs& x) { return abs(complex(x[0], x[1])); });
}

TEST(AutodiffComplex, ComplexMatmulMatchesJaxAndFiniteDifferences) {
  auto mm = [](const Vs& a) {
    DotDimensionNumbers dn;
    dn.lhs_contracting_dimensions = {1};
    dn.rhs_contracting_dimensions = {0};
    return dot_general(complex(a[0], a[1]), complex(a[2], a[3]), dn);
  };
  check_against_jax("struct/matmul", {"a", "b", "c", "d", "w1", "w2"},
                    [&](const Vs& a) { return parts_loss(mm(a), a[4], a[5]); });
  test::check_grad({vec("struct/matmul/input/a"), vec("struct/matmul/input/b"),
                    vec("struct/matmul/input/c"), vec("struct/matmul/input/d")},
                   [&](const Vs& a) {
                     Value v = mm(a);
                     return add(real(v), imag(v));
                   });
}

// transpose, slice, reshape, broadcast_in_dim, reduce (sum), concatenate and convert f64 -> c128
// of complex values (the generator's `shapes`).
Value shapes(const Vs& a) {
  Value zc = complex(a[0], a[1]);
  Value t = transpose(zc, {1, 0});
  Value s = slice(t, {1, 0}, {3, 2});
  Value r = reshape(s, {4});
  Value q = ad::reduce_sum(broadcast_in_dim(r, {3, 4}, {1}), {0});
  return concatenate({q, convert(a[2], DType::c128)}, 0);
}

TEST(AutodiffComplex, ShapeOpsReduceConcatenateAndConvertMatchJaxAndFiniteDifferences) {
  check_against_jax("struct/shapes", {"a", "b", "c", "w1", "w2"}, [](const Vs& a) {
    Value v = shapes(a);
    return sum_all(add(multiply(a[3], real(multiply(v, v))), multiply(a[4], imag(v))));
  });
  test::check_grad(
      {vec("struct/shapes/input/a"), vec("struct/shapes/input/b"), vec("struct/shapes/input/c")},
      [](const Vs& a) {
        Value v = shapes(a);
        return add(real(multiply(v, v)), imag(v));
      });
}

TEST(AutodiffComplex, SelectOfComplexMatchesJaxAndFiniteDifferences) {
  auto sel = [](const Vs& a) {
    Value z1 = complex(a[0], a[1]), z2 = complex(a[2], a[3]);
    return select(compare(a[0], a[2], ComparisonDirection::GT), multiply(z1, z2), exponential(z1));
  };
  check_against_jax("struct/select", {"a", "b", "c", "d", "w1", "w2"},
                    [&](const Vs& a) { return parts_loss(sel(a), a[4], a[5]); });
  test::check_grad({vec("struct/select/input/a"), vec("struct/select/input/b"),
                    vec("struct/select/input/c"), vec("struct/select/input/d")},
                   [&](const Vs& a) {
                     Value v = sel(a);
                     return add(real(v), imag(v));
                   });
}

TEST(AutodiffComplex, ConvertBetweenPrecisionsAndFromRealMatchesFiniteDifferences) {
  // f64 -> c128 and c128 -> c64 -> c128 (single precision in the middle: a looser tolerance).
  test::check_grad(
      {test::rand_f64({4}, 31), test::rand_f64({4}, 32)},
      [](const Vs& a) {
        Value zc = add(complex(a[0], a[1]), convert(a[0], DType::c128));
        Value y = convert(convert(multiply(zc, zc), DType::c64), DType::c128);
        return add(real(y), imag(y));
      },
      {}, 1e-3, 1e-4);
}

TEST(AutodiffComplex, WhileAndIfCarryComplexValues) {
  // z -> z * z three times in a counted loop, inside an if branch: real-in, real-out.
  test::check_grad(
      {test::rand_f64({3}, 41, 0.5, 1.0), test::rand_f64({3}, 42, -0.5, 0.5)}, [](const Vs& a) {
        Func& f = a[0].func();
        Value zc = complex(a[0], a[1]);
        Value p = compare(constant(f, 1.0, DType::f64), constant(f, 0.0, DType::f64),
                          ComparisonDirection::GT);
        Value out = if_(
            p,
            [&] {
              Value i0 = constant(f, 0, DType::i32);
              Vs r = while_loop(
                  {i0, zc},
                  [&](const Vs& s) {
                    return Vs{compare(s[0], constant(f, 3, DType::i32), ComparisonDirection::LT)};
                  },
                  [&](const Vs& s) {
                    return Vs{add(s[0], constant(f, 1, DType::i32)), multiply(s[1], s[1])};
                  });
              return Vs{r[1]};
            },
            [&] { return Vs{zc}; })[0];
        return add(real(out), imag(out));
      });
}

TEST(AutodiffComplex, IndexingOpsOfComplexMatchFiniteDifferences) {
  // pad (with an active complex padding value), reverse, dynamic_slice, dynamic_update_slice,
  // gather, sum reduce_window and sort (by a real key) of complex values: real-in, real-out.
  test::check_grad(
      {test::rand_f64({4, 3}, 61), test::rand_f64({4, 3}, 62), test::rand_f64({}, 63)},
      [](const Vs& a) {
        Func& f = a[0].func();
        Value zc = complex(a[0], a[1]);
        Value pv = complex(a[2], multiply(a[2], a[2]));
        Value p = pad(zc, pv, {1, 0}, {0, 1}, {1, 0});  // [8, 4]
        Value r = reverse(p, {0, 1});
        Value i1 = constant(f, 1, DType::i32), i2 = constant(f, 2, DType::i32);
        Value ds = dynamic_slice(r, {i1, i2}, {5, 2});                               // [5, 2]
        Value upd = multiply(slice(ds, {0, 0}, {2, 2}), slice(ds, {3, 0}, {5, 2}));  // [2, 2]
        Value du = dynamic_update_slice(ds, upd, {i2, i1});                          // [5, 2]
        GatherDimensionNumbers dn{.offset_dims = {1},
                                  .collapsed_slice_dims = {0},
                                  .start_index_map = {0},
                                  .index_vector_dim = 1};
        Value rows = gather(du, constant<int32_t>(f, {3, 1}, {4, 0, 2}), dn, {1, 2});  // [3, 2]
        Value zero = constant(f, 0.0, DType::c128);
        Value win = reduce_window({rows}, {zero}, {2, 1}, {},
                                  [](const Vs& x) { return Vs{add(x[0], x[1])}; })[0];  // [2, 2]
        Value key = real(win);
        Vs sorted = sort({key, win}, 1, [](const Vs& x) {
          return Vs{compare(x[0], x[1], ComparisonDirection::LT)};
        });
        return add(real(sorted[1]), multiply(imag(sorted[1]), sorted[0]));
      });
}

TEST(AutodiffComplex, ScatterAddAndProductReduceOfComplexMatchFiniteDifferences) {
  test::check_grad({test::rand_f64({4, 3}, 71, 0.5, 1.0), test::rand_f64({4, 3}, 72),
                    test::rand_f64({2, 3}, 73)},
                   [](const Vs& a) {
                     Func& f = a[0].func();
                     Value zc = complex(a[0], a[1]);
                     Value upd = complex(a[2], a[2]);
                     ScatterDimensionNumbers dn{.update_window_dims = {1},
                                                .inserted_window_dims = {0},
                                                .scatter_dims_to_operand_dims = {0},
                                                .index_vector_dim = 1};
                     Value sc = scatter({zc}, constant<int32_t>(f, {2, 1}, {1, 3}), {upd}, dn,
                                        [](const Vs& x) { return Vs{add(x[0], x[1])}; })[0];
                     Value one = constant(f, 1.0, DType::c128);
                     Value prod = reduce(sc, one, {0},
                                         [](Value p, Value q) { return multiply(p, q); });  // [3]
                     return add(real(prod), imag(prod));
                   });
}

// ---------------------------------------------------------------- complex inputs and cotangents

TEST(AutodiffComplex, GradWithRespectToAComplexInputFollowsJax) {
  // JAX: grad(sum(|z|^2))(z) = 2 conj(z) (dL/dx - i dL/dy).
  check_against_jax("wrt_complex/abs_sq", {"z"},
                    [](const Vs& a) { return sum_all(multiply(abs(a[0]), abs(a[0]))); });
  check_against_jax("wrt_complex/real_exp_imag_sq", {"z", "w1"}, [](const Vs& a) {
    return sum_all(add(multiply(a[1], real(exponential(a[0]))), imag(multiply(a[0], a[0]))));
  });
}

TEST(AutodiffComplex, VjpOfHolomorphicOpsIsCotangentTimesDerivativeAsInJax) {
  {
    Array z = vec("vjp/exp/input/z"), ct = vec("vjp/exp/input/ct");
    Module m;
    Func& f = m.add_func("main", {z.type(), ct.type()});
    Value y = exponential(f.arg(0));
    f.ret(ad::vjp({y}, ad::Wrt{f.arg(0)}, ad::Cotangents{f.arg(1)}));
    expect_close(run(m, {z, ct})[0], vec("vjp/exp/grad/z"), 1e-14, "vjp exp");
  }
  {
    Array z = vec("vjp/multiply/input/z"), z2 = vec("vjp/multiply/input/z2"),
          ct = vec("vjp/multiply/input/ct");
    Module m;
    Func& f = m.add_func("main", {z.type(), z2.type(), ct.type()});
    Value y = multiply(f.arg(0), f.arg(1));
    f.ret(ad::vjp({y}, ad::Wrt{f.arg(0), f.arg(1)}, ad::Cotangents{f.arg(2)}));
    auto out = run(m, {z, z2, ct});
    expect_close(out[0], vec("vjp/multiply/grad/z"), 1e-14, "vjp multiply d/dz");
    expect_close(out[1], vec("vjp/multiply/grad/z2"), 1e-14, "vjp multiply d/dz2");
  }
}

// ---------------------------------------------------------------- no silent zeros

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(AutodiffComplex, ChainThroughAnOpWithoutARuleIsAnErrorNamingIt) {
  // real -> complex -> map -> real: map has no VJP rule; the chain must not yield zeros silently.
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {8}}});
  Value zc = complex(f.arg(0), ad::full_like(f.arg(0), 0.0));
  Value mapped = map({zc}, [](const std::vector<Value>& a) { return std::vector<Value>{a[0]}; });
  Value loss = sum_all(real(mapped));
  std::string msg = error_of([&] { ad::grad(loss, {f.arg(0)}); });
  EXPECT_NE(msg.find("no VJP rule for op 'stablehlo.map'"), std::string::npos) << msg;
}

TEST(AutodiffComplex, ComplexOperandOfARealOnlyRuleIsAnErrorNamingTheOp) {
  // maximum has a rule for real operands only: on complex ones it names itself.
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {4}}, {DType::f32, {4}}});
  Value z1 = complex(f.arg(0), f.arg(1)), z2 = complex(f.arg(1), f.arg(0));
  Value loss = sum_all(real(maximum(z1, z2)));
  std::string msg = error_of([&] { ad::grad(loss, {f.arg(0)}); });
  EXPECT_NE(msg.find("VJP of 'stablehlo.maximum'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("complex operands"), std::string::npos) << msg;
}

TEST(AutodiffComplex, ReduceWithAnActiveInitValueGetsItsGradient) {
  // reduce(x, init = y) with a sum body: d/dy of sum(reduce(x, y) over dim 1) = number of rows.
  test::check_grad({test::rand_f64({2, 3}, 51), test::rand_f64({}, 52)}, [](const Vs& a) {
    return reduce(a[0], a[1], {1}, [](Value p, Value q) { return add(p, q); });
  });
}

}  // namespace
}  // namespace hhlo
