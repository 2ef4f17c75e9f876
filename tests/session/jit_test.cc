// hhlo::jit: traced once per signature (dims, dtypes, static arguments), compiled once, cached;
// on host Arrays and device Buffers; composed with grad, jvp and vmap. Expected values are
// computed on the host from the formulas.
#include "hhlo/jit.h"

#include <gtest/gtest.h>

#include <cmath>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/autodiff/vmap.h"
#include "hhlo/session.h"

namespace hhlo {
namespace {

using Ts = std::vector<Tensor>;

TEST(Jit, TracesOncePerSignatureAndCountsCacheHits) {
  Jitted f = jit([](const Ts& a) { return Ts{add(multiply(a[0], a[1]), sine(a[0]))}; });
  Array x = Array::from<double>({3}, {0.5, -1, 2}), y = Array::from<double>({3}, {3, 4, -5});
  for (int call = 0; call < 3; ++call) {
    std::vector<double> r = f({x, y})[0].to_vector<double>();
    for (int i = 0; i < 3; ++i) {
      double xv = x.values<double>()[i], yv = y.values<double>()[i];
      EXPECT_DOUBLE_EQ(r[i], xv * yv + std::sin(xv));
    }
  }
  EXPECT_EQ(f.traces(), 1u);
  EXPECT_EQ(f.cache_hits(), 2u);
  // A new shape retraces; so does a new dtype.
  Array x4 = Array::from<double>({4}, {1, 2, 3, 4});
  EXPECT_EQ(f({x4, x4})[0].to_vector<double>()[3], 16 + std::sin(4.0));
  EXPECT_EQ(f.traces(), 2u);
  Array xf = Array::from<float>({3}, {1, 2, 3});
  EXPECT_FLOAT_EQ(f({xf, xf})[0].to_vector<float>()[1], 4 + std::sin(2.0f));
  EXPECT_EQ(f.traces(), 3u);
  f({x, y});
  EXPECT_EQ(f.traces(), 3u);
  EXPECT_EQ(f.cache_hits(), 3u);
}

TEST(Jit, StaticArgumentsArePartOfTheSignature) {
  Jitted pow = jit([](const Ts& a, const std::vector<StaticArg>& s) {
    Tensor r = a[0];
    for (int64_t k = 1; k < std::get<int64_t>(s.at(0)); ++k) r = multiply(r, a[0]);
    return Ts{r};
  });
  Array x = Array::from<double>({2}, {2, -3});
  EXPECT_EQ(pow({x}, {int64_t{3}})[0].to_vector<double>(), (std::vector<double>{8, -27}));
  EXPECT_EQ(pow({x}, {int64_t{2}})[0].to_vector<double>(), (std::vector<double>{4, 9}));
  EXPECT_EQ(pow({x}, {int64_t{3}})[0].to_vector<double>(), (std::vector<double>{8, -27}));
  EXPECT_EQ(pow.traces(), 2u);
  EXPECT_EQ(pow.cache_hits(), 1u);
}

TEST(Jit, WrongDtypeIsAnErrorNamingTheSignature) {
  Jitted f = jit([](const Ts& a) { return Ts{tanh(a[0])}; });
  try {
    f({Array::from<int32_t>({3}, {1, 2, 3})});
    FAIL() << "tanh of an i32 tensor traced";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("jit: tracing for signature (tensor<3xi32>)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(f.traces(), 0u);
  EXPECT_NEAR(f({Array::from<double>({1}, {0.5})})[0].to_vector<double>()[0], std::tanh(0.5),
              1e-15);
}

TEST(Jit, RunsOnDeviceBuffers) {
  Jitted f = jit([](const Ts& a) { return Ts{multiply(a[0], a[0]), negate(a[0])}; });
  const Client& c = default_session().client();
  Buffer b = c.buffer_from_host(Array::from<float>({2, 2}, {1, 2, 3, 4}));
  std::vector<Buffer> r = f({&b});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].to_host().to_vector<float>(), (std::vector<float>{1, 4, 9, 16}));
  std::vector<Buffer> r2 = f({&r[0]});
  EXPECT_EQ(r2[1].to_host().to_vector<float>(), (std::vector<float>{-1, -4, -9, -16}));
  EXPECT_EQ(f.traces(), 1u);
  EXPECT_EQ(f.cache_hits(), 1u);
}

TEST(Jit, CombinesWithGradJvpAndVmap) {
  // Per-example gradients of L(w; x) = (x . w)^2: dL/dw = 2 (x . w) x, one row per example.
  Jitted per_example = jit([](const Ts& a) {
    std::vector<Value> g = ad::vmap(
        [](const std::vector<Value>& v) {
          Value d = dot_general(v[1], v[0], {{}, {}, {0}, {0}});
          return ad::grad(multiply(d, d), {v[0]});
        },
        {a[0], a[1]}, {std::nullopt, 0});
    return Ts{g[0]};
  });
  Array w = Array::from<double>({3}, {1, -2, 0.5});
  Array xs = Array::from<double>({2, 3}, {1, 2, 3, -1, 0, 4});
  std::vector<double> g = per_example({w, xs})[0].to_vector<double>();
  for (int e = 0; e < 2; ++e) {
    double d = 0;
    for (int i = 0; i < 3; ++i) d += xs.values<double>()[e * 3 + i] * w.values<double>()[i];
    for (int i = 0; i < 3; ++i)
      EXPECT_NEAR(g[e * 3 + i], 2 * d * xs.values<double>()[e * 3 + i], 1e-12);
  }
  // jvp of sin: cos(x) t.
  Jitted tangent = jit([](const Ts& a) {
    auto r = ad::jvp([](const std::vector<Value>& v) { return std::vector<Value>{sine(v[0])}; },
                     {a[0]}, {a[1]});
    return Ts{r.second[0]};
  });
  std::vector<double> t =
      tangent({Array::from<double>({2}, {0.3, 2}), Array::from<double>({2}, {2, -1})})[0]
          .to_vector<double>();
  EXPECT_NEAR(t[0], 2 * std::cos(0.3), 1e-15);
  EXPECT_NEAR(t[1], -std::cos(2.0), 1e-15);
}

TEST(Jit, MlirAndExecutableOfASignature) {
  Jitted f = jit([](const Ts& a) { return Ts{exponential(a[0])}; });
  std::string text = f.mlir({TensorType(DType::f32, {5})});
  EXPECT_NE(text.find("stablehlo.exponential"), std::string::npos);
  EXPECT_EQ(f.executable({TensorType(DType::f32, {5})}).num_outputs(), 1u);
  EXPECT_EQ(f.traces(), 1u);
  EXPECT_EQ(f.cache_hits(), 0u);
}

}  // namespace
}  // namespace hhlo
