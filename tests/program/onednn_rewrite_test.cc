// rewrite_for_onednn (hhlo/program/onednn_rewrite.h): which convolutions become the
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
  OneDnnRewrite r = rewrite_for_onednn(m, {.convolution = true});
  EXPECT_EQ(r.rewritten, 2);
  EXPECT_EQ(r.kept, 1);
  EXPECT_EQ(r.first_kept_reason, "convolution: a f64 operand");
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
  std::string text = to_mlir(
      rewrite_for_onednn(parse_module(kProgram), {.convolution = true, .threads = 1}).module);
  EXPECT_EQ(count(text, "threads = 1 : i64"), 2) << text;
  EXPECT_EQ(count(text, "threads = 0 : i64"), 0) << text;
  try {
    rewrite_for_onednn(parse_module(kProgram), {.convolution = true, .threads = -1});
    FAIL() << "a negative thread count was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("threads is -1"), std::string::npos) << e.what();
  }
}

TEST(OneDnnRewrite, APartitionedModuleIsCopiedUnchanged) {
  std::string text = kProgram;
  text.replace(text.find("num_partitions = 1"), 18, "num_partitions = 2");
  OneDnnRewrite r = rewrite_for_onednn(parse_module(text), {.convolution = true});
  EXPECT_EQ(r.rewritten, 0);
  EXPECT_EQ(r.kept, 3);
  EXPECT_EQ(r.first_kept_reason, "convolution: a partitioned module");
}

// JAX's attention scores (batch dimensions 0 and 2 of the lhs, 0 and 1 of the rhs) as the
// matmul reads them in place: src [2, 3, 4, 5] with the lhs's strides [60, 4, 1, 12] (M dense:
// the lhs transposed), weights [2, 3, 5, 6] with strides [90, 30, 6, 1]; a second dot inside a
// while loop's body is rewritten too; an f64 one and the convolution (not asked for) are kept.
const char* kDots = R"(module @d {
  func.func public @main(%q: tensor<2x5x3x4xf32>, %k: tensor<2x3x5x6xf32>, %h: tensor<4x8xf32>, %w: tensor<8x8xf32>, %d: tensor<3x3xf64>) -> (tensor<2x3x4x6xf32>, tensor<4x8xf32>, tensor<3x3xf64>) {
    %0 = stablehlo.dot_general %q, %k, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [2] : (tensor<2x5x3x4xf32>, tensor<2x3x5x6xf32>) -> tensor<2x3x4x6xf32>
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %c0, %x = %h) : tensor<i32>, tensor<4x8xf32>
    cond {
      %n = stablehlo.constant dense<3> : tensor<i32>
      %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %j = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %j, %y : tensor<i32>, tensor<4x8xf32>
    }
    %1 = stablehlo.dot_general %d, %d, contracting_dims = [1] x [0] : (tensor<3x3xf64>, tensor<3x3xf64>) -> tensor<3x3xf64>
    return %0, %r#1, %1 : tensor<2x3x4x6xf32>, tensor<4x8xf32>, tensor<3x3xf64>
  }
})";

TEST(OneDnnRewrite, DotGeneralsBecomeMatmulsReadingTheOperandsWhereTheyLie) {
  OneDnnRewrite r = rewrite_for_onednn(parse_module(kDots), {.dot_general = true, .threads = 1});
  EXPECT_EQ(r.rewritten, 2);
  EXPECT_EQ(r.kept, 1);
  EXPECT_EQ(r.first_kept_reason, "dot_general: a f64 operand");
  verify(r.module);
  std::string text = to_mlir(r.module);
  EXPECT_EQ(count(text, "\"hhlo_onednn_matmul\""), 2) << text;
  EXPECT_EQ(count(text, "stablehlo.dot_general"), 1) << text;
  // The dictionary as the printer sorts it.
  EXPECT_NE(text.find("{dst_dims = array<i64: 2, 3, 4, 6>, src_dims = array<i64: 2, 3, 4, 5>, "
                      "src_strides = array<i64: 60, 4, 1, 12>, threads = 1 : i64, weights_dims = "
                      "array<i64: 2, 3, 5, 6>, weights_strides = array<i64: 90, 30, 6, 1>}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("{dst_dims = array<i64: 4, 8>, src_dims = array<i64: 4, 8>, src_strides = "
                      "array<i64: 8, 1>, threads = 1 : i64, weights_dims = array<i64: 8, 8>, "
                      "weights_strides = array<i64: 8, 1>}"),
            std::string::npos)
      << text;
  // Convolutions were not asked for: a module of them is copied as it is.
  OneDnnRewrite none = rewrite_for_onednn(parse_module(kProgram), {.dot_general = true});
  EXPECT_EQ(none.rewritten, 0);
  EXPECT_EQ(none.kept, 0);
}

TEST(OneDnnRewrite, DescribesWhatItRewrites) {
  EXPECT_EQ((OneDnnOps{.convolution = true}).describe(), "convolutions");
  EXPECT_EQ((OneDnnOps{.dot_general = true, .threads = 2}).describe(), "dot_generals (2 threads)");
  EXPECT_EQ((OneDnnOps{.convolution = true, .dot_general = true, .threads = 1}).describe(),
            "convolutions and dot_generals (1 thread)");
  EXPECT_FALSE(OneDnnOps{}.any());
}

TEST(OneDnnRewrite, AModuleWithoutMainIsAnError) {
  Module m;
  m.add_func("f", {}).ret({});
  EXPECT_THROW(rewrite_for_onednn(m, {.convolution = true}), Error);
}

}  // namespace
}  // namespace hhlo
