// vmap of functions that close over values of the enclosing function (issue 23), as JAX code does
// constantly: the closed-over values are unbatched inside the body (JAX's in_axes None).
// Expected values: JAX 0.10.2 in f64 (tests/autodiff/gen_vmap_closure_vectors.py, run by the test
// build into HHLO_GENERATED_DIR/vmap_closure_vectors.txt), for the same functions written here.
#include <gtest/gtest.h>

#include <map>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/autodiff/vmap.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ops/reductions.h"
#include "hhlo/ops/shape_ops.h"
#include "hhlo/ops/tensor.h"
#include "hhlo/session.h"
#include "vectors_util.h"
#include "vmap_util.h"

namespace hhlo {
namespace {

using Vs = std::vector<Value>;

const Array& jax(const std::string& name) {
  static const std::map<std::string, Array> v =
      test::read_generated_vectors("vmap_closure_vectors.txt", "gen_vmap_closure_vectors.py");
  return test::vector_named(v, name);
}

Tensor layer(Tensor w, Tensor x) { return np::tanh(np::matmul(x, w)); }
Value loss(Tensor w, Tensor x) {
  Tensor y = layer(w, x);
  return np::sum(y * y);
}
// x[i] of a vector x, as a scalar.
Tensor at(Value x, int64_t i) { return reshape(slice(x, {i}, {i + 1}), {}); }

// Builds @main(xs [5, 3], w [3, 4], ys [2]) returning `build(xs, w, ys)`, runs it on JAX's
// inputs and compares with JAX's vector `name`.
void expect_jax(const std::function<Value(Value, Value, Value)>& build, const std::string& name) {
  Module m;
  Func& f = m.add_func("main", {{DType::f64, {5, 3}}, {DType::f64, {3, 4}}, {DType::f64, {2}}});
  f.ret({build(f.arg(0), f.arg(1), f.arg(2))});
  auto got = run(m, {jax("in/xs"), jax("in/w"), jax("in/ys")});
  test::expect_close(got[0], jax(name), 1e-12, name);
}

TEST(VmapClosure, BodyReadsAnArgumentAndAValueOfTheEnclosingFunction) {
  expect_jax(
      [](Value xs, Value w, Value) {
        Tensor c = np::sum(Tensor(w)) * 2.0;  // computed outside, closed over
        return ad::vmap([&](const Vs& a) { return Vs{layer(w, a[0]) * c + np::sin(at(a[0], 0))}; },
                        {xs})[0];
      },
      "outer_value");
}

TEST(VmapClosure, GradWithRespectToAClosedOverValueIsPerExample) {
  expect_jax(
      [](Value xs, Value w, Value) {
        return ad::vmap([&](const Vs& a) { return ad::grad(loss(w, a[0]), {w}); }, {xs})[0];
      },
      "per_example_grads");
}

TEST(VmapClosure, GradThroughAVmapOfTheClosedOverValue) {
  expect_jax(
      [](Value xs, Value w, Value) {
        ad::ScalarFn outer = [&](const Vs& p) {
          Tensor y = ad::vmap([&](const Vs& a) { return Vs{layer(p[0], a[0])}; }, {xs})[0];
          return Value(np::sum(y * y * y));
        };
        return ad::grad(outer, {w});
      },
      "grad_through_vmap");
}

TEST(VmapClosure, NestedVmapClosesOverTheOuterExample) {
  expect_jax(
      [](Value xs, Value, Value ys) {
        return ad::vmap(
            [&](const Vs& a) {
              Value x = a[0];
              return ad::vmap(
                  [&](const Vs& b) {
                    return Vs{np::sum(Tensor(x) * Tensor(b[0])) + Tensor(b[0]) * at(ys, 0)};
                  },
                  {ys});
            },
            {xs})[0];
      },
      "nested");
}

TEST(VmapClosure, HessianInsideTheBody) {
  expect_jax(
      [](Value xs, Value w, Value) {
        return ad::vmap(
            [&](const Vs& a) {
              return Vs{ad::hessian([&](const Vs& v) { return loss(w, v[0]); }, {a[0]})};
            },
            {xs})[0];
      },
      "hessian_in_body");
}

TEST(VmapClosure, AValueOfAnotherFunctionIsTheBuildersError) {
  Module m;
  Func& other = m.add_func("other", {{DType::f64, {3}}});
  Func& f = m.add_func("main", {{DType::f64, {5, 3}}});
  try {
    ad::vmap([&](const Vs& a) { return Vs{add(a[0], other.arg(0))}; }, {f.arg(0)});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("belongs to function @other"), std::string::npos)
        << e.what();
  }
  // The failed trace left nothing behind: the function builds on.
  f.ret({f.arg(0)});
  EXPECT_EQ(f.body().ops().size(), 1u);
}

}  // namespace
}  // namespace hhlo
