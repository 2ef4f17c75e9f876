// The program stage's rewrites to the spec (hhlo/program/spec_rewrites.h, issue 44): programs
// the plugin computes otherwise than the StableHLO spec (tests/runtime/spec_fact_test.cc) give
// the spec's values through the program stage (hhlo::compile of a text, as `hhlo run`, Session
// and serve load it). Expected values come from NumPy (np.maximum/np.minimum, np.ceil/np.floor,
// .real) and the spec's text, derived by hand where noted.
#include "hhlo/program/spec_rewrites.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "hhlo/core/error.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/program/compile.h"
#include "program_util.h"

namespace hhlo {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using c64 = std::complex<float>;
using c128 = std::complex<double>;

using test::cpu;
using test::run_text;

/// A 1-D array of `t` whose elements have the bits `bits`.
Array of_bits(DType t, const std::vector<uint64_t>& bits) {
  Array a(t, {static_cast<int64_t>(bits.size())});
  auto* p = static_cast<unsigned char*>(a.data());
  std::size_t w = byte_size(t);
  for (std::size_t i = 0; i < bits.size(); ++i) std::memcpy(p + i * w, &bits[i], w);
  return a;
}

/// The bits of each element of `a`.
std::vector<uint64_t> bits_of(const Array& a) {
  std::vector<uint64_t> out(static_cast<std::size_t>(a.num_elements()));
  std::size_t w = byte_size(a.dtype());
  for (std::size_t i = 0; i < out.size(); ++i)
    std::memcpy(&out[i], static_cast<const unsigned char*>(a.data()) + i * w, w);
  return out;
}

std::string with_type(std::string text, const std::string& type) {
  for (std::size_t at; (at = text.find("TYPE")) != std::string::npos;) text.replace(at, 4, type);
  return text;
}

TEST(SpecRewrites, ComplexMaximumAndMinimumAreLexicographic) {
  const char* text = R"(
func.func @main(%a: tensor<5xcomplex<f32>>, %b: tensor<5xcomplex<f32>>)
    -> (tensor<5xcomplex<f32>>, tensor<5xcomplex<f32>>) {
  %0 = stablehlo.maximum %a, %b : tensor<5xcomplex<f32>>
  %1 = stablehlo.minimum %a, %b : tensor<5xcomplex<f32>>
  return %0, %1 : tensor<5xcomplex<f32>>, tensor<5xcomplex<f32>>
})";
  Array a = Array::from<c64>({5}, {{1, 1}, {1, 5}, {2, 0}, {3, 3}, {-1, 2}});
  Array b = Array::from<c64>({5}, {{1, 2}, {1, 3}, {1, 9}, {3, 3}, {-1, -2}});
  auto out = run_text(text, {a, b});
  // np.maximum(a, b), np.minimum(a, b) (NumPy 1.26).
  EXPECT_EQ(out[0].to_vector<c64>(), (std::vector<c64>{{1, 2}, {1, 5}, {2, 0}, {3, 3}, {-1, 2}}));
  EXPECT_EQ(out[1].to_vector<c64>(), (std::vector<c64>{{1, 1}, {1, 3}, {1, 9}, {3, 3}, {-1, -2}}));
}

