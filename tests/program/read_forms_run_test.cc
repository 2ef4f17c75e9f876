// Programs in forms the text reader turns into what the plugin reads (issue 44): chlo.scan's
// pretty form (the plugin holds the op; our builder does not) and tuple values (`stablehlo.tuple`,
// `get_tuple_element`), loaded through the program stage as `hhlo run` loads them and run.
// Expected values are StableHLO's own interpreter tests' (stablehlo/tests/interpret), derived by
// hand where noted.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "hhlo/core/error.h"
#include "hhlo/ir/parser.h"
#include "hhlo/program/compile.h"
#include "program_util.h"

namespace hhlo {
namespace {

using ::testing::HasSubstr;

using test::cpu;
using test::run_text;

std::vector<int32_t> ints(const Array& a) {
  auto v = a.values<int32_t>();
  return {v.begin(), v.end()};
}

// chlo.scan in ChloOps.cpp's ScanOp::print form: prefix sums, suffix sums (is_reverse) and a
// running maximum with its index (two inputs, two carries; scan.mlir's cummax case).
TEST(ReadFormsRun, ChloScanPrettyForm) {
  const char* text = R"mlir(
func.func @main(%input: tensor<5xi32>, %iota: tensor<5xi32>) -> (tensor<5xi32>, tensor<i32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<i32>, tensor<i32>) {
  %init = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = chlo.scan(%input) inits(%init) dimension=0 {
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %1 = stablehlo.add %a, %b : tensor<i32>
    stablehlo.return %1, %1 : tensor<i32>, tensor<i32>
  } : (tensor<5xi32>, tensor<i32>) -> (tensor<5xi32>, tensor<i32>)
  %2:2 = chlo.scan(%input) inits(%init) dimension=0 attributes {is_reverse = true} {
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %1 = stablehlo.add %a, %b : tensor<i32>
    stablehlo.return %1, %1 : tensor<i32>, tensor<i32>
  } : (tensor<5xi32>, tensor<i32>) -> (tensor<5xi32>, tensor<i32>)
  %low = stablehlo.constant dense<-2147483648> : tensor<i32>
  %3:4 = chlo.scan(%input, %iota) inits(%low, %init) dimension=0 {
  ^bb0(%cur_val: tensor<i32>, %cur_idx: tensor<i32>, %run_val: tensor<i32>, %run_idx: tensor<i32>):
    %new_val = stablehlo.maximum %run_val, %cur_val : tensor<i32>
    %gt = stablehlo.compare GT, %run_val, %cur_val : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %eq = stablehlo.compare EQ, %run_val, %cur_val : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %max_idx = stablehlo.maximum %run_idx, %cur_idx : tensor<i32>
    %tie_or_less = stablehlo.select %eq, %max_idx, %cur_idx : tensor<i1>, tensor<i32>
    %new_idx = stablehlo.select %gt, %run_idx, %tie_or_less : tensor<i1>, tensor<i32>
    stablehlo.return %new_val, %new_idx, %new_val, %new_idx : tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
  } : (tensor<5xi32>, tensor<5xi32>, tensor<i32>, tensor<i32>) -> (tensor<5xi32>, tensor<5xi32>, tensor<i32>, tensor<i32>)
  return %0#0, %0#1, %2#0, %3#0, %3#1, %3#2, %3#3 : tensor<5xi32>, tensor<i32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<i32>, tensor<i32>
})mlir";
  Module m = parse_module(text, {.source_name = "scan.mlir"});
  const Op& scan = *m.find("main")->body().ops().at(1);
  EXPECT_EQ(scan.name(), "chlo.scan");
  EXPECT_EQ(scan.attr("dimension")->get_if<IntAttr>()->value, 0);
  EXPECT_EQ(scan.attr("resultSegmentSizes")->get_if<OpaqueAttr>()->text, "array<i32: 1, 1>");
  auto out = run_text(text, {Array::from<int32_t>({5}, {3, 1, 4, 1, 5}),
                             Array::from<int32_t>({5}, {0, 1, 2, 3, 4})});
  ASSERT_EQ(out.size(), 7u);
  EXPECT_EQ(ints(out[0]), (std::vector<int32_t>{3, 4, 8, 9, 14}));  // prefix sums, by hand
  EXPECT_EQ(ints(out[1]), (std::vector<int32_t>{14}));
  EXPECT_EQ(ints(out[2]), (std::vector<int32_t>{14, 11, 10, 6, 5}));  // suffix sums, by hand
  EXPECT_EQ(ints(out[3]), (std::vector<int32_t>{3, 3, 4, 4, 5}));     // running maximum
  EXPECT_EQ(ints(out[4]), (std::vector<int32_t>{0, 0, 2, 2, 4}));     // and where it is
  EXPECT_EQ(ints(out[5]), (std::vector<int32_t>{5}));
  EXPECT_EQ(ints(out[6]), (std::vector<int32_t>{4}));
}

TEST(ReadFormsRun, ChloScanWithTypesThatDisagreeIsRefusedNamingThem) {
  const char* text = R"mlir(
func.func @main(%input: tensor<4xi32>) -> tensor<4xi32> {
  %init = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = chlo.scan(%input) inits(%init) dimension=0 {
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    stablehlo.return %a, %b : tensor<i32>, tensor<i32>
  } : (tensor<4xi32>) -> (tensor<4xi32>, tensor<i32>)
  return %0#0 : tensor<4xi32>
})mlir";
  try {
    parse_module(text, {.source_name = "scan.mlir"});
    FAIL() << "parsed";
  } catch (const ParseError& e) {
    EXPECT_THAT(e.what(), HasSubstr("2 operand types (inputs and inits)"));
  }
}

