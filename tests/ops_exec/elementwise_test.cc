// Execution of every op of the elementwise table, and compare in all directions and comparison
// types, against the C++ standard library computed here.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>
#include <limits>

#include "exec_util.h"
#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

using test::run;
using test::values;

bool same(double got, double want, double tol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::abs(got - want) <= tol * std::max(1.0, std::abs(want));
}

TEST(ElementwiseExec, FloatUnary) {
  std::vector<float> in = {-2.5f, -0.5f, 0.0f, 0.5f, 1.5f, 2.5f, 7.25f};
  using F = std::function<double(double)>;
  std::vector<std::pair<std::string, F>> table = {
      {"abs", [](double x) { return std::abs(x); }},
      {"cbrt", [](double x) { return std::cbrt(x); }},
      {"ceil", [](double x) { return std::ceil(x); }},
      {"cosine", [](double x) { return std::cos(x); }},
      {"exp2", [](double x) { return std::exp2(x); }},
      {"exponential", [](double x) { return std::exp(x); }},
      {"exponential_minus_one", [](double x) { return std::expm1(x); }},
      {"floor", [](double x) { return std::floor(x); }},
      {"log", [](double x) { return std::log(x); }},
      {"log2", [](double x) { return std::log2(x); }},
      {"log_plus_one", [](double x) { return std::log1p(x); }},
      {"logistic", [](double x) { return 1 / (1 + std::exp(-x)); }},
      {"negate", [](double x) { return -x; }},
      {"round_nearest_afz", [](double x) { return std::round(x); }},
      {"round_nearest_even", [](double x) { return std::nearbyint(x); }},
      {"rsqrt", [](double x) { return 1 / std::sqrt(x); }},
      {"sign", [](double x) { return x > 0   ? 1.0
                                     : x < 0 ? -1.0
                                             : 0.0; }},
      {"sine", [](double x) { return std::sin(x); }},
      {"sqrt", [](double x) { return std::sqrt(x); }},
      {"tan", [](double x) { return std::tan(x); }},
      {"tanh", [](double x) { return std::tanh(x); }},
  };
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {7}}});
  std::vector<Value> outs;
  for (auto& [name, fn] : table) outs.push_back(unary(name, f.arg(0)));
  f.ret(outs);
  auto out = run(m, {Array::from<float>({7}, in)});
  for (size_t k = 0; k < table.size(); ++k) {
    auto got = values(out[k]);
    for (size_t i = 0; i < in.size(); ++i)
      EXPECT_TRUE(same(got[i], table[k].second(in[i]), 2e-6))
          << table[k].first << "(" << in[i] << ") = " << got[i];
  }
}

TEST(ElementwiseExec, FloatBinaryAndIsFinite) {
  std::vector<float> a = {-2.5f, 3.0f, 0.5f, 7.0f, -4.0f}, b = {2.0f, -2.0f, 0.25f, 3.0f, 1.5f};
  using F = std::function<double(double, double)>;
  std::vector<std::pair<std::string, F>> table = {
      {"add", std::plus<double>()},
      {"subtract", std::minus<double>()},
      {"multiply", std::multiplies<double>()},
      {"divide", std::divides<double>()},
      {"remainder", [](double x, double y) { return std::fmod(x, y); }},
      {"power", [](double x, double y) { return std::pow(x, y); }},
      {"maximum", [](double x, double y) { return std::max(x, y); }},
      {"minimum", [](double x, double y) { return std::min(x, y); }},
      {"atan2", [](double x, double y) { return std::atan2(x, y); }},
  };
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {5}}, {DType::f32, {5}}, {DType::f32, {3}}});
  std::vector<Value> outs;
  for (auto& [name, fn] : table) outs.push_back(binary(name, f.arg(0), f.arg(1)));
  outs.push_back(is_finite(f.arg(2)));
  f.ret(outs);
  float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  auto out = run(m, {Array::from<float>({5}, a), Array::from<float>({5}, b),
                     Array::from<float>({3}, {inf, nan, 1.0f})});
  for (size_t k = 0; k < table.size(); ++k) {
    auto got = values(out[k]);
    for (size_t i = 0; i < a.size(); ++i)
      EXPECT_TRUE(same(got[i], table[k].second(a[i], b[i]), 2e-6))
          << table[k].first << "(" << a[i] << ", " << b[i] << ") = " << got[i];
  }
  EXPECT_EQ(out.back().to_vector<bool>(), (std::vector<bool>{false, false, true}));
}

