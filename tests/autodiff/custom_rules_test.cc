// ad::CustomJvp and ad::CustomVjp (JAX's jax.custom_jvp / jax.custom_vjp, issue 23) under jvp,
// grad (custom_jvp's rule transposed), hessian, vmap of grad and grad of vmap. The rules are
// deliberately not the functions' derivatives, so a transformation that ignored them would
// differ. Expected values: JAX 0.10.2 in f64 (tests/autodiff/gen_custom_rules_vectors.py, run by
// the test build into HHLO_GENERATED_DIR/custom_rules_vectors.txt), same functions and rules.
#include <gtest/gtest.h>

#include <map>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/autodiff/custom.h"
#include "hhlo/autodiff/vmap.h"
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
      test::read_generated_vectors("custom_rules_vectors.txt", "gen_custom_rules_vectors.py");
  return test::vector_named(v, name);
}

Value sin_times(const Vs& a) { return np::sin(a[0]) * Tensor(a[1]); }

// f(x, y) = sin(x) y with the JVP rule 2 cos(x) y tx + x ty.
ad::CustomJvp make_f() {
  ad::CustomJvp f("f", [](const Vs& a) { return Vs{sin_times(a)}; });
  f.defjvp([](const Vs& p, const Vs& t) {
    Tensor x = p[0], y = p[1];
    return std::pair{Vs{sin_times(p)}, Vs{2.0 * np::cos(x) * y * t[0] + x * t[1]}};
  });
  return f;
}

// g(x, y) = sin(x) y with fwd residuals (cos x, y, sin x) and bwd (3 ct cos(x) y, ct sin(x) / 2);
// with `none`, bwd gives y no cotangent.
ad::CustomVjp make_g(bool none = false) {
  ad::CustomVjp g("g", [](const Vs& a) { return Vs{sin_times(a)}; });
  g.defvjp(
      [](const Vs& p) {
        return std::pair{Vs{sin_times(p)}, Vs{np::cos(p[0]), p[1], np::sin(p[0])}};
      },
      [none](const Vs& r, const Vs& ct) {
        Tensor c = ct[0];
        std::vector<ad::Cotangent> out{Value(c * r[0] * r[1] * 3.0)};
        out.push_back(none ? ad::Cotangent{} : ad::Cotangent{Value(c * r[2] * 0.5)});
        return out;
      });
  return g;
}

// sum(fn(x, y)^2)
ad::ScalarFn sq(std::function<Vs(const Vs&)> fn) {
  return [fn](const Vs& a) {
    Tensor y = fn(a)[0];
    return Value(np::sum(y * y));
  };
}

// Builds @main(x [3], y [3], tx [3], ty [3], xs [4, 3], txs [4, 3]) returning `build(args)`, runs
// it on JAX's inputs and compares result i with JAX's vector names[i].
void expect_jax(const std::function<Vs(const Vs&)>& build, const std::vector<std::string>& names) {
  Module m;
  TensorType v3(DType::f64, {3}), m43(DType::f64, {4, 3});
  Func& fn = m.add_func("main", {v3, v3, v3, v3, m43, m43});
  Vs outs = build(fn.args());
  ASSERT_EQ(outs.size(), names.size());
  fn.ret(outs);
  auto got =
      run(m, {jax("in/x"), jax("in/y"), jax("in/tx"), jax("in/ty"), jax("in/xs"), jax("in/txs")});
  for (size_t i = 0; i < names.size(); ++i)
    test::expect_close(got[i], jax(names[i]), 1e-12, names[i]);
}

TEST(CustomJvp, JvpUsesTheRule) {
  auto f = make_f();
  expect_jax(
      [&](const Vs& a) {
        auto [ys, ts] = ad::jvp(f, {a[0], a[1]}, {a[2], a[3]});
        return Vs{ys[0], ts[0]};
      },
      {"jvp_value/0", "jvp_value/1"});
}

TEST(CustomJvp, GradTransposesTheRule) {
  auto f = make_f();
  expect_jax(
      [&](const Vs& a) {
        return ad::grad(sq(f), {a[0], a[1]}, Ix{0, 1});
      },
      {"jvp_grad/0", "jvp_grad/1"});
}

TEST(CustomJvp, HessianDifferentiatesTheRule) {
  auto f = make_f();
  expect_jax(
      [&](const Vs& a) {
        Value y = a[1];
        return Vs{ad::hessian([&](const Vs& x) { return sq(f)({x[0], y}); }, {a[0]})};
      },
      {"jvp_hessian"});
}