// tuple_and_get_tuple_element.mlir's case with the values given as arguments, in the pretty
// form and the generic one: each element read is the value put in (the spec's semantics).
TEST(ReadFormsRun, TupleElementsAreTheValuesPutIn) {
  const char* text = R"mlir(
func.func @main(%val0: tensor<2xf64>, %tmp0: tensor<i64>) -> (tensor<2xf64>, tensor<i64>, tensor<i64>) {
  %val1 = stablehlo.tuple %tmp0 : tuple<tensor<i64>>
  %operand = stablehlo.tuple %val0, %val1 : tuple<tensor<2xf64>, tuple<tensor<i64>>>
  %result0 = stablehlo.get_tuple_element %operand[0] : (tuple<tensor<2xf64>, tuple<tensor<i64>>>) -> tensor<2xf64>
  %tmp1 = stablehlo.get_tuple_element %operand[1] : (tuple<tensor<2xf64>, tuple<tensor<i64>>>) -> tuple<tensor<i64>>
  %result1 = stablehlo.get_tuple_element %tmp1[0] : (tuple<tensor<i64>>) -> tensor<i64> loc("x.py":3:1)
  %g = "stablehlo.tuple"(%val0, %val1) : (tensor<2xf64>, tuple<tensor<i64>>) -> tuple<tensor<2xf64>, tuple<tensor<i64>>>
  %g1 = "stablehlo.get_tuple_element"(%g) <{index = 1 : i32}> : (tuple<tensor<2xf64>, tuple<tensor<i64>>>) -> tuple<tensor<i64>>
  %g2 = "stablehlo.get_tuple_element"(%g1) {index = 0 : i32} : (tuple<tensor<i64>>) -> tensor<i64>
  %two = stablehlo.add %g2, %result1 : tensor<i64>
  return %result0, %result1, %two : tensor<2xf64>, tensor<i64>, tensor<i64>
})mlir";
  Module m = parse_module(text, {.source_name = "tuple.mlir"});
  ASSERT_EQ(m.find("main")->body().ops().size(), 2u);  // the add and the return: no tuple op
  auto out = run_text(text, {Array::from<double>({2}, {1.0, 2.0}), Array::from<int64_t>({}, {3})});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].values<double>()[0], 1.0);
  EXPECT_EQ(out[0].values<double>()[1], 2.0);
  EXPECT_EQ(out[1].values<int64_t>()[0], 3);
  EXPECT_EQ(out[2].values<int64_t>()[0], 6);
}

/// The ParseError of parsing `body` as @main's body (`%x: tensor<2xf32>`, returning it).
std::string tuple_error(const std::string& body, const std::string& sig = "%x: tensor<2xf32>") {
  std::string text = "func.func @main(" + sig + ") -> tensor<2xf32> {\n" + body +
                     "\n  return %x : tensor<2xf32>\n}\n";
  try {
    parse_module(text, {.source_name = "tuple.mlir"});
  } catch (const ParseError& e) {
    return e.what();
  }
  return "parsed";
}

TEST(ReadFormsRun, TupleMisusesAreRefusedNamingThem) {
  EXPECT_THAT(tuple_error("  %t = stablehlo.tuple %x : tuple<tensor<2xf32>>\n"
                          "  %y = stablehlo.add %t, %x : tensor<2xf32>"),
              HasSubstr("%t is a tuple: only stablehlo.get_tuple_element"));
  EXPECT_THAT(tuple_error("  %t = stablehlo.tuple %x : tuple<tensor<2xf32>>\n"
                          "  %y = stablehlo.get_tuple_element %t[1] : (tuple<tensor<2xf32>>) -> "
                          "tensor<2xf32>"),
              HasSubstr("an index below 1"));
  EXPECT_THAT(tuple_error("  %t = stablehlo.tuple %x : tuple<tensor<3xf32>>"),
              HasSubstr("the tuple type tuple<tensor<2xf32>> (C1)"));
  EXPECT_THAT(tuple_error("  %t = stablehlo.tuple %x : tuple<tensor<2xf32>>\n"
                          "  %y = stablehlo.get_tuple_element %t[0] : (tuple<tensor<2xf32>>) -> "
                          "tensor<2xi32>"),
              HasSubstr("the element type tensor<2xf32> (C2)"));
  EXPECT_THAT(tuple_error("  %y = stablehlo.get_tuple_element %x[0] : (tuple<tensor<2xf32>>) -> "
                          "tensor<2xf32>"),
              HasSubstr("get_tuple_element of one tuple value"));
  EXPECT_THAT(tuple_error("", "%x: tensor<2xf32>, %t: tuple<tensor<2xf32>>"),
              HasSubstr("a tuple type is read only as the type of stablehlo.tuple"));
}

}  // namespace
}  // namespace hhlo