// The reference interpreter's own cases (stablehlo/tests/interpret/maximum.mlir, max_op_test_c64,
// and ceil.mlir, ceil_op_test_f32), constants folded at compile time: its expected values.
TEST(SpecRewrites, TheReferenceInterpretersCasesGiveItsValues) {
  const char* text = R"(
func.func @main() -> (tensor<4xcomplex<f32>>, tensor<9xf32>) {
  %0 = stablehlo.constant dense<[(1.5, 2.5), (1.5, 7.5), (0.0, 1.5), (0.0, 1.5)]> : tensor<4xcomplex<f32>>
  %1 = stablehlo.constant dense<[(7.5, 1.5), (1.5, 2.5), (-0.0, 2.5), (0.0, 1.5)]> : tensor<4xcomplex<f32>>
  %2 = stablehlo.maximum %0, %1 : tensor<4xcomplex<f32>>
  %3 = stablehlo.constant dense<[0xFF800000, -2.5, 0x80000001, -0.0, 0.0, 0x00000001, 2.5, 0x7F800000, 0x7FC00000]> : tensor<9xf32>
  %4 = stablehlo.ceil %3 : tensor<9xf32>
  return %2, %4 : tensor<4xcomplex<f32>>, tensor<9xf32>
})";
  auto out = run_text(text, {});
  std::vector<c64> max = out[0].to_vector<c64>();
  EXPECT_EQ(max, (std::vector<c64>{{7.5f, 1.5f}, {1.5f, 7.5f}, {-0.0f, 2.5f}, {0.0f, 1.5f}}));
  EXPECT_TRUE(std::signbit(max[2].real()));
  EXPECT_EQ(bits_of(out[1]),
            (std::vector<uint64_t>{0xFF800000, 0xC0000000, 0x80000000, 0x80000000, 0, 0x3F800000,
                                   0x40400000, 0x7F800000, 0x7FC00000}));
}

TEST(SpecRewrites, AReductionWithAComplexMaximumBodyIsLexicographic) {
  const char* text = R"(
func.func @main(%x: tensor<4xcomplex<f64>>) -> (tensor<complex<f64>>, tensor<complex<f64>>) {
  %lo = stablehlo.constant dense<(-1.0e300, -1.0e300)> : tensor<complex<f64>>
  %hi = stablehlo.constant dense<(1.0e300, 1.0e300)> : tensor<complex<f64>>
  %0 = stablehlo.reduce(%x init: %lo) applies stablehlo.maximum across dimensions = [0]
      : (tensor<4xcomplex<f64>>, tensor<complex<f64>>) -> tensor<complex<f64>>
  %1 = stablehlo.reduce(%x init: %hi) applies stablehlo.minimum across dimensions = [0]
      : (tensor<4xcomplex<f64>>, tensor<complex<f64>>) -> tensor<complex<f64>>
  return %0, %1 : tensor<complex<f64>>, tensor<complex<f64>>
})";
  auto out = run_text(text, {Array::from<c128>({4}, {{2, 1}, {1, 1}, {2, 7}, {1, -3}})});
  // np.max and np.min of the array (NumPy orders complex numbers lexicographically).
  EXPECT_EQ(out[0].to_vector<c128>()[0], c128(2, 7));
  EXPECT_EQ(out[1].to_vector<c128>()[0], c128(1, -3));
}

TEST(SpecRewrites, ABooleanAddIsLogicalOr) {
  const char* text = R"(
func.func @main(%a: tensor<4xi1>, %b: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi1>) {
  %c = stablehlo.constant dense<[true, true, false, false]> : tensor<4xi1>
  %d = stablehlo.constant dense<[true, false, true, false]> : tensor<4xi1>
  %0 = stablehlo.add %c, %d : tensor<4xi1>
  %1 = stablehlo.add %a, %b : tensor<4xi1>
  return %0, %1 : tensor<4xi1>, tensor<4xi1>
})";
  auto out = run_text(text, {Array::from<bool>({4}, {true, true, false, false}),
                             Array::from<bool>({4}, {true, false, true, false})});
  const std::vector<bool> logical_or = {true, true, true, false};
  EXPECT_EQ(out[0].to_vector<bool>(), logical_or);
  EXPECT_EQ(out[1].to_vector<bool>(), logical_or);
}