// stablehlo.fma (StableHLO 1.24+; the plugin, which reads up to 1.20, runs add(multiply(a, b), c)):
// f32 and f64 values, exact products and sums, and complex<f32>.
TEST(ElementwiseExec, Fma) {
  Module m;
  TensorType t32{DType::f32, {4}}, t64{DType::f64, {2}}, c64{DType::c64, {1}};
  Func& f = m.add_func("main", {t32, t32, t32, t64, t64, t64, c64, c64, c64});
  f.ret({fma(f.arg(0), f.arg(1), f.arg(2)), fma(f.arg(3), f.arg(4), f.arg(5)),
         fma(f.arg(6), f.arg(7), f.arg(8))});
  using C = std::complex<float>;
  auto out =
      run(m, {Array::from<float>({4}, {2, -1.5f, 0.5f, 3}),
              Array::from<float>({4}, {3, 4, -8, 0.25f}), Array::from<float>({4}, {1, 2, 4, -1}),
              Array::from<double>({2}, {1.5, -2}), Array::from<double>({2}, {2, 2.5}),
              Array::from<double>({2}, {0.25, 5}), Array::from<C>({1}, {C(1, 2)}),
              Array::from<C>({1}, {C(3, -1)}), Array::from<C>({1}, {C(0.5f, 0.5f)})});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{7, -4, 0, -0.25f}));
  EXPECT_EQ(out[1].to_vector<double>(), (std::vector<double>{3.25, 0}));
  // (1 + 2i)(3 - i) = 5 + 5i, plus 0.5 + 0.5i.
  EXPECT_EQ(out[2].to_vector<C>(), (std::vector<C>{C(5.5f, 5.5f)}));
}

TEST(ElementwiseExec, IntegerOps) {
  std::vector<int32_t> a = {-7, -1, 0, 1, 5, 1 << 20}, b = {2, 3, 1, 4, 3, 5};
  using U = std::function<int64_t(int32_t)>;
  using B = std::function<int64_t(int32_t, int32_t)>;
  std::vector<std::pair<std::string, U>> un = {
      {"abs", [](int32_t x) { return std::abs(x); }},
      {"negate", [](int32_t x) { return -x; }},
      {"not", [](int32_t x) { return ~x; }},
      {"sign", [](int32_t x) { return (x > 0) - (x < 0); }},
      {"popcnt", [](int32_t x) { return std::popcount(static_cast<uint32_t>(x)); }},
      {"count_leading_zeros", [](int32_t x) { return std::countl_zero(static_cast<uint32_t>(x)); }},
  };
  std::vector<std::pair<std::string, B>> bin = {
      {"add", [](int32_t x, int32_t y) { return x + y; }},
      {"subtract", [](int32_t x, int32_t y) { return x - y; }},
      {"multiply", [](int32_t x, int32_t y) { return x * y; }},
      {"divide", [](int32_t x, int32_t y) { return x / y; }},
      {"remainder", [](int32_t x, int32_t y) { return x % y; }},
      {"power",
       [](int32_t x, int32_t y) {
         int64_t r = 1;
         for (int i = 0; i < y; ++i) r = static_cast<int32_t>(r * x);
         return r;
       }},
      {"maximum", [](int32_t x, int32_t y) { return std::max(x, y); }},
      {"minimum", [](int32_t x, int32_t y) { return std::min(x, y); }},
      {"and", [](int32_t x, int32_t y) { return x & y; }},
      {"or", [](int32_t x, int32_t y) { return x | y; }},
      {"xor", [](int32_t x, int32_t y) { return x ^ y; }},
      {"shift_left",
       [](int32_t x, int32_t y) { return static_cast<int32_t>(static_cast<uint32_t>(x) << y); }},
      {"shift_right_arithmetic", [](int32_t x, int32_t y) { return x >> y; }},
      {"shift_right_logical",
       [](int32_t x, int32_t y) { return static_cast<int32_t>(static_cast<uint32_t>(x) >> y); }},
  };
  Module m;
  Func& f = m.add_func("main", {{DType::i32, {6}}, {DType::i32, {6}}});
  std::vector<Value> outs;
  for (auto& [name, fn] : un) outs.push_back(unary(name, f.arg(0)));
  for (auto& [name, fn] : bin) outs.push_back(binary(name, f.arg(0), f.arg(1)));
  f.ret(outs);
  auto out = run(m, {Array::from<int32_t>({6}, a), Array::from<int32_t>({6}, b)});
  for (size_t k = 0; k < un.size(); ++k) {
    auto got = out[k].to_vector<int32_t>();
    for (size_t i = 0; i < a.size(); ++i)
      EXPECT_EQ(got[i], un[k].second(a[i])) << un[k].first << "(" << a[i] << ")";
  }
  for (size_t k = 0; k < bin.size(); ++k) {
    auto got = out[un.size() + k].to_vector<int32_t>();
    for (size_t i = 0; i < a.size(); ++i)
      EXPECT_EQ(got[i], bin[k].second(a[i], b[i]))
          << bin[k].first << "(" << a[i] << ", " << b[i] << ")";
  }
}

