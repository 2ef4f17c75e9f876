// `--onednn-convolution` (issue 26 item 4): the convolutions oneDNN serves run as its kernel
// (kernels/onednn) and give XLA's own values (the same program without the flag, XLA's
// convolution: an independent implementation) within f32 summation-order error, over layouts,
// strides, padding, dilation, groups and 1-3 spatial dimensions; those it cannot run are kept
// and counted with the reason.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "cli_util.h"
#include "hhlo/core/array.h"
#include "hhlo/program/load.h"
#include "hhlo/program/tune.h"
#include "hhlo/runtime/client.h"
#include "onednn_util.h"

namespace hhlo::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Case {
  const char* name;
  /// The convolution's text after `(%x, %w) `, through its type.
  const char* conv;
  Dims x, w, y;
};

std::string program(const Case& c, const char* dtype = "f32") {
  std::string x = tensor_text(c.x, dtype), w = tensor_text(c.w, dtype), y = tensor_text(c.y, dtype);
  return "func.func public @main(%x: " + x + ", %w: " + w + ") -> " + y +
         " {\n  %0 = stablehlo.convolution(%x, %w) " + c.conv + " : (" + x + ", " + w + ") -> " +
         y + "\n  return %0 : " + y + "\n}\n";
}

/// The output of `hhlo run` on DIR/p.mlir with DIR/x.npy, DIR/w.npy, with `flags`.
Array run_conv(const std::string& dir, const std::string& out, std::vector<std::string> flags) {
  std::vector<std::string> args = {"run", dir + "/p.mlir", "-i", dir + "/x.npy",
                                   "-i",  dir + "/w.npy",  "-o", dir + "/" + out};
  args.insert(args.end(), flags.begin(), flags.end());
  ProcessResult r = run_hhlo(args, {.env = {"HHLO_COMPILE_CACHE=" + dir + "/cache"}});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return read_npy(dir + "/" + out + "/out0.npy");
}

const Case kCases[] = {
    {"nhwc_same",
     "dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = "
     "[[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count "
     "= 1 : i64}",
     {4, 8, 8, 3},
     {3, 3, 3, 16},
     {4, 8, 8, 16}},
    {"nchw_strided_dilated",
     "dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 1], pad = "
     "[[1, 2], [0, 1]], rhs_dilate = [1, 2]} {batch_group_count = 1 : i64, feature_group_count "
     "= 1 : i64}",
     {2, 4, 9, 10},
     {6, 4, 3, 2},
     {2, 6, 5, 9}},
    {"mixed_layouts",
     "dim_numbers = [b, f, 0, 1]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 2], pad = "
     "[[0, 0], [2, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
     {3, 5, 7, 6},
     {2, 3, 5, 4},
     {3, 6, 4, 4}},
    {"grouped_1d",
     "dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [1], pad = [[0, 0]]} "
     "{batch_group_count = 1 : i64, feature_group_count = 2 : i64}",
     {3, 4, 11},
     {6, 2, 3},
     {3, 6, 9}},
    {"conv_3d",
     "dim_numbers = [b, 0, 1, 2, f]x[0, 1, 2, i, o]->[b, 0, 1, 2, f], window = {stride = [1, 2, "
     "1], pad = [[0, 1], [0, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 "
     ": i64}",
     {2, 5, 6, 7, 3},
     {2, 3, 3, 3, 5},
     {2, 5, 3, 7, 5}},
};

TEST(OneDnnConvolution, GivesXlasValuesOverLayoutsWindowsAndGroups) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    std::string dir = temp_dir(std::string("onednn_") + c.name);
    write_text(dir + "/p.mlir", program(c));
    write_npy(dir + "/x.npy", uniform_values(c.x, 1));
    write_npy(dir + "/w.npy", uniform_values(c.w, 2));
    Array xla = run_conv(dir, "xla", {});
    // oneDNN's default threads (every core), the calling thread alone, and two threads.
    for (const char* threads : {"0", "1", "2"}) {
      SCOPED_TRACE(std::string("--onednn-threads ") + threads);
      Array onednn =
          run_conv(dir, std::string("onednn") + threads,
                   {"--onednn-convolution", "--onednn-threads", threads, "--repeat", "3"});
      ASSERT_EQ(onednn.type(), xla.type());
      auto [worst, scale] = f32_difference(xla, onednn);
      EXPECT_GT(scale, 0.5);               // not all zeros
      EXPECT_LE(worst, 1e-5 * scale * 8);  // f32, sums of at most 135 products
    }
    ProcessResult r = run_hhlo({"bench", dir + "/p.mlir", "-i", dir + "/x.npy", "-i",
                                dir + "/w.npy", "-n", "3", "--onednn-convolution"},
                               {.env = {"HHLO_COMPILE_CACHE=" + dir + "/cache"}});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_THAT(r.output, HasSubstr("oneDNN convolutions: 1 rewritten, 0 kept"));
  }
}