// The interpreter's bitcast_convert.mlir: 64 i1 are the bits of 0x0123456789ABCDEF, element k
// bit k (the least significant first), and back; and an f32 through its 32 bits (1.0f is
// 0x3F800000: bits 23 to 29 set, by hand).
TEST(SpecRewrites, BitcastToAndFromI1IsOneBitPerElement) {
  const char* text = R"(
func.func @main(%x: tensor<64xi1>, %y: tensor<i64>, %z: tensor<2xf32>)
    -> (tensor<i64>, tensor<64xi1>, tensor<2x32xi1>, tensor<2xf32>) {
  %0 = stablehlo.bitcast_convert %x : (tensor<64xi1>) -> tensor<i64>
  %1 = stablehlo.bitcast_convert %y : (tensor<i64>) -> tensor<64xi1>
  %2 = stablehlo.bitcast_convert %z : (tensor<2xf32>) -> tensor<2x32xi1>
  %3 = stablehlo.bitcast_convert %2 : (tensor<2x32xi1>) -> tensor<2xf32>
  return %0, %1, %2, %3 : tensor<i64>, tensor<64xi1>, tensor<2x32xi1>, tensor<2xf32>
})";
  const uint64_t word = 0x0123456789ABCDEF;
  std::vector<bool> bits(64);
  for (int k = 0; k < 64; ++k) bits[k] = (word >> k) & 1;
  Array x(DType::pred, {64});
  for (int k = 0; k < 64; ++k) static_cast<bool*>(x.data())[k] = bits[k];
  auto out = run_text(text, {x, Array::from<int64_t>({}, {static_cast<int64_t>(word)}),
                             Array::from<float>({2}, {1.0f, -0.0f})});
  EXPECT_EQ(static_cast<uint64_t>(out[0].to_vector<int64_t>()[0]), word);
  EXPECT_EQ(out[1].to_vector<bool>(), bits);
  std::vector<bool> f(64, false);
  for (int k = 23; k <= 29; ++k) f[k] = true;  // 1.0f
  f[32 + 31] = true;                           // -0.0f: the sign bit alone
  EXPECT_EQ(out[2].to_vector<bool>(), f);
  EXPECT_EQ(out[3].to_vector<float>(), (std::vector<float>{1.0f, -0.0f}));
  EXPECT_TRUE(std::signbit(out[3].to_vector<float>()[1]));
}

TEST(SpecRewrites, CeilAndFloorOfSubnormalArgumentsAreTheSpecs) {
  const char* text = R"(
func.func @main(%x: tensor<6xTYPE>) -> (tensor<6xTYPE>, tensor<6xTYPE>) {
  %0 = stablehlo.ceil %x : tensor<6xTYPE>
  %1 = stablehlo.floor %x : tensor<6xTYPE>
  return %0, %1 : tensor<6xTYPE>, tensor<6xTYPE>
})";
  // Bits of: the smallest subnormal, its negative, the largest subnormal, the smallest normal,
  // -2.5, +0; then of the spec's results (np.ceil and np.floor of the same values).
  struct Case {
    const char* type;
    DType dtype;
    std::vector<uint64_t> x, ceil, floor;
  };
  const uint64_t s16 = 0x8000, s32 = 0x80000000, s64 = uint64_t{1} << 63;
  const std::vector<Case> cases = {
      {"f16",
       DType::f16,
       {1, s16 | 1, 0x03FF, 0x0400, 0xC100, 0},
       {0x3C00, s16, 0x3C00, 0x3C00, 0xC000, 0},
       {0, 0xBC00, 0, 0, 0xC200, 0}},
      {"bf16",
       DType::bf16,
       {1, s16 | 1, 0x007F, 0x0080, 0xC020, 0},
       {0x3F80, s16, 0x3F80, 0x3F80, 0xC000, 0},
       {0, 0xBF80, 0, 0, 0xC040, 0}},
      {"f32",
       DType::f32,
       {1, s32 | 1, 0x007FFFFF, 0x00800000, 0xC0200000, 0},
       {0x3F800000, s32, 0x3F800000, 0x3F800000, 0xC0000000, 0},
       {0, 0xBF800000, 0, 0, 0xC0400000, 0}},
      {"f64",
       DType::f64,
       {1, s64 | 1, 0x000FFFFFFFFFFFFF, 0x0010000000000000, 0xC004000000000000, 0},
       {0x3FF0000000000000, s64, 0x3FF0000000000000, 0x3FF0000000000000, 0xC000000000000000, 0},
       {0, 0xBFF0000000000000, 0, 0, 0xC008000000000000, 0}}};
  for (const Case& c : cases) {
    auto out = run_text(with_type(text, c.type), {of_bits(c.dtype, c.x)});
    EXPECT_EQ(bits_of(out[0]), c.ceil) << c.type;
    EXPECT_EQ(bits_of(out[1]), c.floor) << c.type;
  }
}

