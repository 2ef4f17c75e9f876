// Layers, initializers, optimizers, checkpoints and the on-device trainer, against hand-derived
// values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numeric>
#include <type_traits>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/ir/printer.h"
#include "hhlo/nn/checkpoint.h"
#include "hhlo/nn/init.h"
#include "hhlo/nn/layers.h"
#include "hhlo/nn/optim.h"
#include "hhlo/session.h"
#include "hhlo/train/trainer.h"

namespace hhlo {
namespace {

std::vector<float> vals(const Array& a) { return a.to_vector<float>(); }

TEST(NnInit, FansAndScales) {
  EXPECT_EQ(nn::fans({64, 256}), (std::pair<int64_t, int64_t>{64, 256}));
  EXPECT_EQ(nn::fans({3, 3, 16, 32}), (std::pair<int64_t, int64_t>{144, 288}));
  Array g = nn::glorot_uniform({200, 300}, 1);
  double lim = std::sqrt(6.0 / 500), mx = 0, sum = 0, sq = 0;
  for (float v : vals(g)) {
    mx = std::max(mx, static_cast<double>(std::abs(v)));
    sum += v;
    sq += v * v;
  }
  double n = 60000;
  EXPECT_LE(mx, lim);
  EXPECT_GT(mx, 0.99 * lim);
  EXPECT_NEAR(sum / n, 0.0, 0.01 * lim);
  EXPECT_NEAR(sq / n, lim * lim / 3, 0.02 * lim * lim);  // variance of U(-l, l)
  Array h = nn::he_normal({400, 100}, 2);
  double s2 = 0;
  for (float v : vals(h)) s2 += v * v;
  EXPECT_NEAR(s2 / 40000, 2.0 / 400, 0.05 * 2.0 / 400);
  EXPECT_EQ(vals(nn::glorot_uniform({3, 3}, 5)), vals(nn::glorot_uniform({3, 3}, 5)));  // seeded
  EXPECT_NE(vals(nn::glorot_uniform({3, 3}, 5)), vals(nn::glorot_uniform({3, 3}, 6)));
}

// Runs one optimizer update of scalar-free params p with gradient g; returns (new p, new state).
std::pair<ad::ParamArrays, ad::ParamArrays> one_update(const nn::Optimizer& opt,
                                                       const ad::ParamArrays& p,
                                                       const ad::ParamArrays& g,
                                                       const ad::ParamArrays& s) {
  std::vector<TensorType> types;
  std::vector<Array> args;
  for (const auto* m : {&p, &g, &s})
    for (const auto& [n, a] : *m) {
      types.push_back(a.type());
      args.push_back(a);
    }
  Module mod;
  Func& f = mod.add_func("main", types);
  ad::Params pv, gv, sv;
  size_t i = 0;
  for (const auto& kv : p) pv.set(kv.first, f.arg(i++));
  for (const auto& kv : g) gv.set(kv.first, f.arg(i++));
  for (const auto& kv : s) sv.set(kv.first, f.arg(i++));
  auto [np_, ns] = opt.update(pv, gv, sv);
  std::vector<Value> outs;
  for (const auto& kv : np_) outs.push_back(kv.second);
  for (const auto& kv : ns) outs.push_back(kv.second);
  f.ret(outs);
  auto out = run(mod, args);
  ad::ParamArrays rp, rs;
  size_t k = 0;
  for (const auto& kv : np_) rp.set(kv.first, out[k++]);
  for (const auto& kv : ns) rs.set(kv.first, out[k++]);
  return {rp, rs};
}

// The hyperparameters after the learning rate are named: a positional double (sgd(lr, momentum),
// adam(lr, b1, b2, eps), where b1 and b2 could be swapped) does not compile.
static_assert(!std::is_invocable_v<decltype(&nn::sgd), double, double>);
static_assert(!std::is_invocable_v<decltype(&nn::adam), double, double>);
static_assert(!std::is_invocable_v<decltype(&nn::adam), double, double, double, double>);
static_assert(std::is_invocable_v<decltype(&nn::adam), double, nn::AdamOptions>);

TEST(NnOptim, HyperparametersAreNamed) {
  nn::AdamOptions a{.b2 = 0.99};
  EXPECT_EQ(a.b1, 0.9);
  EXPECT_EQ(a.b2, 0.99);
  EXPECT_EQ(a.eps, 1e-8);
  EXPECT_EQ(nn::SgdOptions{}.momentum, 0.0);
}

TEST(NnOptim, SgdMomentumTwoSteps) {
  nn::Optimizer opt = nn::sgd(0.1, {.momentum = 0.9});
  ad::ParamArrays p{{"w", Array::from<float>({2}, {1.0f, -2.0f})}};
  ad::ParamArrays g{{"w", Array::from<float>({2}, {0.5f, 1.0f})}};
  auto s = opt.init(p);
  EXPECT_EQ(s.names(), (std::vector<std::string>{"v/w"}));
  auto [p1, s1] = one_update(opt, p, g, s);
  // v = g; p = p - 0.1 v.
  EXPECT_EQ(vals(p1.at("w")), (std::vector<float>{0.95f, -2.1f}));
  auto [p2, s2] = one_update(opt, p1, g, s1);
  // v = 0.9 * 0.5 + 0.5 = 0.95, 0.9 + 1 = 1.9; p = 0.95 - 0.095, -2.1 - 0.19.
  EXPECT_NEAR(vals(p2.at("w"))[0], 0.855f, 1e-6);
  EXPECT_NEAR(vals(p2.at("w"))[1], -2.29f, 1e-6);
}

TEST(NnOptim, AdamFirstStepMovesByLrTimesSign) {
  nn::Optimizer opt = nn::adam(0.01);
  ad::ParamArrays p{{"w", Array::from<float>({3}, {1.0f, 2.0f, 3.0f})}};
  ad::ParamArrays g{{"w", Array::from<float>({3}, {0.3f, -4.0f, 1e-3f})}};
  auto [p1, s1] = one_update(opt, p, g, opt.init(p));
  // Step 1: m_hat = g, v_hat = g^2, update = lr * g / (|g| + eps) ~ lr * sign(g).
  auto w = vals(p1.at("w"));
  EXPECT_NEAR(w[0], 0.99f, 1e-5);
  EXPECT_NEAR(w[1], 2.01f, 1e-5);
  EXPECT_NEAR(w[2], 2.99f, 1e-4);
  EXPECT_EQ(vals(s1.at("t")), (std::vector<float>{1.0f}));
  EXPECT_NEAR(vals(s1.at("m/w"))[1], -0.4f, 1e-6);
  EXPECT_NEAR(vals(s1.at("v/w"))[1], 0.016f, 1e-6);
}

TEST(NnLayers, Conv2dSameShapesAndHandValue) {
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {1, 3, 3, 1}}, {DType::f32, {2, 2, 1, 1}}});
  Tensor y = nn::conv2d(f.arg(0), f.arg(1), std::nullopt,
                        {.stride = {2, 2}, .padding = nn::Padding::same()});
  EXPECT_EQ(y.shape(), (Dims{1, 2, 2, 1}));
  f.ret({y});
  // SAME with stride 2 on 3x3, kernel 2: total pad 1 -> (0, 1). Windows at (0,0),(0,2),(2,0),(2,2).
  auto out = run(m, {Array::from<float>({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}),
                     Array::from<float>({2, 2, 1, 1}, {1, 10, 100, 1000})});
  EXPECT_EQ(vals(out[0]), (std::vector<float>{1 + 20 + 400 + 5000, 3 + 600, 7 + 80, 9}));
}