TEST(CustomJvp, VmapOfGradAndGradOfVmap) {
  auto f = make_f();
  expect_jax(
      [&](const Vs& a) {
        return ad::vmap(
            [&](const Vs& p) {
              return ad::grad(sq(f), p, Ix{0, 1});
            },
            {a[4], a[1]}, {0, std::nullopt});
      },
      {"jvp_vmap_of_grad/0", "jvp_vmap_of_grad/1"});
  expect_jax(
      [&](const Vs& a) {
        ad::ScalarFn loss = [&](const Vs& p) {
          Tensor y = ad::vmap(f, p, {0, std::nullopt})[0];
          return Value(np::sum(y * y));
        };
        return ad::grad(loss, {a[4], a[1]}, Ix{0, 1});
      },
      {"jvp_grad_of_vmap/0", "jvp_grad_of_vmap/1"});
  expect_jax(
      [&](const Vs& a) {
        auto [ys, ts] = ad::jvp(
            [&](const Vs& p) {
              return ad::vmap(f, p, {0, std::nullopt});
            },
            {a[4], a[1]}, {a[5], a[3]});
        return Vs{ys[0], ts[0]};
      },
      {"jvp_jvp_of_vmap/0", "jvp_jvp_of_vmap/1"});
}

TEST(CustomVjp, GradUsesFwdAndBwd) {
  auto g = make_g();
  expect_jax(
      [&](const Vs& a) {
        Vs out{g({a[0], a[1]})[0]};
        for (Value v : ad::grad(sq(g), {a[0], a[1]}, Ix{0, 1})) out.push_back(v);
        return out;
      },
      {"vjp_value", "vjp_grad/0", "vjp_grad/1"});
  auto g_none = make_g(true);
  expect_jax(
      [&](const Vs& a) {
        return ad::grad(sq(g_none), {a[0], a[1]}, Ix{0, 1});
      },
      {"vjp_grad_none/0", "vjp_grad_none/1"});
}

TEST(CustomVjp, VmapOfGradAndGradOfVmap) {
  auto g = make_g();
  expect_jax(
      [&](const Vs& a) {
        return ad::vmap(
            [&](const Vs& p) {
              return ad::grad(sq(g), p, Ix{0, 1});
            },
            {a[4], a[1]}, {0, std::nullopt});
      },
      {"vjp_vmap_of_grad/0", "vjp_vmap_of_grad/1"});
  expect_jax(
      [&](const Vs& a) {
        ad::ScalarFn loss = [&](const Vs& p) {
          Tensor y = ad::vmap(g, p, {0, std::nullopt})[0];
          return Value(np::sum(y * y));
        };
        return ad::grad(loss, {a[4], a[1]}, Ix{0, 1});
      },
      {"vjp_grad_of_vmap/0", "vjp_grad_of_vmap/1"});
}

// The message of the hhlo::Error `fn` throws ("" when none).
std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(CustomRules, Errors) {
  Module m;
  Func& fn = m.add_func("main", {{DType::f64, {3}}, {DType::f64, {3}}});
  Vs a = fn.args();
  auto has = [](const std::string& msg, const std::string& part) {
    EXPECT_NE(msg.find(part), std::string::npos) << msg;
  };
  auto g = make_g();
  has(error_of([&] { ad::jvp(g, a, a); }),
      "can't apply forward-mode autodiff (jvp) to custom_vjp function 'g'");
  ad::CustomJvp no_rule("no_rule", [](const Vs& p) { return Vs{sin_times(p)}; });
  has(error_of([&] { ad::grad(sq(no_rule), a); }), "custom_jvp 'no_rule'");
  has(error_of([&] { ad::grad(sq(no_rule), a); }), "call defjvp");
  ad::CustomJvp bad("bad", [](const Vs& p) { return Vs{sin_times(p)}; });
  bad.defjvp([](const Vs& p, const Vs& t) { return std::pair{Vs{sin_times(p)}, Vs{t[0], t[1]}}; });
  has(error_of([&] { ad::jvp(bad, a, a); }),
      "the JVP rule's tangents returned 2 values, expected 1");
  Value outer = a[1];
  ad::CustomJvp closes("closes", [&](const Vs& p) { return Vs{np::sin(p[0]) * Tensor(outer)}; });
  has(error_of([&] { closes({a[0]}); }), "custom_jvp 'closes': tracing the function failed");
  Value y;
  {
    auto gone = make_f();
    y = gone({a[0], a[1]})[0];
  }
  has(error_of([&] { ad::grad(np::sum(Tensor(y)), {a[0]}); }), "no longer exists");
}

}  // namespace
}  // namespace hhlo