TEST(SpecRewrites, ReducePrecisionOfNaNWithoutMantissaBitsIsInfinity) {
  const char* text = R"(
func.func @main(%x: tensor<4xTYPE>) -> (tensor<4xTYPE>, tensor<4xTYPE>) {
  %0 = stablehlo.reduce_precision %x, format = e5m0 : tensor<4xTYPE>
  %1 = stablehlo.reduce_precision %x, format = e5m2 : tensor<4xTYPE>
  return %0, %1 : tensor<4xTYPE>, tensor<4xTYPE>
})";
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  auto out = run_text(with_type(text, "f64"), {Array::from<double>({4}, {nan, -nan, 3.0, 1e6})});
  // e5m0 (the reference interpreter's +inf for NaN; by hand: 3 = 1.1b x 2^1 ties to the even
  // exponent, 2; 1e6 overflows e5's largest exponent, 15, to inf).
  EXPECT_EQ(out[0].to_vector<double>(), (std::vector<double>{inf, inf, 2.0, inf}));
  // With mantissa bits a NaN stays a NaN.
  std::vector<double> m2 = out[1].to_vector<double>();
  EXPECT_TRUE(std::isnan(m2[0]) && std::isnan(m2[1])) << m2[0] << " " << m2[1];
  EXPECT_EQ(m2[2], 3.0);
  auto f32 = run_text(with_type(text, "f32"), {Array::from<float>({4}, {NAN, 1.0f, -0.75f, 0.0f})});
  // By hand: 1 stays 1; -0.75 = -1.1b x 2^-1 ties to the even exponent (f32's 126), -0.5.
  EXPECT_EQ(f32[0].to_vector<float>(), (std::vector<float>{INFINITY, 1.0f, -0.5f, 0.0f}));
}

TEST(SpecRewrites, ComplexConvertsToARealTypeByItsRealPart) {
  const char* text = R"(
func.func @main(%x: tensor<3xcomplex<f64>>) -> (tensor<3xf64>, tensor<3xf32>, tensor<3xi64>) {
  %0 = stablehlo.convert %x : (tensor<3xcomplex<f64>>) -> tensor<3xf64>
  %1 = stablehlo.convert %x : (tensor<3xcomplex<f64>>) -> tensor<3xf32>
  %2 = stablehlo.convert %x : (tensor<3xcomplex<f64>>) -> tensor<3xi64>
  return %0, %1, %2 : tensor<3xf64>, tensor<3xf32>, tensor<3xi64>
})";
  auto out = run_text(text, {Array::from<c128>({3}, {{-1.5, 0}, {0, 1}, {2.5, -3}})});
  // x.real, x.real.astype(np.float32), x.real.astype(np.int64).
  EXPECT_EQ(out[0].to_vector<double>(), (std::vector<double>{-1.5, 0, 2.5}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{-1.5f, 0, 2.5f}));
  EXPECT_EQ(out[2].to_vector<int64_t>(), (std::vector<int64_t>{-1, 0, 2}));
}

// The rewrite keeps the module whole: functions, calls and a composite's decomposition keep their
// names, and the ops of called functions are rewritten too (of regions: the reduction above).
TEST(SpecRewrites, FunctionsCallsAndCompositesAreKept) {
  const char* text = R"(module @m {
  func.func public @main(%x: tensor<2xi1>, %y: tensor<2xi1>) -> tensor<2xi1> {
    %0 = func.call @f(%x, %y) : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
    %1 = stablehlo.composite "my.or" %0, %y {decomposition = @g} : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
    return %1 : tensor<2xi1>
  }
  func.func private @f(%x: tensor<2xi1>, %y: tensor<2xi1>) -> tensor<2xi1> {
    %0 = stablehlo.add %x, %y : tensor<2xi1>
    return %0 : tensor<2xi1>
  }
  func.func private @g(%x: tensor<2xi1>, %y: tensor<2xi1>) -> tensor<2xi1> {
    %0 = stablehlo.add %x, %y : tensor<2xi1>
    return %0 : tensor<2xi1>
  }
})";
  Module m = parse_module(text, {.verify = true});
  EXPECT_EQ(rewrite_to_the_spec(m, "m.mlir"), 2);
  std::string printed = to_mlir(m);
  EXPECT_THAT(printed, HasSubstr("{callee = @f}"));
  EXPECT_THAT(printed, HasSubstr("decomposition = @g"));
  EXPECT_THAT(printed, Not(HasSubstr("stablehlo.add")));
  EXPECT_NO_THROW(parse_module(printed, {.verify = true})) << printed;
  auto out = run_text(
      text, {Array::from<bool>({2}, {true, false}), Array::from<bool>({2}, {true, false})});
  EXPECT_EQ(out[0].to_vector<bool>(), (std::vector<bool>{true, false}));
}

