#include "gradcheck_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/autodiff/vjp_registry.h"
#include "hhlo/ir/ops.h"
#include "hhlo/session.h"

namespace hhlo::test {

Array rand_f64(Dims dims, uint64_t seed, double lo, double hi) {
  Array a(DType::f64, std::move(dims));
  std::mt19937_64 rng(seed);
  auto* p = static_cast<double*>(a.data());
  for (int64_t i = 0; i < a.num_elements(); ++i)
    p[i] = lo + (hi - lo) * static_cast<double>(rng() >> 11) / 9007199254740992.0;
  return a;
}

namespace {

std::vector<TensorType> types_of(const std::vector<Array>& a) {
  std::vector<TensorType> t;
  for (const auto& x : a) t.push_back(x.type());
  return t;
}

Value weighted_loss(Func& f, Value out, const Array& w) {
  Value prod = multiply(out, constant(f, w));
  std::vector<int64_t> all;
  for (int64_t i = 0; i < out.rank(); ++i) all.push_back(i);
  return ad::reduce_sum(prod, all);
}

}  // namespace

namespace {

std::vector<size_t> default_wrt(const std::vector<Array>& inputs, std::vector<size_t> wrt) {
  if (wrt.empty())
    for (size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i].dtype() == DType::f64) wrt.push_back(i);
  return wrt;
}

// Random directions, one per wrt argument, and the inputs moved by +-eps along them.
std::vector<Array> directions(const std::vector<Array>& inputs, const std::vector<size_t>& wrt) {
  std::vector<Array> v;
  for (size_t k = 0; k < wrt.size(); ++k)
    v.push_back(rand_f64(inputs[wrt[k]].dims(), 777 + k, -1.0, 1.0));
  return v;
}
std::vector<Array> moved(const std::vector<Array>& inputs, const std::vector<size_t>& wrt,
                         const std::vector<Array>& v, double step) {
  std::vector<Array> args = inputs;
  for (size_t k = 0; k < wrt.size(); ++k) {
    auto* x = static_cast<double*>(args[wrt[k]].data());
    const auto* d = static_cast<const double*>(v[k].data());
    for (int64_t e = 0; e < args[wrt[k]].num_elements(); ++e) x[e] += step * d[e];
  }
  return args;
}
void expect_close(const Array& analytic, const Array& up, const Array& down, double eps, double tol,
                  const std::string& what) {
  ASSERT_EQ(analytic.dims(), up.dims()) << what;
  auto a = analytic.to_vector<double>(), u = up.to_vector<double>(), d = down.to_vector<double>();
  for (size_t e = 0; e < a.size(); ++e) {
    double numeric = (u[e] - d[e]) / (2 * eps);
    EXPECT_NEAR(a[e], numeric, tol * (1.0 + std::abs(numeric))) << what << "[" << e << "]";
  }
}

}  // namespace

Array check_jvp(const std::vector<Array>& inputs,
                const std::function<Value(const std::vector<Value>&)>& fn, std::vector<size_t> wrt,
                double eps, double tol) {
  wrt = default_wrt(inputs, wrt);
  std::vector<Array> v = directions(inputs, wrt);
  Module fwd;
  {
    Func& f = fwd.add_func("main", types_of(inputs));
    f.ret({fn(f.args())});
  }
  Module jm;
  {
    std::vector<TensorType> types = types_of(inputs);
    for (size_t i : wrt) types.push_back(inputs[i].type());
    Func& f = jm.add_func("main", types);
    std::vector<Value> args(f.args().begin(), f.args().begin() + static_cast<long>(inputs.size()));
    Value out = fn(args);
    std::vector<Value> xs;
    std::vector<ad::Tangent> ts;
    for (size_t k = 0; k < wrt.size(); ++k) {
      xs.push_back(f.arg(wrt[k]));
      ts.emplace_back(f.arg(inputs.size() + k));
    }
    f.ret(ad::jvp({out}, ad::Wrt{xs}, ad::Tangents{ts}));
  }
  std::vector<Array> jargs = inputs;
  jargs.insert(jargs.end(), v.begin(), v.end());
  Array analytic = run(jm, jargs)[0];
  Array up = run(fwd, moved(inputs, wrt, v, eps))[0],
        down = run(fwd, moved(inputs, wrt, v, -eps))[0];
  expect_close(analytic, up, down, eps, tol, "jvp");
  return analytic;
}