TEST(OneDnnConvolution, ConvolutionsItCannotRunAreKeptWithTheReason) {
  Case transposed = {"transposed",
                     "dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = "
                     "[1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [2, 2]} {batch_group_count = 1 "
                     ": i64, feature_group_count = 1 : i64}",
                     {1, 5, 5, 2},
                     {3, 3, 2, 4},
                     {1, 9, 9, 4}};
  std::string dir = temp_dir("onednn_kept");
  write_text(dir + "/p.mlir", program(transposed));
  write_text(dir + "/p64.mlir", program(kCases[0], "f64"));
  ProcessResult r = run_hhlo({"bench", dir + "/p.mlir", "-n", "2", "--onednn-convolution"},
                             {.env = {"HHLO_COMPILE_CACHE=" + dir + "/cache"}});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("oneDNN convolutions: 0 rewritten, 1 kept (the first: convolution: lhs "
                        "dilation (a transposed convolution))"));
  r = run_hhlo({"bench", dir + "/p64.mlir", "-n", "2", "--onednn-convolution"},
               {.env = {"HHLO_COMPILE_CACHE=" + dir + "/cache"}});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("1 kept (the first: convolution: a f64 operand)"));
  // `hhlo run` prints the same line, also when its compile cache's record answers the second run
  // (the program not read: the counts and the reason are kept in the record).
  write_npy(dir + "/x.npy", uniform_values(transposed.x, 3));
  write_npy(dir + "/w.npy", uniform_values(transposed.w, 4));
  for (int pass = 0; pass < 2; ++pass) {
    SCOPED_TRACE(pass);
    r = run_hhlo({"run", dir + "/p.mlir", "-i", dir + "/x.npy", "-i", dir + "/w.npy",
                  "--onednn-convolution"},
                 {.env = {"HHLO_COMPILE_CACHE=" + dir + "/cache"}});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_THAT(r.output, HasSubstr("oneDNN convolutions: 0 rewritten, 1 kept (the first: "
                                    "convolution: lhs dilation (a transposed convolution))\n"));
  }
}

// A choice `hhlo tune` remembered with oneDNN convolutions (written here as tune writes it, for
// this machine's CPU client) is followed by `hhlo run` and `hhlo bench`, with XLA's values.
TEST(OneDnnConvolution, ARememberedChoiceOfOneDnnIsFollowedByRunAndBench) {
  const Case& c = kCases[1];
  std::string dir = temp_dir("onednn_tuned");
  write_text(dir + "/p.mlir", program(c));
  write_npy(dir + "/x.npy", uniform_values(c.x, 5));
  write_npy(dir + "/w.npy", uniform_values(c.w, 6));
  Array xla = run_conv(dir, "xla", {});
  LoadOptions options{
      .prepare = {.arg_types = std::vector<TensorType>{{DType::f32, c.x}, {DType::f32, c.w}}}};
  CompileCache cache({.dir = dir + "/cache"});
  TuneResult chosen;
  chosen.choice.onednn = {.convolution = true, .threads = 1};
  ASSERT_TRUE(remember_tuned(cache, tuned_key_for(program(c), options),
                             cache.plugin_identity(Plugin::for_platform("cpu")), chosen));
  ProcessResult r = run_hhlo(
      {"run", dir + "/p.mlir", "-i", dir + "/x.npy", "-i", dir + "/w.npy", "-o", dir + "/tuned"},
      {.env = {"HHLO_COMPILE_CACHE=" + dir + "/cache"}});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("tuned: execution async, oneDNN convolutions (1 thread)"));
  Array tuned = read_npy(dir + "/tuned/out0.npy");
  auto a = xla.values<float>(), b = tuned.values<float>();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-4) << i;
  r = run_hhlo({"bench", dir + "/p.mlir", "-i", dir + "/x.npy", "-i", dir + "/w.npy", "-n", "3"},
               {.env = {"HHLO_COMPILE_CACHE=" + dir + "/cache"}});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("oneDNN convolutions (1 thread): 1 rewritten, 0 kept"));
}

// The kernel checks what the program says of the convolution before describing it to oneDNN: a
// hand-written call with dimension numbers that do not order the operand's dimensions is an
// execution error naming the target, never a crash.
TEST(OneDnnConvolution, AMalformedCallIsAnErrorNamingTheKernel) {
  std::string dir = temp_dir("onednn_malformed");
  std::string text =
      "func.func public @main(%x: tensor<1x4x4x1xf32>, %w: tensor<3x3x1x2xf32>) -> "
      "tensor<1x4x4x2xf32> {\n"
      "  %0 = stablehlo.custom_call @hhlo_onednn_convolution(%x, %w) {api_version = 4 : "
      "i32, backend_config = {input_dims = array<i64: 0, 3, 1, 1>, kernel_dims = "
      "array<i64: 3, 2, 0, 1>, output_dims = array<i64: 0, 3, 1, 2>, window_strides = "
      "array<i64: 1, 1>, padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>, "
      "rhs_dilation = array<i64: 1, 1>, feature_group_count = 1 : i64, threads = 0 : "
      "i64}} : "
      "(tensor<1x4x4x1xf32>, tensor<3x3x1x2xf32>) -> tensor<1x4x4x2xf32>\n"
      "  return %0 : tensor<1x4x4x2xf32>\n}\n";
  write_text(dir + "/p.mlir", text);
  write_npy(dir + "/x.npy", uniform_values({1, 4, 4, 1}, 3));
  write_npy(dir + "/w.npy", uniform_values({3, 3, 1, 2}, 4));
  ProcessResult r = run_hhlo(
      {"run", dir + "/p.mlir", "-i", dir + "/x.npy", "-i", dir + "/w.npy", "--onednn-convolution"},
      {.env = {"HHLO_COMPILE_CACHE=" + dir + "/cache"}});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("hhlo_onednn_convolution: input_dims, kernel_dims and "
                                  "output_dims must each order every dimension once"));
  // A well-formed call with a negative thread count.
  text.replace(text.find("0, 3, 1, 1"), 10, "0, 3, 1, 2");
  text.replace(text.find("threads = 0"), 11, "threads = -1");
  write_text(dir + "/p.mlir", text);
  r = run_hhlo(
      {"run", dir + "/p.mlir", "-i", dir + "/x.npy", "-i", dir + "/w.npy", "--onednn-convolution"},
      {.env = {"HHLO_COMPILE_CACHE=" + dir + "/cache"}});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("hhlo_onednn_convolution: threads must be 0"));
}

