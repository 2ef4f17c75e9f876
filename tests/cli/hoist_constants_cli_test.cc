// `--hoist-constants BYTES` (issue 43 item 6): `hhlo run`, `bench` and `tune` with the large
// constants of @main kept out of the executable and bound to it; the values are the program's
// (hand-derived), from a cold load and from the compile cache's records.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cli_util.h"
#include "hhlo/core/array.h"

namespace hhlo::test {
namespace {

using ::testing::HasSubstr;

// x * w + 1 with w = [1, 2, ..., 64] (256 bytes) and a 4-byte scalar.
std::string weights_program() {
  std::string w;
  for (int i = 1; i <= 64; ++i) w += (i > 1 ? ", " : "") + std::to_string(i) + ".0";
  return "func.func public @main(%x: tensor<64xf32>) -> tensor<64xf32> {\n"
         "  %w = stablehlo.constant dense<[" +
         w +
         "]> : tensor<64xf32>\n"
         "  %one = stablehlo.constant dense<1.0> : tensor<f32>\n"
         "  %b = stablehlo.broadcast_in_dim %one, dims = [] : (tensor<f32>) -> tensor<64xf32>\n"
         "  %0 = stablehlo.multiply %x, %w : tensor<64xf32>\n"
         "  %1 = stablehlo.add %0, %b : tensor<64xf32>\n"
         "  return %1 : tensor<64xf32>\n"
         "}\n";
}

/// x = [0.5, 0.5, ...]: 0.5 i + 1 for i = 1..64 (exact in f32).
std::vector<float> expected() {
  std::vector<float> out;
  for (int i = 1; i <= 64; ++i) out.push_back(0.5f * static_cast<float>(i) + 1);
  return out;
}

/// The number of records in `dir` whose text is not JSON (the hoisted constants' records).
int constants_records(const std::string& dir) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".hrec") continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::string data((std::istreambuf_iterator<char>(in)), {});
    std::size_t eol = data.find('\n');
    if (eol != std::string::npos && eol + 1 < data.size() && data[eol + 1] != '{') ++n;
  }
  return n;
}

TEST(HoistConstantsCli, RunAndBenchGiveTheProgramsValues) {
  std::string dir = temp_dir("hoist_cli");
  std::vector<std::string> env = {"HHLO_COMPILE_CACHE=" + dir + "/cache"};
  write_text(dir + "/p.mlir", weights_program());
  Array x(DType::f32, {64});
  for (int i = 0; i < 64; ++i) static_cast<float*>(x.data())[i] = 0.5f;
  write_npy(dir + "/x.npy", x);
  for (const char* round : {"cold", "warm"}) {
    SCOPED_TRACE(round);
    std::string out = dir + "/" + round;
    ProcessResult r = run_hhlo(
        {"run", dir + "/p.mlir", "-i", dir + "/x.npy", "-o", out, "--hoist-constants", "256"},
        {.env = env});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(read_npy(out + "/out0.npy").to_vector<float>(), expected());
    EXPECT_EQ(constants_records(dir + "/cache"), 1);
  }
  ProcessResult r = run_hhlo(
      {"bench", dir + "/p.mlir", "-i", dir + "/x.npy", "-n", "3", "--hoist-constants", "256"},
      {.env = env});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Without the flag: the same values, and no record of constants for that load.
  r = run_hhlo({"run", dir + "/p.mlir", "-i", dir + "/x.npy", "-o", dir + "/plain"}, {.env = env});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_npy(dir + "/plain/out0.npy").to_vector<float>(), expected());
  EXPECT_EQ(constants_records(dir + "/cache"), 1);
  r = run_hhlo({"run", dir + "/p.mlir", "--hoist-constants", "-5"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("--hoist-constants"));
  // Past int64, fractions, inf and words are refused alike, naming the value.
  for (const char* v : {"9223372036854775808", "99999999999999999999", "1e30", "inf", "abc"}) {
    r = run_hhlo({"run", dir + "/p.mlir", "--hoist-constants", v});
    EXPECT_EQ(r.exit_code, 1) << v << ": " << r.output;
    EXPECT_THAT(r.output, HasSubstr(std::string("'") + v + "' is not a byte count"));
  }
  // The largest count is taken: no constant is that large, so nothing is hoisted.
  r = run_hhlo(
      {"run", dir + "/p.mlir", "-i", dir + "/x.npy", "--hoist-constants", "9223372036854775807"},
      {.env = env});
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// The tuner's candidates (oneDNN and unrolling rewrites of the prepared program) keep the bound
// weights: none of them gives other outputs.
TEST(HoistConstantsCli, TuneMeasuresTheProgramWithItsWeightsBound) {
  std::string dir = temp_dir("hoist_tune");
  std::vector<std::string> env = {"HHLO_COMPILE_CACHE=" + dir + "/cache"};
  write_text(dir + "/p.mlir", weights_program());
  Array x(DType::f32, {64});
  for (int i = 0; i < 64; ++i) static_cast<float*>(x.data())[i] = 0.5f;
  write_npy(dir + "/x.npy", x);
  ProcessResult r = run_hhlo(
      {"tune", dir + "/p.mlir", "-i", dir + "/x.npy", "--budget", "4", "--hoist-constants", "256"},
      {.env = env});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("outputs differ")));
  r = run_hhlo({"run", dir + "/p.mlir", "-i", dir + "/x.npy", "-o", dir + "/tuned",
                "--hoist-constants", "256"},
               {.env = env});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_npy(dir + "/tuned/out0.npy").to_vector<float>(), expected());
}

}  // namespace
}  // namespace hhlo::test