TEST(NnLayers, PoolingHandValues) {
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {1, 1, 4, 4}}});
  Tensor mx = nn::max_pool(f.arg(0), {.layout = nn::Layout::NCHW});
  Tensor av =
      nn::avg_pool(f.arg(0), {.layout = nn::Layout::NCHW, .window = {2, 2}, .stride = {1, 2}});
  f.ret({mx, av});
  std::vector<float> x(16);
  std::iota(x.begin(), x.end(), 0.0f);
  auto out = run(m, {Array::from<float>({1, 1, 4, 4}, x)});
  EXPECT_EQ(vals(out[0]), (std::vector<float>{5, 7, 13, 15}));
  EXPECT_EQ(out[1].dims(), (Dims{1, 1, 3, 2}));
  EXPECT_EQ(vals(out[1]), (std::vector<float>{2.5f, 4.5f, 6.5f, 8.5f, 10.5f, 12.5f}));
}

TEST(NnLayers, BatchNormInferenceMatchesTrainingStatistics) {
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {4, 2}}});
  Func& g = f;
  Tensor gamma = np::full(g, {2}, 2.0, DType::f32), beta = np::full(g, {2}, 1.0, DType::f32);
  Tensor rm = np::full(g, {2}, 0.0, DType::f32), rv = np::full(g, {2}, 1.0, DType::f32);
  nn::BatchNormResult tr = nn::batch_norm_train(f.arg(0), gamma, beta, rm, rv, 1, 0.5);
  Tensor inf = nn::batch_norm_infer(f.arg(0), gamma, beta, tr.running_mean * 2.0,
                                    (tr.running_var - 0.5) * 2.0, 1);
  f.ret({tr.y, tr.running_mean, tr.running_var, inf});
  auto out = run(m, {Array::from<float>({4, 2}, {1, 10, 2, 20, 3, 30, 4, 40})});
  // Column 0: mean 2.5, var 1.25; running = 0.5 * old + 0.5 * batch.
  EXPECT_NEAR(vals(out[1])[0], 1.25f, 1e-6);
  EXPECT_NEAR(vals(out[2])[0], 0.5f + 0.625f, 1e-6);
  EXPECT_NEAR(vals(out[0])[0], 2.0f * (1 - 2.5f) / std::sqrt(1.25f + 1e-5f) + 1.0f, 1e-5);
  for (size_t i = 0; i < 8; ++i) EXPECT_NEAR(vals(out[3])[i], vals(out[0])[i], 1e-4);
}