TEST(SpecRewrites, AModuleWithoutSuchOpsIsLeftAsItIs) {
  Module m = parse_module(R"(func.func @main(%x: tensor<2xf16>) -> tensor<2xf16> {
  %0 = stablehlo.ceil %x : tensor<2xf16>
  return %0 : tensor<2xf16>
})");
  std::string before = to_mlir(m);
  EXPECT_EQ(rewrite_to_the_spec(m, "p.mlir"), 0);
  EXPECT_EQ(to_mlir(m), before);
}

// A dynamic shape: complex maximum needs no constant and is rewritten; ceil, which needs
// constants of its shape, is kept (refinement makes shapes static before the rewrite).
TEST(SpecRewrites, DynamicShapesAreRewrittenWhereNoConstantIsNeeded) {
  Module m = parse_module(R"(func.func @main(%a: tensor<?xcomplex<f32>>, %b: tensor<?xcomplex<f32>>,
                 %x: tensor<?xf32>) -> (tensor<?xcomplex<f32>>, tensor<?xf32>) {
  %0 = stablehlo.maximum %a, %b : tensor<?xcomplex<f32>>
  %1 = stablehlo.ceil %x : tensor<?xf32>
  return %0, %1 : tensor<?xcomplex<f32>>, tensor<?xf32>
})");
  EXPECT_EQ(rewrite_to_the_spec(m, "p.mlir"), 1);
  std::string printed = to_mlir(m);
  EXPECT_THAT(printed, Not(HasSubstr("stablehlo.maximum")));
  EXPECT_THAT(printed, HasSubstr("stablehlo.ceil"));
  EXPECT_NO_THROW(parse_module(printed, {.verify = true})) << printed;
}

// The ops StableHLO added after 1.22, which the plugin (StableHLO up to 1.20) cannot parse, are
// given to it as older ops; exp2's result_accuracy goes to its exponential.
TEST(SpecRewrites, NewerOpsAreGivenToThePluginAsOlderOnes) {
  Module m = parse_module(R"(func.func @main(%a: tensor<3xf32>, %z: tensor<2xcomplex<f64>>)
    -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2xcomplex<f64>>) {
  %0 = stablehlo.fma %a, %a, %a : tensor<3xf32>
  %1 = stablehlo.exp2 %a {result_accuracy = #stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<HIGHEST>>} : tensor<3xf32>
  %2 = stablehlo.log2 %a : tensor<3xf32>
  %3 = stablehlo.log2 %z : tensor<2xcomplex<f64>>
  return %0, %1, %2, %3 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2xcomplex<f64>>
})");
  EXPECT_EQ(rewrite_to_the_spec(m, "p.mlir"), 4);
  std::string printed = to_mlir(m);
  for (const char* op : {"stablehlo.fma", "stablehlo.exp2", "stablehlo.log2"})
    EXPECT_THAT(printed, Not(HasSubstr(op)));
  EXPECT_THAT(printed, HasSubstr("stablehlo.exponential"));
  EXPECT_THAT(printed, HasSubstr("result_accuracy_mode<HIGHEST>"));
  EXPECT_NO_THROW(parse_module(printed, {.verify = true})) << printed;
}

/// The distance in units in the last place of `got` from `want` (floats or doubles); 0 for two
/// NaNs, -1 for one.
template <typename T>
int64_t ulps(T got, T want) {
  using I = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
  auto ordered = [](T v) {
    I i;
    std::memcpy(&i, &v, sizeof v);
    return i < 0 ? std::numeric_limits<I>::min() - i : i;
  };
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want) ? 0 : -1;
  if (got == want) return 0;  // infinities, -0 and 0
  return std::abs(static_cast<int64_t>(ordered(got)) - static_cast<int64_t>(ordered(want)));
}

