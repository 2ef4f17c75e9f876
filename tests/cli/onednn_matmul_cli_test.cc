// `--onednn-dot-general` (issue 26): the dot_generals oneDNN's matmul serves run as its kernel
// (kernels/onednn, `hhlo_onednn_matmul`) and give XLA's own values (the same program without the
// flag, XLA's dot: an independent implementation) within f32 summation-order error, over
// transposed operands (read through strides, not copied), batch dimensions anywhere, merged free
// and contracting dimensions, outer products and matrix-vector products, inside loops too; those
// it cannot describe are kept and counted with the reason.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cli_util.h"
#include "hhlo/core/array.h"
#include "onednn_util.h"

namespace hhlo::test {
namespace {

using ::testing::HasSubstr;

/// One dot_general: operand and result dims, its dimension numbers, and the contraction length.
struct Dot {
  const char* name;
  Dims lhs, rhs;
  const char* numbers;  // the fields of #stablehlo.dot<...>
  Dims result;
  int64_t k;
};

const Dot kDots[] = {
    {"matmul",
     {8, 16},
     {16, 12},
     "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]",
     {8, 12},
     16},
    {"lhs_transposed",
     {16, 8},
     {16, 12},
     "lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]",
     {8, 12},
     16},
    {"rhs_transposed",
     {8, 16},
     {12, 16},
     "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]",
     {8, 12},
     16},
    // JAX's attention scores: batch dimensions in the middle of both operands.
    {"attention",
     {2, 5, 3, 4},
     {2, 3, 5, 6},
     "lhs_batching_dimensions = [0, 2], rhs_batching_dimensions = [0, 1], "
     "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [2]",
     {2, 3, 4, 6},
     5},
    {"two_contracting",
     {4, 3, 5},
     {3, 5, 7},
     "lhs_contracting_dimensions = [1, 2], rhs_contracting_dimensions = [0, 1]",
     {4, 7},
     15},
    {"two_free",
     {2, 3, 8},
     {8, 5},
     "lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]",
     {2, 3, 5},
     8},
    {"outer", {4}, {5}, "", {4, 5}, 1},
    {"matrix_vector",
     {6, 8},
     {8},
     "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]",
     {6},
     8},
    {"unit_batch",
     {1, 8, 16},
     {16, 4},
     "lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]",
     {1, 8, 4},
     16},
    // Big enough to be cut into parts on two threads (kernels/onednn/matmul.cc): along N in two
    // equal parts, along N unevenly (64 + 36 columns), along N of transposed weights, along M
    // (N too narrow), and along the batch (M and N too small).
    {"split_n",
     {64, 128},
     {128, 64},
     "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]",
     {64, 64},
     128},
    {"split_n_uneven",
     {64, 128},
     {128, 100},
     "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]",
     {64, 100},
     128},
    {"split_n_rhs_transposed",
     {64, 128},
     {96, 128},
     "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]",
     {64, 96},
     128},
    {"split_m",
     {256, 256},
     {256, 10},
     "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]",
     {256, 10},
     256},
    {"split_batch",
     {64, 1, 1024},
     {64, 1024, 16},
     "lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], "
     "lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]",
     {64, 1, 16},
     1024},
    // Contracting dimensions 0 and 2 of the lhs do not lie as one: kept, XLA's dot.
    {"kept",
     {3, 4, 5},
     {3, 5, 6},
     "lhs_contracting_dimensions = [0, 2], rhs_contracting_dimensions = [0, 1]",
     {4, 6},
     15},
};

/// One program computing every dot of kDots, each on its own two arguments.
std::string dots_program() {
  std::string args, results, body, ret, ret_types;
  for (size_t i = 0; i < std::size(kDots); ++i) {
    const Dot& d = kDots[i];
    std::string l = tensor_text(d.lhs), r = tensor_text(d.rhs), y = tensor_text(d.result);
    std::string n = std::to_string(i), sep = i == 0 ? "" : ", ";
    args += sep + "%a" + n + ": " + l + ", %b" + n + ": " + r;
    results += sep + y;
    body += "  %r" + n + " = \"stablehlo.dot_general\"(%a" + n + ", %b" + n +
            ") {dot_dimension_numbers = #stablehlo.dot<" + d.numbers + ">} : (" + l + ", " + r +
            ") -> " + y + "\n";
    ret += sep + "%r" + n;
    ret_types += sep + y;
  }
  return "func.func public @main(" + args + ") -> (" + results + ") {\n" + body + "  return " +
         ret + " : " + ret_types + "\n}\n";
}

/// `hhlo run` of DIR/p.mlir on DIR/in<i>.npy (count inputs) with `flags`; its outputs.
std::vector<Array> run_program(const std::string& dir, size_t inputs, const std::string& out,
                               const std::vector<std::string>& flags) {
  std::vector<std::string> args = {"run", dir + "/p.mlir", "-o", dir + "/" + out};
  for (size_t i = 0; i < inputs; ++i) {
    args.push_back("-i");
    args.push_back(dir + "/in" + std::to_string(i) + ".npy");
  }
  args.insert(args.end(), flags.begin(), flags.end());
  ProcessResult r = run_hhlo(args, {.env = {"HHLO_COMPILE_CACHE=" + dir + "/cache"}});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::vector<Array> outs;
  for (size_t i = 0; r.exit_code == 0; ++i) {
    std::string path = dir + "/" + out + "/out" + std::to_string(i) + ".npy";
    if (!std::filesystem::exists(path)) break;
    outs.push_back(read_npy(path));
  }
  return outs;
}

TEST(OneDnnMatmul, GivesXlasValuesOverLayoutsBatchesAndMergedDimensions) {
  std::string dir = temp_dir("onednn_matmul");
  write_text(dir + "/p.mlir", dots_program());
  for (size_t i = 0; i < std::size(kDots); ++i) {
    write_npy(dir + "/in" + std::to_string(2 * i) + ".npy",
              uniform_values(kDots[i].lhs, 2 * i + 1));
    write_npy(dir + "/in" + std::to_string(2 * i + 1) + ".npy",
              uniform_values(kDots[i].rhs, 2 * i + 2));
  }
  size_t inputs = 2 * std::size(kDots);
  std::vector<Array> xla = run_program(dir, inputs, "xla", {});
  ASSERT_EQ(xla.size(), std::size(kDots));
  // oneDNN's default threads (every core), the calling thread alone, and two threads.
  for (const char* threads : {"0", "1", "2"}) {
    SCOPED_TRACE(std::string("--onednn-threads ") + threads);
    std::vector<Array> onednn =
        run_program(dir, inputs, std::string("onednn") + threads,
                    {"--onednn-dot-general", "--onednn-threads", threads, "--repeat", "3"});
    ASSERT_EQ(onednn.size(), xla.size());
    for (size_t i = 0; i < xla.size(); ++i) {
      SCOPED_TRACE(kDots[i].name);
      ASSERT_EQ(onednn[i].type(), xla[i].type());
      auto [worst, scale] = f32_difference(xla[i], onednn[i]);
      EXPECT_GT(scale, 0.2);                                     // not all zeros
      EXPECT_LE(worst, 2e-6 * static_cast<double>(kDots[i].k));  // f32 sums of k products
    }
  }
  ProcessResult r = run_hhlo({"bench", dir + "/p.mlir", "-n", "2", "--onednn-dot-general"},
                             {.env = {"HHLO_COMPILE_CACHE=" + dir + "/cache"}});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(
      r.output,
      HasSubstr("oneDNN dot_generals: 14 rewritten, 1 kept (the first: dot_general: free or "
                "contracting dimensions that do not lie as one)"));
}

// Aᵀ B of A = [[1, 2], [3, 4]], B = [[5, 6], [7, 8]] (the lhs read transposed where it lies):
// [[1*5 + 3*7, 1*6 + 3*8], [2*5 + 4*7, 2*6 + 4*8]], exact in f32.
TEST(OneDnnMatmul, ATransposedProductByHand) {
  std::string dir = temp_dir("onednn_matmul_hand");
  write_text(dir + "/p.mlir",
             "func.func public @main(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> "
             "tensor<2x2xf32> {\n  %0 = stablehlo.dot_general %a, %b, contracting_dims = [0] x "
             "[0] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>\n  return %0 : "
             "tensor<2x2xf32>\n}\n");
  Array a(DType::f32, {2, 2}), b(DType::f32, {2, 2});
  float av[] = {1, 2, 3, 4}, bv[] = {5, 6, 7, 8};
  std::copy(av, av + 4, static_cast<float*>(a.data()));
  std::copy(bv, bv + 4, static_cast<float*>(b.data()));
  write_npy(dir + "/in0.npy", a);
  write_npy(dir + "/in1.npy", b);
  std::vector<Array> out = run_program(dir, 2, "out", {"--onednn-dot-general"});
  ASSERT_EQ(out.size(), 1u);
  auto v = out[0].values<float>();
  EXPECT_EQ(std::vector<float>(v.begin(), v.end()), (std::vector<float>{26, 30, 38, 44}));
}

// A scan's body: the dot inside the while loop is rewritten too, and after unrolling (which
// comes first) each copy of it.
TEST(OneDnnMatmul, DotsInsideLoopsAreRewritten) {
  std::string dir = temp_dir("onednn_matmul_loop");
  write_text(
      dir + "/p.mlir",
      R"(func.func public @main(%h0: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:3 = stablehlo.while(%i = %c0, %h = %h0, %ww = %w) : tensor<i32>, tensor<4x8xf32>, tensor<8x8xf32>
  cond {
    %n = stablehlo.constant dense<3> : tensor<i32>
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %d = stablehlo.dot_general %h, %ww, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %t = stablehlo.tanh %d : tensor<4x8xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %t, %ww : tensor<i32>, tensor<4x8xf32>, tensor<8x8xf32>
  }
  return %r#1 : tensor<4x8xf32>
}
)");
  write_npy(dir + "/in0.npy", uniform_values({4, 8}, 11));
  write_npy(dir + "/in1.npy", uniform_values({8, 8}, 12));
  std::vector<Array> xla = run_program(dir, 2, "xla", {});
  for (std::vector<std::string> flags :
       {std::vector<std::string>{"--onednn-dot-general"},
        std::vector<std::string>{"--onednn-dot-general", "--unroll-loops", "3"}}) {
    SCOPED_TRACE(flags.size());
    std::vector<Array> onednn = run_program(dir, 2, "onednn" + std::to_string(flags.size()), flags);
    ASSERT_EQ(onednn.size(), 1u);
    auto [worst, scale] = f32_difference(xla[0], onednn[0]);
    EXPECT_GT(scale, 0.2);
    EXPECT_LE(worst, 1e-5);
    std::vector<std::string> args = {"bench", dir + "/p.mlir", "-n", "2"};
    args.insert(args.end(), flags.begin(), flags.end());
    ProcessResult r = run_hhlo(args, {.env = {"HHLO_COMPILE_CACHE=" + dir + "/cache"}});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_THAT(r.output, HasSubstr(flags.size() == 1 ? "oneDNN dot_generals: 1 rewritten"
                                                      : "oneDNN dot_generals: 3 rewritten"));
  }
}

// The kernel checks what the program says of the product before describing it to oneDNN: a
// hand-written call whose strides reach past an operand's buffer, or whose dimensions do not
// chain, is an execution error naming the target, never a read out of bounds.
TEST(OneDnnMatmul, AMalformedCallIsAnErrorNamingTheKernel) {
  std::string dir = temp_dir("onednn_matmul_malformed");
  auto program = [](const char* src_strides, const char* weights_dims) {
    return std::string(
               "func.func public @main(%a: tensor<4x4xf32>, %b: tensor<4x2xf32>) -> "
               "tensor<4x2xf32> {\n  %0 = stablehlo.custom_call @hhlo_onednn_matmul(%a, %b) "
               "{api_version = 4 : i32, backend_config = {src_dims = array<i64: 4, 4>, "
               "src_strides = array<i64: ") +
           src_strides + ">, weights_dims = array<i64: " + weights_dims +
           ">, weights_strides = array<i64: 2, 1>, dst_dims = array<i64: 4, 2>, threads = 0 : "
           "i64}} : (tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>\n  return %0 : "
           "tensor<4x2xf32>\n}\n";
  };
  write_npy(dir + "/in0.npy", uniform_values({4, 4}, 3));
  write_npy(dir + "/in1.npy", uniform_values({4, 2}, 4));
  auto run = [&](const std::string& text) {
    write_text(dir + "/p.mlir", text);
    return run_hhlo({"run", dir + "/p.mlir", "-i", dir + "/in0.npy", "-i", dir + "/in1.npy",
                     "--onednn-dot-general"},
                    {.env = {"HHLO_COMPILE_CACHE=" + dir + "/cache"}});
  };
  ProcessResult r = run(program("8, 1", "4, 2"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("hhlo_onednn_matmul: an operand's dimensions and strides reach "
                                  "past its buffer"));
  r = run(program("4, 1", "3, 2"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("hhlo_onednn_matmul: the dimensions are not [..., M, K] x "
                                  "[..., K, N] -> [..., M, N]"));
  // Strides whose offsets overflow int64 do not wrap around into the buffer.
  r = run(program("4, 4611686018427387904", "4, 2"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("reach past its buffer"));
  r = run(program("4, 1", "4, 2"));  // well-formed: runs
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// `hhlo tune` tries oneDNN last: a program with a convolution and a dot_general gets the
// convolutions, the dot_generals and both, on one thread and on oneDNN's default threads, each
// under both execution modes, measured over the choice without oneDNN and agreeing with the
// defaults' values (else it would be reported as differing and never chosen).
TEST(OneDnnMatmul, TuneTriesEachKindOfOneDnnRewriteOnOneThreadAndOnItsDefault) {
  std::string dir = temp_dir("onednn_tune");
  write_text(
      dir + "/p.mlir",
      R"(func.func public @main(%x: tensor<2x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %m: tensor<4x5xf32>) -> tensor<2x6x6x5xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<2x6x6x4xf32>
  %1 = stablehlo.dot_general %0, %m, contracting_dims = [3] x [0] : (tensor<2x6x6x4xf32>, tensor<4x5xf32>) -> tensor<2x6x6x5xf32>
  return %1 : tensor<2x6x6x5xf32>
}
)");
  write_npy(dir + "/x.npy", uniform_values({2, 8, 8, 3}, 7));
  write_npy(dir + "/w.npy", uniform_values({3, 3, 3, 4}, 8));
  write_npy(dir + "/m.npy", uniform_values({4, 5}, 9));
  ProcessResult r = run_hhlo({"tune", dir + "/p.mlir", "-i", dir + "/x.npy", "-i", dir + "/w.npy",
                              "-i", dir + "/m.npy", "--budget", "30"},
                             {.env = {"HHLO_COMPILE_CACHE=" + dir + "/cache"}});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::vector<std::string> expected;
  for (std::string threads : {" (1 thread)", ""})
    for (std::string ops :
         {"oneDNN convolutions", "oneDNN dot_generals", "oneDNN convolutions and dot_generals"})
      expected.insert(expected.end(), 2, ops + threads);  // under each execution mode
  std::istringstream in(r.output);
  std::vector<std::string> tried;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("confirmation in rotation", 0) == 0) break;  // the medians' table, the choice
    size_t at = line.find("oneDNN ");
    if (at == std::string::npos || line.rfind("chosen", 0) == 0 ||
        line.find("confirmation") != std::string::npos)
      continue;
    EXPECT_THAT(line, HasSubstr("median")) << r.output;  // measured: usable, not refused
    std::string what = line.substr(at, line.find(" median", at) - at);
    tried.push_back(what.substr(0, what.find_last_not_of(' ') + 1));
  }
  EXPECT_EQ(tried, expected) << r.output;
}

}  // namespace
}  // namespace hhlo::test