/// The loss and the train and test accuracies (percent) of each epoch of `hhlo demo --model cnn
/// --epochs 2 --no-progress` with `flags`.
std::vector<std::array<double, 3>> cnn_demo(const std::vector<std::string>& flags) {
  std::vector<std::string> args = {"demo", "--model", "cnn", "--epochs", "2", "--no-progress"};
  args.insert(args.end(), flags.begin(), flags.end());
  ProcessResult r = run_hhlo(args);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::vector<std::array<double, 3>> epochs;
  std::istringstream in(r.output);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("epoch ", 0) != 0) continue;
    std::array<double, 3> e{};
    EXPECT_EQ(std::sscanf(line.c_str() + line.find("loss"), "loss %lf train acc %lf%% test acc %lf",
                          &e[0], &e[1], &e[2]),
              3)
        << line;
    epochs.push_back(e);
  }
  return epochs;
}

// The CNN demo's steps and evaluations with every convolution as oneDNN's kernel on the calling
// thread (a Session with OneDnnOps{.convolution = true}: forward and backward ones, 5 per step)
// train as with XLA's: oneDNN's sums differ from XLA's in the last bits only, so the epoch losses
// agree to 1e-4 and the accuracies to one image (1/360 of the test set, 1/1437 of the training
// set).
TEST(OneDnnConvolution, TheCnnDemoTrainsAsWithXlasConvolutions) {
  auto xla = cnn_demo({"--xla-convolutions"});
  auto onednn = cnn_demo({"--onednn-convolution", "--onednn-threads", "1"});
  ASSERT_EQ(xla.size(), 2u);
  ASSERT_EQ(onednn.size(), 2u);
  for (size_t e = 0; e < 2; ++e) {
    SCOPED_TRACE(e);
    EXPECT_NEAR(onednn[e][0], xla[e][0], 1e-4 * (1 + xla[e][0]));
    EXPECT_NEAR(onednn[e][1], xla[e][1], 100.0 / 1437 + 1e-9);
    EXPECT_NEAR(onednn[e][2], xla[e][2], 100.0 / 360 + 1e-9);
  }
  EXPECT_GT(onednn[1][2], 90.0);  // it learned
}

// On one device the CNN demo runs oneDNN's convolutions on the calling thread unless told
// --xla-convolutions (measured faster: docs/benchmarks.md, "Training step"); the MLP, several
// devices and an explicit --onednn-* choice are left as given.
TEST(OneDnnConvolution, TheCnnDemoDefaultsToOneDnnsConvolutionsOnOneDevice) {
  const std::string line = "oneDNN's kernels for the convolutions (1 thread)";
  auto demo = [](std::vector<std::string> flags) {
    std::vector<std::string> args = {"demo", "--epochs", "1", "--no-progress"};
    args.insert(args.end(), flags.begin(), flags.end());
    return run_hhlo(args);
  };
  ProcessResult r = demo({"--model", "cnn"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr(line));
  for (std::vector<std::string> flags :
       {std::vector<std::string>{"--model", "cnn", "--xla-convolutions"},
        std::vector<std::string>{"--model", "cnn", "--devices", "2"},
        std::vector<std::string>{"--model", "mlp"}}) {
    r = demo(flags);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_THAT(r.output, Not(HasSubstr("oneDNN's kernels"))) << flags.back();
  }
  r = demo({"--model", "cnn", "--onednn-dot-general", "--onednn-threads", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("oneDNN's kernels for the dot_generals (1 thread)"));
  r = demo({"--model", "cnn", "--xla-convolutions", "--onednn-convolution"});
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--onednn-convolution excludes --xla-convolutions"));
}

TEST(OneDnnConvolution, ThreadsWithoutTheRewriteAreRefused) {
  ProcessResult r = run_hhlo({"run", "p.mlir", "--onednn-threads", "1"});
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--onednn-threads requires --onednn-convolution"));
}

}  // namespace
}  // namespace hhlo::test