// exp2 within 2 ulp of C's exp2 over the whole range: tiny, overflowing and infinite results,
// large arguments (where exponential(x * ln 2), JAX's own export of exp2, is off by up to 67 ulp
// in f32), infinities and NaN; f16 through f32.
TEST(SpecRewrites, Exp2IsWithinTwoUlpsOfCsExp2) {
  const char* text = R"(func.func @main(%a: tensor<14xf32>, %b: tensor<8xf64>, %c: tensor<3xf16>)
    -> (tensor<14xf32>, tensor<8xf64>, tensor<3xf16>) {
  %0 = stablehlo.exp2 %a : tensor<14xf32>
  %1 = stablehlo.exp2 %b : tensor<8xf64>
  %2 = stablehlo.exp2 %c : tensor<3xf16>
  return %0, %1, %2 : tensor<14xf32>, tensor<8xf64>, tensor<3xf16>
})";
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  const std::vector<float> a = {-149,   -140.3f, -125.5f, -0.5f, 0,   1,    10.25f,
                                120.3f, 127.9f,  128,     1000,  inf, -inf, nan};
  const std::vector<double> b = {-1074, -1021.75, -3.7, 0.1, 700.7, 1023.5, 1024, -2000};
  const std::vector<f16_t> c = {f16_t(-3.0f), f16_t(0.5f), f16_t(15.5f)};
  auto out = run_text(
      text, {Array::from<float>({14}, a), Array::from<double>({8}, b), Array::from<f16_t>({3}, c)});
  // XLA:CPU flushes subnormal results to zero (JAX 0.12.1's own exp2 gives 0 for 2^-127 and
  // below, docs/facts.md): C's value, 0 where it is subnormal.
  auto flushed = [](auto v) {
    return std::abs(v) < std::numeric_limits<decltype(v)>::min() ? decltype(v){0} : v;
  };
  std::vector<float> got_a = out[0].to_vector<float>();
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_LE(static_cast<uint64_t>(ulps(got_a[i], flushed(std::exp2(a[i])))), 2u)
        << "exp2(" << a[i] << ") = " << got_a[i] << ", C: " << std::exp2(a[i]);
  std::vector<double> got_b = out[1].to_vector<double>();
  for (size_t i = 0; i < b.size(); ++i)
    EXPECT_LE(static_cast<uint64_t>(ulps(got_b[i], flushed(std::exp2(b[i])))), 2u)
        << "exp2(" << b[i] << ") = " << got_b[i] << ", C: " << std::exp2(b[i]);
  std::vector<f16_t> got_c = out[2].to_vector<f16_t>();
  for (size_t i = 0; i < c.size(); ++i)
    EXPECT_EQ(got_c[i], f16_t(std::exp2(static_cast<float>(c[i]))));
}