std::vector<Array> check_hvp(const std::vector<Array>& inputs,
                             const std::function<Value(const std::vector<Value>&)>& loss,
                             std::vector<size_t> wrt, double eps, double tol) {
  wrt = default_wrt(inputs, wrt);
  std::vector<Array> v = directions(inputs, wrt);
  Module bwd;
  {
    Func& f = bwd.add_func("main", types_of(inputs));
    std::vector<Value> xs;
    for (size_t i : wrt) xs.push_back(f.arg(i));
    f.ret(ad::grad(loss(f.args()), xs));
  }
  Module hm;
  {
    std::vector<TensorType> types = types_of(inputs);
    for (size_t i : wrt) types.push_back(inputs[i].type());
    Func& f = hm.add_func("main", types);
    std::vector<Value> args(f.args().begin(), f.args().begin() + static_cast<long>(inputs.size()));
    std::vector<Value> xs;
    std::vector<ad::Tangent> ts;
    for (size_t k = 0; k < wrt.size(); ++k) {
      xs.push_back(f.arg(wrt[k]));
      ts.emplace_back(f.arg(inputs.size() + k));
    }
    std::vector<Value> g = ad::grad(loss(args), xs);
    f.ret(ad::jvp(g, ad::Wrt{xs}, ad::Tangents{ts}));
  }
  std::vector<Array> hargs = inputs;
  hargs.insert(hargs.end(), v.begin(), v.end());
  std::vector<Array> analytic = run(hm, hargs);
  std::vector<Array> up = run(bwd, moved(inputs, wrt, v, eps)),
                     down = run(bwd, moved(inputs, wrt, v, -eps));
  for (size_t k = 0; k < wrt.size(); ++k)
    expect_close(analytic[k], up[k], down[k], eps, tol,
                 "hvp d/d(arg " + std::to_string(wrt[k]) + ")");
  return analytic;
}

std::vector<Array> check_grad(const std::vector<Array>& inputs,
                              const std::function<Value(const std::vector<Value>&)>& fn,
                              std::vector<size_t> wrt, double eps, double tol, bool second_order) {
  wrt = default_wrt(inputs, wrt);
  // Output shape, for the weights.
  Array w;
  {
    Module probe;
    Func& f = probe.add_func("main", types_of(inputs));
    Value out = fn(f.args());
    w = rand_f64(out.dims(), 12345, 0.5, 1.5);
  }
  Module fwd;
  {
    Func& f = fwd.add_func("main", types_of(inputs));
    f.ret({weighted_loss(f, fn(f.args()), w)});
  }
  Module bwd;
  {
    Func& f = bwd.add_func("main", types_of(inputs));
    Value loss = weighted_loss(f, fn(f.args()), w);
    std::vector<Value> xs;
    for (size_t i : wrt) xs.push_back(f.arg(i));
    f.ret(ad::grad(loss, xs));
  }
  std::vector<Array> analytic = run(bwd, inputs);
  for (size_t k = 0; k < wrt.size(); ++k) {
    size_t i = wrt[k];
    std::vector<Array> args = inputs;
    auto* x = static_cast<double*>(args[i].data());
    const auto* g = static_cast<const double*>(analytic[k].data());
    for (int64_t e = 0; e < args[i].num_elements(); ++e) {
      double orig = x[e];
      x[e] = orig + eps;
      double up = run(fwd, args)[0].to_vector<double>()[0];
      x[e] = orig - eps;
      double down = run(fwd, args)[0].to_vector<double>()[0];
      x[e] = orig;
      double numeric = (up - down) / (2 * eps);
      EXPECT_NEAR(g[e], numeric, tol * (1.0 + std::abs(numeric)))
          << "d/d(arg " << i << ")[" << e << "]";
    }
  }
  {
    SCOPED_TRACE("forward mode");
    check_jvp(inputs, fn, wrt, eps, tol);
  }
  if (second_order) {
    SCOPED_TRACE("forward over reverse");
    // Differences of gradients: a larger step keeps rounding (1e-16 / eps) below the tolerance.
    check_hvp(
        inputs, [&](const std::vector<Value>& a) { return weighted_loss(a[0].func(), fn(a), w); },
        wrt, std::max(eps, 1e-5), std::max(tol, 1e-5));
  }
  return analytic;
}

}  // namespace hhlo::test