TEST(ElementwiseExec, PredAndComplex) {
  Module m;
  TensorType p{DType::pred, {4}}, r{DType::f64, {2}};
  Func& f = m.add_func("main", {p, p, r, r});
  Value c = complex(f.arg(2), f.arg(3));
  f.ret({and_(f.arg(0), f.arg(1)), or_(f.arg(0), f.arg(1)), xor_(f.arg(0), f.arg(1)),
         not_(f.arg(0)), real(c), imag(c), abs(c), real(multiply(c, c))});
  auto out = run(m, {Array::from<bool>({4}, std::vector<bool>{true, true, false, false}),
                     Array::from<bool>({4}, std::vector<bool>{true, false, true, false}),
                     Array::from<double>({2}, {3, 1}), Array::from<double>({2}, {4, -1})});
  EXPECT_EQ(out[0].to_vector<bool>(), (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ(out[1].to_vector<bool>(), (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ(out[2].to_vector<bool>(), (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ(out[3].to_vector<bool>(), (std::vector<bool>{false, false, true, true}));
  EXPECT_EQ(values(out[4]), (std::vector<double>{3, 1}));
  EXPECT_EQ(values(out[5]), (std::vector<double>{4, -1}));
  EXPECT_NEAR(values(out[6])[0], 5, 1e-12);
  EXPECT_EQ(values(out[7]), (std::vector<double>{-7, 0}));
}

TEST(ElementwiseExec, CompareAllDirectionsAndTypes) {
  const ComparisonDirection dirs[] = {ComparisonDirection::EQ, ComparisonDirection::NE,
                                      ComparisonDirection::GE, ComparisonDirection::GT,
                                      ComparisonDirection::LE, ComparisonDirection::LT};
  auto ref = [](ComparisonDirection d, auto x, auto y) {
    switch (d) {
      case ComparisonDirection::EQ:
        return x == y;
      case ComparisonDirection::NE:
        return x != y;
      case ComparisonDirection::GE:
        return x >= y;
      case ComparisonDirection::GT:
        return x > y;
      case ComparisonDirection::LE:
        return x <= y;
      case ComparisonDirection::LT:
        break;
    }
    return x < y;
  };
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {4}},
                                {DType::f32, {4}},
                                {DType::i32, {3}},
                                {DType::i32, {3}},
                                {DType::ui32, {3}},
                                {DType::ui32, {3}}});
  std::vector<Value> outs;
  for (auto d : dirs) {
    outs.push_back(compare(f.arg(0), f.arg(1), d, ComparisonType::FLOAT));
    outs.push_back(compare(f.arg(2), f.arg(3), d, ComparisonType::SIGNED));
    outs.push_back(compare(f.arg(4), f.arg(5), d, ComparisonType::UNSIGNED));
  }
  // TOTALORDER: -0.0 < +0.0 and NaN compares equal to itself.
  outs.push_back(compare(f.arg(0), f.arg(1), ComparisonDirection::LT, ComparisonType::TOTALORDER));
  outs.push_back(compare(f.arg(0), f.arg(0), ComparisonDirection::EQ, ComparisonType::TOTALORDER));
  f.ret(outs);
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> fa = {1, -0.0f, nan, 3}, fb = {2, 0.0f, nan, 3};
  std::vector<int32_t> ia = {-1, 5, 2}, ib = {1, 5, -3};
  std::vector<uint32_t> ua = {0xFFFFFFFFu, 5, 2}, ub = {1, 5, 3};
  auto out = run(m, {Array::from<float>({4}, fa), Array::from<float>({4}, fb),
                     Array::from<int32_t>({3}, ia), Array::from<int32_t>({3}, ib),
                     Array::from<uint32_t>({3}, ua), Array::from<uint32_t>({3}, ub)});
  for (size_t k = 0; k < 6; ++k) {
    auto gf = out[3 * k].to_vector<bool>(), gi = out[3 * k + 1].to_vector<bool>(),
         gu = out[3 * k + 2].to_vector<bool>();
    for (size_t i = 0; i < 4; ++i)
      EXPECT_EQ(gf[i], ref(dirs[k], fa[i], fb[i])) << enum_name(dirs[k]) << " f32 " << i;
    for (size_t i = 0; i < 3; ++i)
      EXPECT_EQ(gi[i], ref(dirs[k], ia[i], ib[i])) << enum_name(dirs[k]) << " i32 " << i;
    for (size_t i = 0; i < 3; ++i)
      EXPECT_EQ(gu[i], ref(dirs[k], ua[i], ub[i])) << enum_name(dirs[k]) << " ui32 " << i;
  }
  EXPECT_EQ(out[18].to_vector<bool>(), (std::vector<bool>{true, true, false, false}));
  EXPECT_EQ(out[19].to_vector<bool>(), (std::vector<bool>{true, true, true, true}));
}

}  // namespace
}  // namespace hhlo
