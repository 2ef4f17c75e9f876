// The check rules (compare.h) and the program rewrites (rewrite.h), without a plugin.
#include "conformance/compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>

#include "conformance/rewrite.h"
#include "hhlo/core/error.h"

namespace hhlo::conformance {
namespace {

using ::testing::HasSubstr;

template <typename T>
std::optional<std::string> cmp(CheckKind kind, std::vector<T> a, std::vector<T> b) {
  TensorType type{dtype_of<T>, {static_cast<int64_t>(a.size())}};
  return compare(kind, type, a.data(), b.data());
}

float ulps_up(float x, int n) {
  for (int i = 0; i < n; ++i) x = std::nextafter(x, std::numeric_limits<float>::infinity());
  return x;
}

TEST(Compare, CloseAcceptsThreeUlpAndRejectsFour) {
  EXPECT_EQ(cmp<float>(CheckKind::close, {1.0f, 2.0f}, {ulps_up(1.0f, 3), 2.0f}), std::nullopt);
  auto m = cmp<float>(CheckKind::close, {1.0f, 2.0f}, {1.0f, ulps_up(2.0f, 4)});
  ASSERT_TRUE(m);
  EXPECT_THAT(*m, HasSubstr("check.expect_close: 1 of 2 elements of tensor<2xf32> differ"));
  EXPECT_THAT(*m, HasSubstr("first at [1]"));
  EXPECT_THAT(*m, HasSubstr("4 ULP apart, at most 3 allowed"));
}

TEST(Compare, CloseCountsUlpAcrossZero) {
  float tiny = std::numeric_limits<float>::denorm_min();
  EXPECT_EQ(cmp<float>(CheckKind::close, {0.0f}, {-0.0f}), std::nullopt);
  EXPECT_EQ(cmp<float>(CheckKind::close, {tiny}, {-tiny}), std::nullopt);  // 2 ULP
  EXPECT_TRUE(cmp<float>(CheckKind::close, {2 * tiny}, {-2 * tiny}));      // 4 ULP
}

TEST(Compare, CloseNaNMatchesAnyNaNOtherNonFiniteBitForBit) {
  float nan1 = std::numeric_limits<float>::quiet_NaN();
  float nan2 = -nan1;
  float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(cmp<float>(CheckKind::close, {nan1, inf}, {nan2, inf}), std::nullopt);
  EXPECT_TRUE(cmp<float>(CheckKind::close, {inf}, {-inf}));
  EXPECT_TRUE(cmp<float>(CheckKind::close, {nan1}, {1.0f}));
  EXPECT_TRUE(cmp<float>(CheckKind::close, {std::numeric_limits<float>::max()}, {inf}));
}

TEST(Compare, CloseOnDoubleAndHalfTypes) {
  double one = 1.0, four_up = one;
  for (int i = 0; i < 4; ++i) four_up = std::nextafter(four_up, 2.0);
  EXPECT_TRUE(cmp<double>(CheckKind::close, {one}, {four_up}));
  f16_t a(1.0f), b, c;
  b.bits = a.bits + 3;
  c.bits = a.bits + 4;
  EXPECT_EQ(cmp<f16_t>(CheckKind::close, {a}, {b}), std::nullopt);
  EXPECT_TRUE(cmp<f16_t>(CheckKind::close, {a}, {c}));
  bf16_t x(-3.0f), y, z;
  y.bits = x.bits + 3;  // magnitude grows: still 3 ULP
  z.bits = x.bits + 4;
  EXPECT_EQ(cmp<bf16_t>(CheckKind::close, {x}, {y}), std::nullopt);
  EXPECT_TRUE(cmp<bf16_t>(CheckKind::close, {x}, {z}));
}

TEST(Compare, CloseComplexUsesTheLargerPartDistance) {
  using C = std::complex<float>;
  EXPECT_EQ(cmp<C>(CheckKind::close, {C(1, 1)}, {C(ulps_up(1, 3), ulps_up(1, 2))}), std::nullopt);
  auto m = cmp<C>(CheckKind::close, {C(1, 1)}, {C(1, ulps_up(1, 4))});
  ASSERT_TRUE(m);
  EXPECT_THAT(*m, HasSubstr("imaginary part"));
}

TEST(Compare, AlmostEqAbsoluteToleranceAndSignRule) {
  EXPECT_EQ(cmp<double>(CheckKind::almost_eq, {1.0, 0.0}, {1.0009, 0.0005}), std::nullopt);
  EXPECT_TRUE(cmp<double>(CheckKind::almost_eq, {1.0}, {1.0011}));
  EXPECT_TRUE(cmp<double>(CheckKind::almost_eq, {1e-5}, {-1e-5}));             // signs differ
  EXPECT_EQ(cmp<double>(CheckKind::almost_eq, {0.0}, {-1e-4}), std::nullopt);  // one is zero
  double nan = std::nan("");
  EXPECT_EQ(cmp<double>(CheckKind::almost_eq, {nan}, {nan}), std::nullopt);
  EXPECT_TRUE(cmp<double>(CheckKind::almost_eq, {nan}, {0.0}));
  using C = std::complex<double>;
  EXPECT_TRUE(cmp<C>(CheckKind::almost_eq, {C(1, 1)}, {C(1, 1.01)}));
}

TEST(Compare, EqOnIntegersBooleansAndFloats) {
  EXPECT_EQ(cmp<int64_t>(CheckKind::eq, {1, -5}, {1, -5}), std::nullopt);
  auto m = cmp<uint8_t>(CheckKind::eq, {1, 200}, {1, 201});
  ASSERT_TRUE(m);
  EXPECT_THAT(*m, HasSubstr("actual 200, expected 201"));
  uint8_t t1[] = {1}, t2[] = {2}, f[] = {0};  // any non-zero byte is true
  TensorType pred{DType::pred, {1}};
  EXPECT_EQ(compare(CheckKind::eq, pred, t1, t2), std::nullopt);
  EXPECT_TRUE(compare(CheckKind::eq, pred, t1, f));
  EXPECT_EQ(cmp<float>(CheckKind::eq, {0.0f}, {-0.0f}), std::nullopt);
  EXPECT_TRUE(cmp<float>(CheckKind::eq, {1.0f}, {ulps_up(1.0f, 1)}));
}

TEST(Compare, ReportsMultiIndexOfTheFirstMismatch) {
  std::vector<int32_t> a(6, 0), b(6, 0);
  b[4] = 7;
  b[5] = 8;
  TensorType type{DType::i32, {2, 3}};
  auto m = compare(CheckKind::eq, type, a.data(), b.data());
  ASSERT_TRUE(m);
  EXPECT_THAT(*m, HasSubstr("2 of 6 elements of tensor<2x3xi32> differ; first at [1, 1]"));
}

constexpr const char* kProgram = R"(module @jit_main {
  func.func public @main() -> (tensor<2xf32> {jax.result_info = ""}) {
    %0 = call @inputs() : () -> tensor<2xf32>
    %1:2 = call @expected() : () -> (tensor<2xf32>, tensor<2xi32>)
    stablehlo.custom_call @check.expect_close(%0, %1#0) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
    return %0 : tensor<2xf32>
  }
}
)";

TEST(Rewrite, FindsChecks) {
  auto checks = find_checks(kProgram);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].kind, CheckKind::close);
  EXPECT_EQ(checks[0].actual, "%0");
  EXPECT_EQ(checks[0].expected, "%1#0");
  EXPECT_EQ(checks[0].type.to_string(), "tensor<2xf32>");
  EXPECT_EQ(checks[0].line, 5);
}