// log2 within 2 ulp of C's (JAX's export writes log(x) * log2(e) too), complex exp2 and log2 as
// 2^z = exp(z ln 2) and log(z) / ln 2 by std::complex, and fma of f32, f64 and complex<f32> where
// the product and the sum are exact.
TEST(SpecRewrites, Log2ComplexExp2Log2AndFmaGiveTheirValues) {
  const char* text = R"(func.func @main(%a: tensor<7xf32>, %z: tensor<2xcomplex<f64>>,
                 %p: tensor<3xf64>, %q: tensor<1xcomplex<f32>>)
    -> (tensor<7xf32>, tensor<2xcomplex<f64>>, tensor<2xcomplex<f64>>, tensor<3xf64>,
        tensor<1xcomplex<f32>>) {
  %0 = stablehlo.log2 %a : tensor<7xf32>
  %1 = stablehlo.exp2 %z : tensor<2xcomplex<f64>>
  %2 = stablehlo.log2 %z : tensor<2xcomplex<f64>>
  %3 = stablehlo.fma %p, %p, %p : tensor<3xf64>
  %4 = stablehlo.fma %q, %q, %q : tensor<1xcomplex<f32>>
  return %0, %1, %2, %3, %4 : tensor<7xf32>, tensor<2xcomplex<f64>>, tensor<2xcomplex<f64>>,
                              tensor<3xf64>, tensor<1xcomplex<f32>>
})";
  const std::vector<float> a = {0.1f, 1, 2, 1e30f, 0, -1, std::numeric_limits<float>::infinity()};
  const std::vector<c128> z = {c128(1, 2), c128(-3, 0.5)};
  auto out = run_text(
      text, {Array::from<float>({7}, a), Array::from<c128>({2}, z),
             Array::from<double>({3}, {1.5, -2, 0.25}), Array::from<c64>({1}, {c64(1, 2)})});
  std::vector<float> got = out[0].to_vector<float>();
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_LE(static_cast<uint64_t>(ulps(got[i], std::log2(a[i]))), 2u)
        << "log2(" << a[i] << ") = " << got[i] << ", C: " << std::log2(a[i]);
  std::vector<c128> e = out[1].to_vector<c128>(), l = out[2].to_vector<c128>();
  for (size_t i = 0; i < z.size(); ++i) {
    c128 want_e = std::exp(z[i] * std::log(2.0)), want_l = std::log(z[i]) / std::log(2.0);
    EXPECT_LE(std::abs(e[i] - want_e), 1e-14 * std::abs(want_e)) << z[i] << " " << e[i];
    EXPECT_LE(std::abs(l[i] - want_l), 1e-14 * std::abs(want_l)) << z[i] << " " << l[i];
  }
  // 1.5 * 1.5 + 1.5 = 3.75; -2 * -2 - 2 = 2; 0.25 * 0.25 + 0.25 = 0.3125.
  EXPECT_EQ(out[3].to_vector<double>(), (std::vector<double>{3.75, 2, 0.3125}));
  // (1 + 2i)^2 + (1 + 2i) = -3 + 4i + 1 + 2i.
  EXPECT_EQ(out[4].to_vector<c64>(), (std::vector<c64>{c64(-2, 6)}));
}

// A dynamic shape: fma needs no constant and is rewritten; exp2 and log2, which need constants of
// their shape, are kept (refinement makes shapes static before the rewrite).
TEST(SpecRewrites, DynamicFmaIsRewrittenDynamicExp2IsKept) {
  Module m = parse_module(R"(func.func @main(%a: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %0 = stablehlo.fma %a, %a, %a : tensor<?xf32>
  %1 = stablehlo.exp2 %a : tensor<?xf32>
  return %0, %1 : tensor<?xf32>, tensor<?xf32>
})");
  EXPECT_EQ(rewrite_to_the_spec(m, "p.mlir"), 1);
  std::string printed = to_mlir(m);
  EXPECT_THAT(printed, Not(HasSubstr("stablehlo.fma")));
  EXPECT_THAT(printed, HasSubstr("stablehlo.exp2"));
}

TEST(SpecRewrites, ABitcastBetweenComplexWidthsIsRefusedNamingItsLine) {
  const char* text = R"(func.func @main(%x: tensor<2xcomplex<f64>>) -> tensor<2x2xcomplex<f32>> {
  %0 = stablehlo.bitcast_convert %x : (tensor<2xcomplex<f64>>) -> tensor<2x2xcomplex<f32>>
  return %0 : tensor<2x2xcomplex<f32>>
})";
  Module m = parse_module(text, {.source_name = "p.mlir"});
  try {
    rewrite_to_the_spec(m, "p.mlir");
    FAIL() << "not refused";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("p.mlir:2: stablehlo.bitcast_convert of "
                                    "tensor<2xcomplex<f64>> to tensor<2x2xcomplex<f32>>"));
    EXPECT_THAT(e.what(), HasSubstr("aborts the XLA CPU plugin's process"));
  }
  EXPECT_THROW(refuse_plugin_aborts(m, "p.mlir"), Error);
  EXPECT_THROW(compile(cpu(), std::string_view(text)), Error);
}

}  // namespace
}  // namespace hhlo
