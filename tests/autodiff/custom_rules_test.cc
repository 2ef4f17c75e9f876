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

// h(x, s) = sin(x) s with nondiff_argnums (1,) and the rule (s, x, tx) -> 3 cos(x) s tx.
ad::CustomJvp make_h() {
  ad::CustomJvp h("h", [](const Vs& a) { return Vs{sin_times(a)}; }, {1});
  h.defjvp([](const Vs& nondiff, const Vs& p, const Vs& t) {
    Tensor x = p[0], s = nondiff[0];
    return std::pair{Vs{sin_times({p[0], nondiff[0]})}, Vs{3.0 * np::cos(x) * s * t[0]}};
  });
  return h;
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

// Expects `part` in the error message `msg`.
void has(const std::string& msg, const std::string& part) {
  EXPECT_NE(msg.find(part), std::string::npos) << msg;
}

// The arguments of a new @main(x [3] f64, y [3] f64) in `m`.
Vs two_args(Module& m) { return m.add_func("main", {{DType::f64, {3}}, {DType::f64, {3}}}).args(); }

// The message of the hhlo::Error `fn` throws ("" when none).
std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
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

TEST(CustomJvp, NondiffArgnumsAsJax) {
  // JAX's custom_jvp(h, nondiff_argnums=(1,)): the rule gets s apart and no tangent for it; s's
  // gradient is zero (JAX stops it), in jvp, grad and vmap of grad.
  auto h = make_h();
  expect_jax(
      [&](const Vs& a) {
        auto [ys, ts] = ad::jvp(h, {a[0], a[1]}, {a[2], a[3]});
        return Vs{ys[0], ts[0]};
      },
      {"nondiff_jvp/0", "nondiff_jvp/1"});
  expect_jax(
      [&](const Vs& a) {
        return ad::grad(sq(h), {a[0], a[1]}, Ix{0, 1});
      },
      {"nondiff_grad/0", "nondiff_grad/1"});
  expect_jax(
      [&](const Vs& a) {
        return ad::vmap(
            [&](const Vs& p) {
              return ad::grad(sq(h), p, Ix{0, 1});
            },
            {a[4], a[1]}, {0, std::nullopt});
      },
      {"nondiff_vmap_of_grad/0", "nondiff_vmap_of_grad/1"});
}

TEST(CustomJvp, ReverseModeOfANonLinearRuleIsAnError) {
  // A rule that is not linear in the tangents: forward mode uses it as it is (as JAX), reverse
  // mode, which transposes it, names the function and the op.
  Module m;
  Vs a = two_args(m);
  auto rule_of = [](std::function<Tensor(Tensor, Tensor)> tangent) {
    ad::CustomJvp f("nonlinear", [](const Vs& p) { return Vs{sin_times(p)}; });
    f.defjvp([tangent](const Vs& p, const Vs& t) {
      return std::pair{Vs{sin_times(p)}, Vs{tangent(t[0], t[1])}};
    });
    return f;
  };
  auto sine = rule_of([](Tensor tx, Tensor) { return np::sin(tx); });
  EXPECT_NO_THROW(ad::jvp(sine, a, a));
  std::string e = error_of([&] { ad::grad(sq(sine), a); });
  has(e, "custom_jvp 'nonlinear': the JVP rule is not linear in the tangents");
  has(e, "'stablehlo.sine'");
  has(e, "takes a tangent");
  auto square = rule_of([](Tensor tx, Tensor ty) { return tx * ty; });
  has(error_of([&] { ad::grad(sq(square), a); }), "multiplies two tangents");
  auto quotient = rule_of([](Tensor tx, Tensor ty) { return tx / ty; });
  has(error_of([&] { ad::grad(sq(quotient), a); }), "divides by a tangent");
  // Linear rules of every shape pass: scaled, summed, broadcast, divided by a primal.
  auto linear = rule_of([](Tensor tx, Tensor ty) { return (tx * 2.0 + ty) / 3.0 - np::sum(tx); });
  EXPECT_NO_THROW(ad::grad(sq(linear), a));
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

TEST(CustomRules, Errors) {
  Module m;
  Vs a = two_args(m);
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
  // nondiff_argnums: repeated, out of range, and the rule of the other form.
  has(error_of([&] {
        ad::CustomJvp("rep", [](const Vs& p) { return p; }, {1, 1});
      }),
      "custom_jvp 'rep': repeated index in nondiff_argnums");
  ad::CustomJvp far("far", [](const Vs& p) { return p; }, {2});
  has(error_of([&] { far(a); }), "nondiff_argnums entry 2 out of range (2 arguments)");
  has(error_of([&] { far.defjvp([](const Vs& p, const Vs& t) {
                       return std::pair{p, t};
                     }); }),
      "it has nondiff_argnums, so its rule takes (nondiff, primals, tangents)");
  ad::CustomJvp plain("plain", [](const Vs& p) { return p; });
  has(error_of([&] {
        plain.defjvp([](const Vs&, const Vs& p, const Vs& t) { return std::pair{p, t}; });
      }),
      "a rule taking (nondiff, primals, tangents) needs nondiff_argnums");
}

}  // namespace
}  // namespace hhlo