TEST(Rewrite, ToFfiAddsApiVersion4) {
  std::string out = rewrite_checks_to_ffi(kProgram);
  EXPECT_THAT(out, HasSubstr("@check.expect_close(%0, %1#0) {api_version = 4 : i32, "
                             "has_side_effect = true}"));
}

TEST(Rewrite, ToOutputsAppendsOperandsToMain) {
  std::string out = rewrite_checks_to_outputs(kProgram);
  EXPECT_THAT(out, ::testing::Not(HasSubstr("custom_call")));
  EXPECT_THAT(out, HasSubstr("-> (tensor<2xf32> {jax.result_info = \"\"}, tensor<2xf32>, "
                             "tensor<2xf32>) {"));
  EXPECT_THAT(out, HasSubstr("return %0, %0, %1#0 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>"));
}

TEST(Rewrite, ToOutputsHandlesASingleUnparenthesizedResult) {
  std::string p = kProgram;
  p.replace(p.find("(tensor<2xf32> {jax.result_info = \"\"})"),
            std::string("(tensor<2xf32> {jax.result_info = \"\"})").size(), "tensor<2xf32>");
  std::string out = rewrite_checks_to_outputs(p);
  EXPECT_THAT(out, HasSubstr("-> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {"));
}

TEST(Rewrite, RejectsACheckItCannotParse) {
  std::string p = kProgram;
  p.replace(p.find("(%0, %1#0)"), 10, "(%0)");
  EXPECT_THROW(find_checks(p), Error);
}

// i1 hex data: the corpus packs 8 elements a byte, least significant bit first (the MLIR of the
// 0.81 plugin); newer MLIR (0.115 plugin) wants one byte per element. Both become lists.
// Hand-derived: 0xEE = 0b11101110 -> elements 0..7 = F T T T F T T T; 0x01 -> element 8 = T.
TEST(Rewrite, PackedI1HexBecomesAList) {
  std::string out =
      rewrite_i1_hex_literals("    %c = stablehlo.constant dense<\"0xEE01\"> : tensor<3x3xi1>\n");
  EXPECT_EQ(out,
            "    %c = stablehlo.constant dense<[[false, true, true], [true, false, true], "
            "[true, true, true]]> : tensor<3x3xi1>\n");
}

TEST(Rewrite, OneBytePerElementI1HexBecomesAList) {
  std::string out =
      rewrite_i1_hex_literals("%c = stablehlo.constant dense<\"0x000100\"> : tensor<3xi1>\n");
  EXPECT_EQ(out, "%c = stablehlo.constant dense<[false, true, false]> : tensor<3xi1>\n");
}

TEST(Rewrite, I1SplatHexAndOtherLiteralsAreKept) {
  std::string out = rewrite_i1_hex_literals(
      "%a = stablehlo.constant dense<\"0xFF\"> : tensor<2x2xi1>\n"
      "%b = stablehlo.constant dense<\"0x0102\"> : tensor<2xi8>\n");
  EXPECT_THAT(out, HasSubstr("dense<[[true, true], [true, true]]> : tensor<2x2xi1>"));
  EXPECT_THAT(out, HasSubstr("dense<\"0x0102\"> : tensor<2xi8>"));
}

TEST(Rewrite, I1HexOfNeitherSizeIsAnErrorNamingTheLine) {
  try {
    rewrite_i1_hex_literals("\n%c = stablehlo.constant dense<\"0x00010203\"> : tensor<20xi1>\n");
    FAIL() << "accepted 4 bytes for 20 i1 elements";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("line 2"));
    EXPECT_THAT(e.what(), HasSubstr("4 bytes for tensor<20xi1>"));
  }
}

}  // namespace
}  // namespace hhlo::conformance
