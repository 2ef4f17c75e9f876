// SSA names in parsed text: numbered names (`%7`, `%arg7`, kept in flat tables by the parser) and
// all others (`%cst_1`, `%07`, ...) bind and scope alike; a region's names die with it.
#include <gtest/gtest.h>

#include <string>

#include "hhlo/ir/parser.h"

namespace hhlo {
namespace {

// Each op's operands by the op that defines them (nullptr: an argument), checked by the types
// the text gives every value: a wrong binding would pick a value of another type.
TEST(ParserNames, NumberedAndOtherNamesAreDistinct) {
  // %1 and %01 and %arg1 are three names; %1 is f32[2], %01 f32[3], %arg1 f32[4].
  const char* text =
      R"mlir(func.func @main(%arg0: tensor<3xf32>, %arg1: tensor<4xf32>) -> (tensor<2xf32>, tensor<3xf32>, tensor<4xf32>) {
  %1 = stablehlo.constant dense<1.0> : tensor<2xf32>
  %01 = stablehlo.negate %arg0 : tensor<3xf32>
  %arg01 = stablehlo.negate %arg1 : tensor<4xf32>
  %2 = stablehlo.add %1, %1 : tensor<2xf32>
  %cst_1 = stablehlo.add %01, %01 : tensor<3xf32>
  %3 = stablehlo.add %arg01, %arg1 : tensor<4xf32>
  return %2, %cst_1, %3 : tensor<2xf32>, tensor<3xf32>, tensor<4xf32>
}
)mlir";
  Module m = parse_module(text);
  const Func& f = *m.funcs().at(0);
  ASSERT_EQ(f.result_types().size(), 3u);
  EXPECT_EQ(f.result_types()[0].to_string(), "tensor<2xf32>");
  EXPECT_EQ(f.result_types()[1].to_string(), "tensor<3xf32>");
  EXPECT_EQ(f.result_types()[2].to_string(), "tensor<4xf32>");
  const auto& ops = f.body().ops();
  // %01 = negate %arg0: its operand is argument 0, not the constant %1.
  EXPECT_EQ(ops[1]->operands()[0], f.arg(0));
  // %3 = add %arg01, %arg1: the negate's result, then argument 1.
  EXPECT_EQ(ops[5]->operands()[0], ops[2]->result());
  EXPECT_EQ(ops[5]->operands()[1], f.arg(1));
}

TEST(ParserNames, RedefinitionOfANumberedNameIsAnError) {
  const char* text = R"mlir(func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %5 = stablehlo.negate %arg0 : tensor<2xf32>
  %5 = stablehlo.negate %5 : tensor<2xf32>
  return %5 : tensor<2xf32>
}
)mlir";
  try {
    parse_module(text);
    FAIL() << "no error";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line(), 3u);
    EXPECT_NE(std::string(e.what()).find("redefinition of %5"), std::string::npos) << e.what();
  }
}

// Sibling regions reuse block-argument names (as MLIR's printer does); a region's names are not
// visible after it.
TEST(ParserNames, RegionNamesAreScopedAndReusableInSiblingRegions) {
  const char* ok = R"mlir(func.func @main(%arg0: tensor<4xf32>) -> (tensor<f32>, tensor<f32>) {
  %cst = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%arg0 init: %cst) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
   reducer(%arg1: tensor<f32>, %arg2: tensor<f32>)  {
    %9 = stablehlo.add %arg1, %arg2 : tensor<f32>
    stablehlo.return %9 : tensor<f32>
  }
  %1 = stablehlo.reduce(%arg0 init: %cst) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
   reducer(%arg1: tensor<f32>, %arg2: tensor<f32>)  {
    %9 = stablehlo.maximum %arg1, %arg2 : tensor<f32>
    stablehlo.return %9 : tensor<f32>
  }
  return %0, %1 : tensor<f32>, tensor<f32>
}
)mlir";
  Module m = parse_module(ok);
  const auto& ops = m.funcs().at(0)->body().ops();
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_EQ(ops[2]->regions().at(0)->ops().at(0)->name(), "stablehlo.maximum");

  std::string leak = ok;
  leak.replace(leak.find("return %0, %1"), 13, "return %0, %9");
  try {
    parse_module(leak);
    FAIL() << "no error";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line(), 13u);
    EXPECT_NE(std::string(e.what()).find("a value defined before this use"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace hhlo
