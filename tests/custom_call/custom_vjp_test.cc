// A custom call inside a trained model: the forward kernel hhlo_example_rms_norm and its backward
// kernel hhlo_example_rms_norm_grad, paired with ad::register_custom_vjp(forward, backward), give
// the same loss, gradients and SGD trajectory as the same model written with ordinary ops.
#include <gtest/gtest.h>

#include <cmath>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/autodiff/vjp_registry.h"
#include "hhlo/ir/printer.h"
#include "hhlo/ops/reductions.h"
#include "hhlo/ops/shape_ops.h"
#include "hhlo/ops/tensor.h"
#include "hhlo/runtime/custom_call.h"
#include "hhlo/session.h"

namespace hhlo {
namespace {

constexpr float kEps = 1e-3f;
const TensorType kW{DType::f32, {4, 6}}, kX{DType::f32, {3, 4}}, kT{DType::f32, {3, 6}};

void register_kernels() {
  static const bool done = [] {
    register_custom_call_library(default_session().client().plugin(), HHLO_CUSTOM_CALL_CPU_LIB,
                                 {"hhlo_example_rms_norm", "hhlo_example_rms_norm_grad"});
    ad::register_custom_vjp("hhlo_example_rms_norm", "hhlo_example_rms_norm_grad");
    return true;
  }();
  (void)done;
}

/// rms_norm over the last axis: through the kernel, or with ordinary ops (the reference).
Value rms_norm(Value h, bool kernel) {
  if (kernel) {
    CustomCallOptions o;
    o.backend_config = DictAttr{{{"epsilon", FloatAttr{kEps, DType::f32}}}};
    return custom_call(h.func(), "hhlo_example_rms_norm", {h}, {h.type()}, o)[0];
  }
  using namespace np;
  Tensor t = h;
  return t * rsqrt(mean(t * t, {-1}, true) + Scalar(kEps));
}

/// @main(W, x, target) -> (loss, dloss/dW) with loss = sum((rms_norm(x @ W) - target)^2).
std::string loss_and_grad(bool kernel) {
  Module m;
  ad::value_and_grad_func(m, "main", {kW, kX, kT},
                          [&](const std::vector<Value>& a) {
                            using namespace np;
                            Tensor y = rms_norm(matmul(a[1], a[0]), kernel);
                            Tensor d = y - Tensor(a[2]);
                            return static_cast<Value>(sum(d * d));
                          },
                          {0});
  return to_mlir(m);
}

Array ramp(const TensorType& t, float scale, float offset) {
  Array a(t);
  auto v = a.values<float>();
  for (size_t i = 0; i < v.size(); ++i) v[i] = scale * std::sin(0.7f * i + offset);
  return a;
}

TEST(CustomVjp, KernelGradientMatchesOrdinaryOps) {
  register_kernels();
  std::string with_kernel = loss_and_grad(true), reference = loss_and_grad(false);
  ASSERT_NE(with_kernel.find("hhlo_example_rms_norm_grad"), std::string::npos);
  ASSERT_EQ(reference.find("stablehlo.custom_call"), std::string::npos);
  Array w = ramp(kW, 0.5f, 0.1f), x = ramp(kX, 1.0f, 0.3f), t = ramp(kT, 0.8f, 1.1f);
  auto got = run(std::string_view(with_kernel), {w, x, t});
  auto want = run(std::string_view(reference), {w, x, t});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_NEAR(got[0].values<float>()[0], want[0].values<float>()[0], 1e-4);
  auto g = got[1].values<float>(), r = want[1].values<float>();
  double norm = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    EXPECT_NEAR(g[i], r[i], 1e-4 * (1 + std::abs(r[i]))) << "dW[" << i << "]";
    norm += r[i] * r[i];
  }
  EXPECT_GT(norm, 1e-2);  // a real gradient, not zeros on both sides
}

TEST(CustomVjp, TrainingThroughTheKernelFollowsTheReferenceTrajectory) {
  register_kernels();
  std::string with_kernel = loss_and_grad(true), reference = loss_and_grad(false);
  Array x = ramp(kX, 1.0f, 0.3f), t = ramp(kT, 0.8f, 1.1f);
  Array wk = ramp(kW, 0.5f, 0.1f), wr = wk;
  std::vector<float> losses;
  for (int step = 0; step < 20; ++step) {
    auto a = run(std::string_view(with_kernel), {wk, x, t});
    auto b = run(std::string_view(reference), {wr, x, t});
    float lk = a[0].values<float>()[0], lr = b[0].values<float>()[0];
    EXPECT_NEAR(lk, lr, 1e-3 * (1 + lr)) << "step " << step;
    losses.push_back(lk);
    auto gk = a[1].values<float>(), gr = b[1].values<float>();
    auto vk = wk.values<float>(), vr = wr.values<float>();
    for (size_t i = 0; i < vk.size(); ++i) vk[i] -= 0.01f * gk[i], vr[i] -= 0.01f * gr[i];
  }
  // rms_norm's gradient grows as a row's norm shrinks, so the loss is not monotone (both sides
  // spike at the same steps); over 20 steps it falls by more than half.
  EXPECT_LT(losses.back(), 0.5f * losses.front());
}

}  // namespace
}  // namespace hhlo
