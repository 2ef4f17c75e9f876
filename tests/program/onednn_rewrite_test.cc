// rewrite_convolutions_for_onednn (hhlo/program/onednn_rewrite.h): which convolutions become the
// kernel's calls and what the copy keeps. The values are checked end to end in
// tests/cli/onednn_cli_test.cc against XLA's own convolution.
#include "hhlo/program/onednn_rewrite.h"

#include <gtest/gtest.h>

#include <string>

#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/ir/verifier.h"

namespace hhlo {
namespace {

// Two NHWC convolutions (the second behind a private call) and one in f64.
const char* kProgram = R"(module @m attributes {mhlo.num_partitions = 1 : i32} {
  func.func private @second(%h: tensor<1x6x6x4xf32>, %w: tensor<3x3x4x2xf32>) -> tensor<1x4x4x2xf32> {
    %0 = stablehlo.convolution(%h, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x6x6x4xf32>, tensor<3x3x4x2xf32>) -> tensor<1x4x4x2xf32>
    return %0 : tensor<1x4x4x2xf32>
  }
  func.func public @main(%x: tensor<1x8x8x3xf32> {jax.arg_info = "x"}, %w1: tensor<3x3x3x4xf32>, %w2: tensor<3x3x4x2xf32>, %d: tensor<1x8x8x3xf64>, %dw: tensor<3x3x3x4xf64>) -> (tensor<1x4x4x2xf32> {jax.result_info = "y"}, tensor<1x6x6x4xf64>) {
    %0 = stablehlo.convolution(%x, %w1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x6x6x4xf32>
    %1 = func.call @second(%0, %w2) : (tensor<1x6x6x4xf32>, tensor<3x3x4x2xf32>) -> tensor<1x4x4x2xf32>
    %2 = stablehlo.convolution(%d, %dw) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf64>, tensor<3x3x3x4xf64>) -> tensor<1x6x6x4xf64>
    return %1, %2 : tensor<1x4x4x2xf32>, tensor<1x6x6x4xf64>
  }
})";

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(OneDnnRewrite, RewritesTheF32ConvolutionsThroughCallsAndKeepsTheRest) {
  Module m = parse_module(kProgram);
  OneDnnRewrite r = rewrite_convolutions_for_onednn(m);
  EXPECT_EQ(r.rewritten, 2);
  EXPECT_EQ(r.kept, 1);
  EXPECT_EQ(r.first_kept_reason, "a f64 operand");
  verify(r.module);
  std::string text = to_mlir(r.module);
  EXPECT_EQ(count(text, "\"hhlo_onednn_convolution\""), 2) << text;
  EXPECT_EQ(count(text, "stablehlo.convolution"), 1) << text;
  EXPECT_EQ(count(text, "func.call"), 0) << text;
  // What the copy keeps: the module's name and attributes, the entry's argument and result
  // attributes; the NHWC / HWIO orders as the kernel reads them.
  EXPECT_NE(text.find("module @m attributes {mhlo.num_partitions = 1 : i32}"), std::string::npos)
      << text;
  EXPECT_NE(text.find("jax.arg_info = \"x\""), std::string::npos) << text;
  EXPECT_NE(text.find("jax.result_info = \"y\""), std::string::npos) << text;
  EXPECT_NE(text.find("input_dims = array<i64: 0, 3, 1, 2>"), std::string::npos) << text;
  EXPECT_NE(text.find("kernel_dims = array<i64: 3, 2, 0, 1>"), std::string::npos) << text;
  EXPECT_EQ(text.find("onednn_rewrite.cc"), std::string::npos) << text;  // the ops' own locations
  EXPECT_EQ(count(text, "threads = 0 : i64"), 2) << text;  // oneDNN's default thread count
}

TEST(OneDnnRewrite, EachCallCarriesTheThreadCountItRunsOn) {
  std::string text = to_mlir(rewrite_convolutions_for_onednn(parse_module(kProgram), 1).module);
  EXPECT_EQ(count(text, "threads = 1 : i64"), 2) << text;
  EXPECT_EQ(count(text, "threads = 0 : i64"), 0) << text;
  try {
    rewrite_convolutions_for_onednn(parse_module(kProgram), -1);
    FAIL() << "a negative thread count was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("threads is -1"), std::string::npos) << e.what();
  }
}

TEST(OneDnnRewrite, APartitionedModuleIsCopiedUnchanged) {
  std::string text = kProgram;
  text.replace(text.find("num_partitions = 1"), 18, "num_partitions = 2");
  OneDnnRewrite r = rewrite_convolutions_for_onednn(parse_module(text));
  EXPECT_EQ(r.rewritten, 0);
  EXPECT_EQ(r.kept, 3);
  EXPECT_EQ(r.first_kept_reason, "a partitioned module");
}

TEST(OneDnnRewrite, AModuleWithoutMainIsAnError) {
  Module m;
  m.add_func("f", {}).ret({});
  EXPECT_THROW(rewrite_convolutions_for_onednn(m), Error);
}

}  // namespace
}  // namespace hhlo
