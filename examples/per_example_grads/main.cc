// Per-example gradient norms of a small MLP, as differentially private SGD needs them
// (DP-SGD: clip each example's gradient to norm C, then average). The per-example gradients come
// from vmap(grad(loss)) over the batch, the whole step is one jitted program:
//
//   per-example loss  L(params; x, y) = cross_entropy(softmax(W2 tanh(W1 x + b1) + b2), y)
//   per-example grads g_i = grad L(params; x_i, y_i)            (vmap over i, params shared)
//   norms             |g_i| = sqrt(sum over all parameters of g_i^2)
//   clipped mean      mean_i g_i * min(1, C / |g_i|)
//
// The program checks itself: the plain mean of the per-example gradients equals the gradient of
// the batch-mean loss (computed without vmap), and it prints the norms. Exit status 1 on mismatch.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/autodiff/vjp_registry.h"
#include "hhlo/autodiff/vmap.h"
#include "hhlo/ir/ops.h"
#include "hhlo/jit.h"

using namespace hhlo;
using Vs = std::vector<Value>;

namespace {

constexpr int64_t kIn = 8, kHidden = 16, kClasses = 3, kBatch = 32;
constexpr double kClip = 1.0;

Value sum_all(Value x) {
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < x.rank(); ++i) dims.push_back(i);
  return ad::reduce_sum(x, dims);
}

// Loss of one example: p = {w1 [in, hidden], b1 [hidden], w2 [hidden, classes], b2 [classes]},
// x [in], y [classes] (one-hot).
Value example_loss(const Vs& p, Value x, Value y) {
  Value h = tanh(add(dot_general(x, p[0], {{}, {}, {0}, {0}}), p[1]));
  Value z = add(dot_general(h, p[2], {{}, {}, {0}, {0}}), p[3]);
  Value m = reduce(z, constant(z.func(), -1e30, z.dtype()), {0},
                   [](Value a, Value b) { return maximum(a, b); });
  Value zs = subtract(z, broadcast_in_dim(m, z.dims(), {}));
  Value lse = log(sum_all(exponential(zs)));
  return subtract(lse, sum_all(multiply(zs, y)));
}

Array random(Dims d, std::mt19937_64& g, double scale) {
  Array a(DType::f64, d);
  std::normal_distribution<double> n(0.0, scale);
  for (double& v : a.values<double>()) v = n(g);
  return a;
}

}  // namespace

int main() {
  std::mt19937_64 gen(7);
  std::vector<Array> params = {random({kIn, kHidden}, gen, 0.5), random({kHidden}, gen, 0.1),
                               random({kHidden, kClasses}, gen, 0.5), random({kClasses}, gen, 0.1)};
  Array xs = random({kBatch, kIn}, gen, 1.0);
  Array ys(DType::f64, {kBatch, kClasses});
  for (int64_t i = 0; i < kBatch; ++i)
    for (int64_t c = 0; c < kClasses; ++c)
      ys.values<double>()[i * kClasses + c] = c == i % kClasses;

  // One program: per-example norms, the clipped mean gradient, and the plain mean of the
  // per-example gradients (for the check below).
  Jitted step = jit([](const std::vector<Tensor>& a) {
    Vs p(a.begin(), a.begin() + 4);
    Value x = a[4], y = a[5];
    Vs g = ad::vmap(
        [](const Vs& v) {
          Vs q(v.begin(), v.begin() + 4);
          return ad::grad(example_loss(q, v[4], v[5]), q);
        },
        {p[0], p[1], p[2], p[3], x, y},
        {std::nullopt, std::nullopt, std::nullopt, std::nullopt, 0, 0});
    // |g_i|^2: sum over every axis but the batch axis 0, summed over parameters.
    Value sq;
    for (Value gi : g) {
      std::vector<int64_t> dims;
      for (int64_t k = 1; k < gi.rank(); ++k) dims.push_back(k);
      Value s = ad::reduce_sum(multiply(gi, gi), dims);
      sq = sq.valid() ? add(sq, s) : s;
    }
    Value norms = sqrt(sq);
    Value scale = minimum(ad::full_like(norms, 1.0), divide(ad::full_like(norms, kClip), norms));
    std::vector<Tensor> out = {norms};
    auto mean0 = [](Value v) {
      Value s = ad::reduce_sum(v, {0});
      return multiply(s, ad::full_like(s, 1.0 / static_cast<double>(kBatch)));
    };
    for (Value gi : g) out.push_back(mean0(multiply(gi, broadcast_in_dim(scale, gi.dims(), {0}))));
    for (Value gi : g) out.push_back(mean0(gi));
    return out;
  });
  // The reference: the gradient of the batch-mean loss, written over the whole batch without vmap.
  Jitted batch_grad = jit([](const std::vector<Tensor>& a) {
    Vs p(a.begin(), a.begin() + 4);
    Value x = a[4], y = a[5];
    Value h = tanh(add(dot_general(x, p[0], {{}, {}, {1}, {0}}),
                       broadcast_in_dim(p[1], {kBatch, kHidden}, {1})));
    Value z = add(dot_general(h, p[2], {{}, {}, {1}, {0}}),
                  broadcast_in_dim(p[3], {kBatch, kClasses}, {1}));
    Value m = reduce(z, constant(z.func(), -1e30, z.dtype()), {1},
                     [](Value u, Value v) { return maximum(u, v); });
    Value zs = subtract(z, broadcast_in_dim(m, z.dims(), {0}));
    Value lse = log(ad::reduce_sum(exponential(zs), {1}));
    Value per = subtract(lse, ad::reduce_sum(multiply(zs, y), {1}));
    Value loss = multiply(sum_all(per), constant(per.func(), 1.0 / kBatch, per.dtype()));
    Vs g = ad::grad(loss, p);
    return std::vector<Tensor>(g.begin(), g.end());
  });

  std::vector<Array> args = params;
  args.push_back(xs);
  args.push_back(ys);
  std::vector<Array> r = step(args);
  std::vector<Array> ref = batch_grad(args);
  step(args);  // a second step is served from jit's cache

  std::printf("per-example gradient norms (batch of %lld, clip %.1f):\n",
              static_cast<long long>(kBatch), kClip);
  auto norms = r[0].values<double>();
  int clipped = 0;
  for (int64_t i = 0; i < kBatch; ++i) {
    std::printf("%8.4f%s", norms[i], (i + 1) % 8 ? " " : "\n");
    clipped += norms[i] > kClip;
  }
  std::printf("%d of %lld examples clipped; jit traces %zu, cache hits %zu\n", clipped,
              static_cast<long long>(kBatch), step.traces(), step.cache_hits());
  double worst = 0;
  for (size_t k = 0; k < 4; ++k) {
    auto got = r[5 + k].values<double>();
    auto want = ref[k].values<double>();
    for (size_t i = 0; i < got.size(); ++i)
      worst = std::max(worst, std::abs(got[i] - want[i]) / std::max(1.0, std::abs(want[i])));
  }
  std::printf("mean of per-example gradients vs batch gradient: max rel. difference %.3g\n", worst);
  if (worst > 1e-12 || step.traces() != 1 || step.cache_hits() != 1) {
    std::printf("FAILED\n");
    return 1;
  }
  std::printf("OK\n");
  return 0;
}
