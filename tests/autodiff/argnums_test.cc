// The transforms with a set of argnums (issue 23), JAX's `argnums=(a, b)`: grad and
// value_and_grad return one gradient per argnum, jacfwd / jacrev one block per (result, argnum),
// hessian the nested blocks with the cross blocks d2f / dxi dxk; the single-index forms too.
// Expected values: JAX 0.10.2 in f64 (tests/autodiff/gen_argnums_vectors.py, run by the test
// build into HHLO_GENERATED_DIR/argnums_vectors.txt), for the same f and g written here in hhlo.
#include <gtest/gtest.h>

#include <map>
#include <type_traits>
#include <utility>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/ops/reductions.h"
#include "hhlo/ops/tensor.h"
#include "hhlo/session.h"
#include "vectors_util.h"
#include "vmap_util.h"

namespace hhlo {
namespace {

using Vs = std::vector<Value>;
using Ix = std::vector<size_t>;

const Array& jax(const std::string& name) {
  static const std::map<std::string, Array> v =
      test::read_generated_vectors("argnums_vectors.txt", "gen_argnums_vectors.py");
  return test::vector_named(v, name);
}

// f(x, y, z) = sum(sin(x) y^2) + sum(x y) sum(exp(z)), as gen_argnums_vectors.py's f.
Value f(const Vs& a) {
  Tensor x = a[0], y = a[1], z = a[2];
  return np::sum(np::sin(x) * y * y) + np::sum(x * y) * np::sum(np::exp(z));
}

// g(x, y, z) = (sin(x) y^2, sum(x y) exp(z)), as gen_argnums_vectors.py's g.
Vs g(const Vs& a) {
  Tensor x = a[0], y = a[1], z = a[2];
  return {np::sin(x) * y * y, np::sum(x * y) * np::exp(z)};
}

// Builds @main(x [3], y [3], z [2]) returning `build(args)` (flat), runs it on JAX's inputs and
// compares result i with JAX's vector names[i].
void expect_jax(const std::function<Vs(const Vs&)>& build, const std::vector<std::string>& names) {
  Module m;
  Func& fn = m.add_func("main", {{DType::f64, {3}}, {DType::f64, {3}}, {DType::f64, {2}}});
  Vs outs = build(fn.args());
  ASSERT_EQ(outs.size(), names.size());
  fn.ret(outs);
  auto got = run(m, {jax("in/0"), jax("in/1"), jax("in/2")});
  for (size_t i = 0; i < names.size(); ++i)
    test::expect_close(got[i], jax(names[i]), 1e-12, names[i]);
}

// Flattens nested blocks (outer, then inner) into one list.
Vs flat(const std::vector<Vs>& blocks) {
  Vs out;
  for (const Vs& b : blocks) out.insert(out.end(), b.begin(), b.end());
  return out;
}

// One argument order (issue 23): the traced forms are JAX's `vjp(f, *primals)` (results and a
// pullback) and `jvp(f, primals, tangents)`; the value-level cores both take (outputs, wrt, seeds).
Vs seeds(const Vs& a, const char* kind, int n) {
  Vs out;
  for (int i = 0; i < n; ++i)
    out.push_back(constant(a[0].func(), jax(std::string(kind) + "/" + std::to_string(i))));
  return out;
}

TEST(ArgumentOrder, TracedVjpAndJvpMatchJax) {
  expect_jax(
      [](const Vs& a) {
        auto [ys, pullback] = ad::vjp(g, a);
        Vs cts = seeds(a, "ct", 2);
        Vs out = ys;
        for (Value c : pullback({cts[0], cts[1]})) out.push_back(c);
        return out;
      },
      {"vjp/0", "vjp/1", "vjp/2", "vjp/3", "vjp/4"});
  expect_jax(
      [](const Vs& a) {
        auto [ys, ts] = ad::jvp(g, a, seeds(a, "tan", 3));
        Vs out = ys;
        out.insert(out.end(), ts.begin(), ts.end());
        return out;
      },
      {"jvp/0", "jvp/1", "jvp/2", "jvp/3"});
}

TEST(ArgumentOrder, CoreVjpAndJvpTakeOutputsWrtSeeds) {
  expect_jax(
      [](const Vs& a) {
        Vs ys = g(a), cts = seeds(a, "ct", 2);
        Vs out = ad::vjp(ys, ad::Wrt{a}, ad::Cotangents{cts[0], cts[1]});
        out.insert(out.begin(), ys.begin(), ys.end());
        return out;
      },
      {"vjp/0", "vjp/1", "vjp/2", "vjp/3", "vjp/4"});
  expect_jax(
      [](const Vs& a) {
        Vs ys = g(a), ts = seeds(a, "tan", 3);
        Vs out = ad::jvp(ys, ad::Wrt{a}, ad::Tangents{ts[0], ts[1], ts[2]});
        out.insert(out.begin(), ys.begin(), ys.end());
        return out;
      },
      {"jvp/0", "jvp/1", "jvp/2", "jvp/3"});
}

// The value-level cores take three distinct types, so a call that swaps two lists does not
// compile: the old `vjp(outputs, cotangents, wrt)` with plain vectors, the same with braced lists
// of values (where both orders used to compile and silently swap the roles), and the wrappers
// swapped. The same holds for jvp. Checked at compile time; the test below only names them.
template <class... A>
concept VjpCompiles = requires(A&&... a) {
  ad::vjp(std::forward<A>(a)...);
};
template <class... A>
concept JvpCompiles = requires(A&&... a) {
  ad::jvp(std::forward<A>(a)...);
};
template <class V>
concept VjpOfBracedValuesCompiles = requires(V y, V x, V c) {
  ad::vjp({y}, {x}, {c});
};
template <class V>
concept JvpOfBracedValuesCompiles = requires(V y, V x, V t) {
  ad::jvp({y}, {x}, {t});
};
using Cts = std::vector<ad::Cotangent>;
using Ts = std::vector<ad::Tangent>;
static_assert(VjpCompiles<Vs, ad::Wrt, ad::Cotangents>);
static_assert(!VjpCompiles<Vs, Cts, Vs>, "the 0.1.0 order (outputs, cotangents, wrt)");
static_assert(!VjpCompiles<Vs, Vs, Cts>, "plain vectors in the current order");
static_assert(!VjpCompiles<Vs, Vs, Vs>);
static_assert(!VjpCompiles<Vs, ad::Cotangents, ad::Wrt>, "the wrappers swapped");
static_assert(!VjpCompiles<ad::Wrt, Vs, ad::Cotangents>, "outputs and wrt swapped");
static_assert(!VjpOfBracedValuesCompiles<Value>, "braced lists: no order compiles");
static_assert(!std::is_convertible_v<Vs, ad::Wrt> && !std::is_convertible_v<Cts, ad::Cotangents>);
static_assert(JvpCompiles<Vs, ad::Wrt, ad::Tangents>);
static_assert(!JvpCompiles<Vs, Vs, Ts>, "plain vectors");
static_assert(!JvpCompiles<Vs, ad::Tangents, ad::Wrt>, "the wrappers swapped");
static_assert(!JvpCompiles<ad::Wrt, Vs, ad::Tangents>, "outputs and wrt swapped");
static_assert(!JvpOfBracedValuesCompiles<Value>, "braced lists: no order compiles");
static_assert(!std::is_convertible_v<Ts, ad::Tangents>);

TEST(ArgumentOrder, SwappedListsDoNotCompile) {
  // The static_asserts above are the test; this records that it ran as part of the suite.
  SUCCEED() << "vjp(outputs, Wrt, Cotangents) and jvp(outputs, Wrt, Tangents) only";
}

TEST(ArgumentOrder, TracedVjpErrors) {
  Module m;
  Func& fn = m.add_func("main", {{DType::f64, {3}}, {DType::i32, {3}}});
  EXPECT_THROW(ad::vjp(g, Vs{}), Error);
  try {
    ad::vjp([](const Vs& a) { return a; }, {fn.arg(0), fn.arg(1)});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("integer tensor (primal 1"), std::string::npos)
        << e.what();
  }
  auto [ys, pullback] = ad::vjp([](const Vs& a) { return Vs{np::sin(Tensor(a[0]))}; }, {fn.arg(0)});
  EXPECT_THROW(pullback({}), Error);  // one cotangent per result
}

TEST(Argnums, GradWithATupleOfArgnumsMatchesJax) {
  expect_jax([](const Vs& a) { return ad::grad(f, a, Ix{2, 0}); }, {"grad_2_0/0", "grad_2_0/1"});
  expect_jax([](const Vs& a) { return Vs{ad::grad(f, a, 1)}; }, {"grad_1"});
}

TEST(Argnums, ValueAndGradWithATupleOfArgnumsMatchesJax) {
  expect_jax(
      [](const Vs& a) {
        auto [v, gs] = ad::value_and_grad(f, a, Ix{0, 2});
        return Vs{v, gs[0], gs[1]};
      },
      {"value_and_grad_0_2/0", "value_and_grad_0_2/1/0", "value_and_grad_0_2/1/1"});
  expect_jax(
      [](const Vs& a) {
        auto [v, g2] = ad::value_and_grad(f, a, 2);
        return Vs{v, g2};
      },
      {"value_and_grad_2/0", "value_and_grad_2/1"});
}

TEST(Argnums, JacfwdAndJacrevGiveOneBlockPerResultAndArgnumAsJax) {
  expect_jax(
      [](const Vs& a) {
        return flat(ad::jacfwd(g, a, Ix{0, 2}));
      },
      {"jacfwd_0_2/0/0", "jacfwd_0_2/0/1", "jacfwd_0_2/1/0", "jacfwd_0_2/1/1"});
  expect_jax(
      [](const Vs& a) {
        return flat(ad::jacrev(g, a, Ix{2, 1}));
      },
      {"jacrev_2_1/0/0", "jacrev_2_1/0/1", "jacrev_2_1/1/0", "jacrev_2_1/1/1"});
}

TEST(Argnums, HessianHasTheCrossBlocksAsJax) {
  expect_jax(
      [](const Vs& a) {
        return flat(ad::hessian(f, a, Ix{0, 2}));
      },
      {"hessian_0_2/0/0", "hessian_0_2/0/1", "hessian_0_2/1/0", "hessian_0_2/1/1"});
  expect_jax([](const Vs& a) { return Vs{ad::hessian(f, a, 1)}; }, {"hessian_1"});
}

TEST(Argnums, EmptyRepeatedOrOutOfRangeArgnumsAreErrors) {
  Module m;
  Func& fn = m.add_func("main", {{DType::f64, {3}}, {DType::f64, {3}}, {DType::f64, {2}}});
  Vs a = fn.args();
  EXPECT_THROW(ad::jacfwd(g, a, Ix{}), Error);
  EXPECT_THROW(ad::jacrev(g, a, Ix{0, 0}), Error);
  EXPECT_THROW(ad::jacfwd(g, a, Ix{3}), Error);
  EXPECT_THROW(ad::hessian(f, a, Ix{1, 1}), Error);
  try {
    ad::grad(f, a, 3);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "grad: argnum 3 out of range (3 primals)");
  }
  try {
    ad::value_and_grad(f, a, Ix{2, 2});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "grad: argnum 2 given twice");
  }
}

TEST(Argnums, AnIntegerArgnumIsAnError) {
  Module m;
  Func& fn = m.add_func("main", {{DType::f64, {3}}, {DType::i32, {3}}});
  ad::ScalarFn h = [](const Vs& a) { return Value(np::sum(Tensor(a[0]))); };
  try {
    ad::grad(h, fn.args(), Ix{0, 1});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("argnum 1 of integer type tensor<3xi32>"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace hhlo
