// unroll_loops (hhlo/program/loop_unroll.h): which while loops are unrolled, by how much, and
// what the copy keeps. The values are checked end to end in tests/cli/loop_unroll_cli_test.cc.
#include "hhlo/program/loop_unroll.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "hhlo/core/error.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/ir/verifier.h"

namespace hhlo {
namespace {

/// A loop as JAX's fori_loop writes it (the bound and the step captured from @main): x <- 2x + 1,
/// N times from a counter starting at START.
std::string counted_loop(int start, int n) {
  return "func.func public @main(%x: tensor<3xf32>) -> tensor<3xf32> {\n"
         "  %c0 = stablehlo.constant dense<" +
         std::to_string(start) +
         "> : tensor<i32>\n"
         "  %n = stablehlo.constant dense<" +
         std::to_string(n) +
         "> : tensor<i32>\n"
         "  %one = stablehlo.constant dense<1> : tensor<i32>\n"
         "  %two = stablehlo.constant dense<2.0> : tensor<3xf32>\n"
         "  %r:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<3xf32>\n"
         "  cond {\n"
         "    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> "
         "tensor<i1>\n"
         "    stablehlo.return %p : tensor<i1>\n"
         "  } do {\n"
         "    %a = stablehlo.multiply %v, %two : tensor<3xf32>\n"
         "    %b = stablehlo.constant dense<1.0> : tensor<3xf32>\n"
         "    %c = stablehlo.add %a, %b : tensor<3xf32>\n"
         "    %j = stablehlo.add %i, %one : tensor<i32>\n"
         "    stablehlo.return %j, %c : tensor<i32>, tensor<3xf32>\n"
         "  }\n"
         "  return %r#1 : tensor<3xf32>\n"
         "}\n";
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(LoopUnroll, ACountedLoopGetsItsBodyKTimesForTheLargestDivisorUpToTheFactor) {
  // 12 iterations: factor 5 unrolls by 4 (the largest divisor of 12 up to 5), factor 8 by 6.
  for (auto [factor, k] : {std::pair{5, 4}, std::pair{8, 6}, std::pair{12, 12}}) {
    SCOPED_TRACE(factor);
    LoopUnroll r = unroll_loops(parse_module(counted_loop(0, 12)), factor);
    EXPECT_EQ(r.unrolled, 1);
    EXPECT_EQ(r.kept, 0);
    verify(r.module);
    std::string text = to_mlir(r.module);
    EXPECT_EQ(count(text, "stablehlo.while"), 1) << text;
    EXPECT_EQ(count(text, "stablehlo.multiply"), k) << text;
    EXPECT_EQ(count(text, "stablehlo.add"), 2 * k) << text;  // the value's and the counter's
  }
}

TEST(LoopUnroll, LoopsItCannotCountAreKeptWithTheReason) {
  // 7 iterations have no divisor in [2, 4]; 1 iteration is not worth it.
  LoopUnroll r = unroll_loops(parse_module(counted_loop(0, 7)), 4);
  EXPECT_EQ(r.unrolled, 0);
  EXPECT_EQ(r.kept, 1);
  EXPECT_EQ(r.first_kept_reason, "no divisor of its 7 iterations up to 4");
  EXPECT_EQ(count(to_mlir(r.module), "stablehlo.multiply"), 1);
  r = unroll_loops(parse_module(counted_loop(5, 6)), 4);
  EXPECT_EQ(r.first_kept_reason, "fewer than 2 iterations");
  // A bound from an argument, a counter stepping by 2, a GT condition: not counted.
  std::string text = counted_loop(0, 12);
  std::string by_arg = text;
  by_arg.replace(by_arg.find("(%x: tensor<3xf32>)"), 19, "(%x: tensor<3xf32>, %m: tensor<i32>)");
  by_arg.replace(by_arg.find("%i, %n,"), 7, "%i, %m,");
  r = unroll_loops(parse_module(by_arg), 4);
  EXPECT_EQ(r.first_kept_reason, "a region uses a value from outside it that is not a constant");
  std::string by_two = text;
  by_two.replace(by_two.find("dense<1> : tensor<i32>"), 22, "dense<2> : tensor<i32>");
  EXPECT_EQ(unroll_loops(parse_module(by_two), 4).first_kept_reason,
            "the counter does not step by 1");
  std::string gt = text;
  gt.replace(gt.find("compare LT"), 10, "compare GT");
  EXPECT_EQ(unroll_loops(parse_module(gt), 4).first_kept_reason,
            "the condition is not `counter < constant`");
}

/// counted_loop with a counter of type `type` (i64, ui64, ...) from START to N, both as written.
std::string counted_loop_of(const std::string& type, const std::string& start,
                            const std::string& n) {
  std::string text = counted_loop(0, 12);
  auto replace_all = [&text](const std::string& from, const std::string& to) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  };
  replace_all("dense<0> : tensor<i32>", "dense<" + start + "> : tensor<i32>");
  replace_all("dense<12> : tensor<i32>", "dense<" + n + "> : tensor<i32>");
  replace_all("tensor<i32>", "tensor<" + type + ">");
  if (type[0] == 'u') replace_all("SIGNED", "UNSIGNED");
  return text;
}

// Issue 44: a 64-bit counter from above 2^53 was counted through doubles: from 2^53 + 1 to
// 2^53 + 14 (13 iterations, prime) read as 14, unrolled by 2, and ran 14 iterations.
TEST(LoopUnroll, IntegerBoundsAreCountedExactlyPast2To53) {
  LoopUnroll r =
      unroll_loops(parse_module(counted_loop_of("i64", "9007199254740993", "9007199254741006")), 4);
  EXPECT_EQ(r.unrolled, 0);
  EXPECT_EQ(r.kept, 1);
  EXPECT_EQ(r.first_kept_reason, "no divisor of its 13 iterations up to 4");
  // 12 iterations from 2^62 + 1 (not a double): unrolled by 4.
  r = unroll_loops(
      parse_module(counted_loop_of("i64", "4611686018427387905", "4611686018427387917")), 4);
  EXPECT_EQ(r.unrolled, 1) << r.first_kept_reason;
  EXPECT_EQ(count(to_mlir(r.module), "stablehlo.multiply"), 4);
  // An unsigned counter past INT64_MAX: from 2^63 + 1 to 2^63 + 13, 12 iterations.
  r = unroll_loops(
      parse_module(counted_loop_of("ui64", "9223372036854775809", "9223372036854775821")), 4);
  EXPECT_EQ(r.unrolled, 1) << r.first_kept_reason;
  EXPECT_EQ(count(to_mlir(r.module), "stablehlo.multiply"), 4);
  // From INT64_MIN to INT64_MAX, or over all of ui64: more than INT64_MAX iterations, which
  // cannot be counted exactly in 64 bits: left as it is, saying so.
  for (auto [type, start, n] : {std::tuple{"i64", "-9223372036854775808", "9223372036854775807"},
                                std::tuple{"ui64", "0", "18446744073709551615"}}) {
    r = unroll_loops(parse_module(counted_loop_of(type, start, n)), 4);
    EXPECT_EQ(r.unrolled, 0) << type;
    EXPECT_EQ(r.kept, 1) << type;
    EXPECT_EQ(r.first_kept_reason, "its trip count cannot be counted exactly in 64 bits") << type;
    EXPECT_EQ(count(to_mlir(r.module), "stablehlo.multiply"), 1) << type;
  }
  // 4 iterations of a small unsigned counter, and none when the bound is below the start.
  EXPECT_EQ(unroll_loops(parse_module(counted_loop_of("ui8", "250", "254")), 4).unrolled, 1);
  EXPECT_EQ(unroll_loops(parse_module(counted_loop_of("i64", "5", "-3")), 4).first_kept_reason,
            "fewer than 2 iterations");
}

TEST(LoopUnroll, AFactorBelowTwoAndAModuleWithoutMainAreErrors) {
  EXPECT_THROW(unroll_loops(parse_module(counted_loop(0, 12)), 1), Error);
  Module m;
  m.add_func("f", {}).ret({});
  EXPECT_THROW(unroll_loops(m, 4), Error);
}

}  // namespace
}  // namespace hhlo