TEST(NnLayers, DropoutKeepsAboutOneMinusRateAndScales) {
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {100, 100}}, {DType::ui64, {2}}});
  auto [y, key] = nn::dropout(f.arg(0), 0.25, f.arg(1));
  auto [y2, key2] = nn::dropout(f.arg(0), 0.25, key);
  Value gx = ad::grad(np::sum(y), {f.arg(0)})[0];
  f.ret({y, key, y2, gx});
  Array ones = nn::filled({100, 100}, 1.0);
  auto out = run(m, {ones, Array::from<uint64_t>({2}, {42, 7})});
  auto y_v = vals(out[0]);
  int64_t kept = 0;
  for (float v : y_v) {
    ASSERT_TRUE(v == 0.0f || std::abs(v - 1.0f / 0.75f) < 1e-6) << v;
    kept += v != 0.0f;
  }
  EXPECT_NEAR(static_cast<double>(kept) / 10000, 0.75, 0.02);
  EXPECT_NE(out[1].to_vector<uint64_t>(), (std::vector<uint64_t>{42, 7}));  // key advanced
  EXPECT_NE(y_v, vals(out[2]));                                             // fresh mask
  EXPECT_EQ(vals(out[3]), y_v);  // d sum(dropout(x)) / dx = mask / (1 - rate) = y for x = 1
  auto again = run(m, {ones, Array::from<uint64_t>({2}, {42, 7})});
  EXPECT_EQ(vals(again[0]), y_v);  // deterministic per key
}

TEST(NnCheckpoint, NpzRoundTripWithNestedNames) {
  std::string path = ::testing::TempDir() + "/ckpt.npz";
  ad::ParamArrays p{{"block1/conv/w", nn::he_normal({3, 3, 2, 4}, 3)},
                    {"block1/conv/b", Array::from<float>({4}, {1, 2, 3, 4})},
                    {"step", Array::from<int64_t>({}, {17})}};
  nn::save_npz(path, p);
  ad::ParamArrays q = nn::load_npz(path);
  EXPECT_EQ(q.names(), p.names());
  for (const auto& [n, a] : p) {
    EXPECT_EQ(q.at(n).type(), a.type()) << n;
    EXPECT_EQ(std::memcmp(q.at(n).data(), a.data(), a.byte_size()), 0) << n;
  }
  std::remove(path.c_str());
  EXPECT_THROW(nn::load_npz(path), IoError);
}

nn::BatchLossFn quadratic() {
  return [](const ad::Params& p, const std::vector<Value>& b) {
    Tensor d = Tensor(p.at("w")) - b[0];
    return Value(np::sum(d * d));
  };
}

TEST(NnTrainer, StepIsOneExecutableWithDonatedState) {
  ad::ParamArrays init{{"w", Array::from<float>({2}, {0.0f, 0.0f})}};
  nn::Trainer t(quadratic(), init, nn::sgd(0.25), {{DType::f32, {2}}});
  EXPECT_NE(t.mlir().find("tf.aliasing_output = 0 : i32"), std::string::npos);
  // w <- w - 0.25 * 2 (w - target): halves the distance to the target each step.
  Array target = Array::from<float>({2}, {4.0f, -8.0f});
  EXPECT_FLOAT_EQ(t.step({target}), 80.0f);
  EXPECT_EQ(vals(t.params().at("w")), (std::vector<float>{2.0f, -4.0f}));
  EXPECT_FLOAT_EQ(t.step({target}), 20.0f);
  EXPECT_EQ(t.steps(), 2);
}

TEST(NnTrainer, UsingADonatedBufferAgainIsAnError) {
  ad::ParamArrays init{{"w", Array::from<float>({2}, {1.0f, 1.0f})}};
  nn::Optimizer opt = nn::sgd(0.1);
  Module m = nn::build_train_step(quadratic(), init, opt.init(init), opt, {{DType::f32, {2}}});
  const LoadedExecutable& exe = default_session().compile(to_mlir(m));
  const Client& c = default_session().client();
  Buffer w = c.buffer_from_host(init.at("w")),
         x = c.buffer_from_host(Array::from<float>({2}, {0.0f, 0.0f}));
  auto out = exe.execute({&w, &x});
  EXPECT_TRUE(w.is_deleted());   // donated into the new parameters
  EXPECT_FALSE(x.is_deleted());  // the batch is not aliased
  EXPECT_EQ(vals(out[0].to_host()), (std::vector<float>{0.8f, 0.8f}));
  try {
    exe.execute({&w, &x});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("donated"), std::string::npos) << e.what();
  }
}

TEST(NnTrainer, SetParamsChecksShapes) {
  ad::ParamArrays init{{"w", Array::from<float>({2}, {0.0f, 0.0f})}};
  nn::Trainer t(quadratic(), init, nn::adam(0.1), {{DType::f32, {2}}});
  EXPECT_THROW(t.set_params({{"w", Array::from<float>({3}, {1, 2, 3})}}), Error);
  t.set_params({{"w", Array::from<float>({2}, {5, 6})}});
  EXPECT_EQ(vals(t.params().at("w")), (std::vector<float>{5, 6}));
}

}  // namespace
}  // namespace hhlo
