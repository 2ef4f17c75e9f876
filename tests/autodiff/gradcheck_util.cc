#include "gradcheck_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

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

std::vector<Array> check_grad(const std::vector<Array>& inputs,
                              const std::function<Value(const std::vector<Value>&)>& fn,
                              std::vector<size_t> wrt, double eps, double tol) {
  if (wrt.empty())
    for (size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i].dtype() == DType::f64) wrt.push_back(i);
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
  return analytic;
}

}  // namespace hhlo::test
