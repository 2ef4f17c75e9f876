// np::stop_gradient (jax.lax.stop_gradient, issue 23): the identity in value, zero derivative in
// reverse and forward mode, batched by vmap. Values by hand: for f(x) = sum(x * stop_gradient(x))
// JAX's jax.grad gives stop_gradient(x) = x (the stopped factor is a constant), not 2x.
#include "hhlo/ops/stop_gradient.h"

#include <gtest/gtest.h>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/autodiff/vmap.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ops/reductions.h"
#include "hhlo/session.h"

namespace hhlo {
namespace {

using Vs = std::vector<Value>;

TEST(StopGradient, ValueIsTheInputAndTheGradientStops) {
  Module m;
  Func& f = m.add_func("main", {{DType::f64, {3}}});
  Value x = f.arg(0);
  Value stopped = np::stop_gradient(x);
  Value loss = np::sum(multiply(x, stopped));
  Vs g = ad::grad(loss, {x});
  f.ret({stopped, loss, g[0]});
  auto out = run(m, {Array::from<double>({3}, {1, 2, 3})});
  EXPECT_EQ(out[0].to_vector<double>(), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(out[1].to_vector<double>(), (std::vector<double>{14}));
  // d/dx sum(x * c) with c = x held constant: c, not 2x.
  EXPECT_EQ(out[2].to_vector<double>(), (std::vector<double>{1, 2, 3}));
}

TEST(StopGradient, ForwardModeGivesAZeroTangentThroughIt) {
  Module m;
  Func& f = m.add_func("main", {{DType::f64, {3}}, {DType::f64, {3}}});
  auto [ys, ts] = ad::jvp([](const Vs& a) { return Vs{multiply(a[0], np::stop_gradient(a[0]))}; },
                          {f.arg(0)}, {f.arg(1)});
  f.ret({ys[0], ts[0]});
  auto out = run(m, {Array::from<double>({3}, {1, 2, 3}), Array::from<double>({3}, {1, 1, 2})});
  EXPECT_EQ(out[0].to_vector<double>(), (std::vector<double>{1, 4, 9}));
  // d(x * c) = dx * c: [1*1, 1*2, 2*3].
  EXPECT_EQ(out[1].to_vector<double>(), (std::vector<double>{1, 2, 6}));
}

TEST(StopGradient, VmapBatchesItAndTheGradientStillStops) {
  Module m;
  Func& f = m.add_func("main", {{DType::f64, {2, 3}}});
  Vs ys = ad::vmap(
      [](const Vs& a) {
        Value loss = np::sum(multiply(a[0], np::stop_gradient(a[0])));
        return ad::grad(loss, {a[0]});
      },
      {f.arg(0)});
  f.ret({ys[0]});
  auto out = run(m, {Array::from<double>({2, 3}, {1, 2, 3, -1, 0, 4})});
  EXPECT_EQ(out[0].to_vector<double>(), (std::vector<double>{1, 2, 3, -1, 0, 4}));
}

}  // namespace
}  // namespace hhlo
