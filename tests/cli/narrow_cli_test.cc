// `hhlo run` on the narrow element types (issue 44): inputs as np.save writes ml_dtypes arrays
// (descr '<V1') or as plain bytes ('|u1'), outputs written as np.save writes them, previews as
// numbers, and f6 refused before the plugin (tests/core/gen_narrow_dtypes.py makes the files).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "cli_util.h"

namespace hhlo::test {
namespace {

using ::testing::HasSubstr;

std::string generated(const std::string& name) {
  return std::string(HHLO_GENERATED_DIR) + "/narrow/" + name;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

constexpr char kProgram[] =
    R"(func.func @main(%q: tensor<4xi4>, %x: tensor<4xf8E4M3FN>) -> (tensor<4xi4>, tensor<4xf8E4M3FN>, tensor<4xf32>) {
  %0 = stablehlo.add %q, %q : tensor<4xi4>
  %1 = stablehlo.add %x, %x : tensor<4xf8E4M3FN>
  %2 = stablehlo.convert %x : (tensor<4xf8E4M3FN>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xi4>, tensor<4xf8E4M3FN>, tensor<4xf32>
})";

TEST(NarrowCli, MlDtypesNpyInAndOutAsNpSaveWritesThem) {
  std::string dir = temp_dir("narrow_cli");
  write_text(dir + "/p.mlir", kProgram);
  ProcessResult r = run_hhlo({"run", dir + "/p.mlir", "-i", generated("cli_q_i4.npy"), "-i",
                              generated("cli_x_f8e4m3fn.npy"), "-o", dir + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(file_bytes(dir + "/out/out0.npy"), file_bytes(generated("cli_want_qq.npy")));
  EXPECT_EQ(file_bytes(dir + "/out/out1.npy"), file_bytes(generated("cli_want_xx.npy")));
  EXPECT_EQ(file_bytes(dir + "/out/out2.npy"), file_bytes(generated("cli_want_xf32.npy")));
}

TEST(NarrowCli, BytesOfDescrU1AreTheElementsBitsAndThePreviewShowsNumbers) {
  std::string dir = temp_dir("narrow_cli_u1");
  write_text(dir + "/p.mlir", kProgram);
  ProcessResult r = run_hhlo({"run", dir + "/p.mlir", "-i", generated("cli_q_u1.npy"), "-i",
                              generated("cli_x_f8e4m3fn.npy")});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // int4: -8 + -8 and 7 + 7 wrap (ml_dtypes: [0, -2, 0, -2]); float8_e4m3fn: 2x exactly.
  EXPECT_THAT(r.output, HasSubstr("tensor<4xi4> [0, -2, 0, -2]"));
  EXPECT_THAT(r.output, HasSubstr("tensor<4xf8E4M3FN> [3, -4, 0.203125, 6]"));
}

TEST(NarrowCli, AByteWiderThanTheTypeIsRefusedNamingIt) {
  std::string dir = temp_dir("narrow_cli_wide");
  write_text(dir + "/p.mlir", kProgram);
  // A u1 file whose second byte, 0x1F, has a bit above i4's four.
  std::string npy = std::string("\x93NUMPY\x01\x00", 8);
  std::string header = "{'descr': '|u1', 'fortran_order': False, 'shape': (4,), }\n";
  write_text(dir + "/q.npy", npy + char(header.size()) + '\0' + header + "\x01\x1F\x02\x03");
  ProcessResult r = run_hhlo(
      {"run", dir + "/p.mlir", "-i", dir + "/q.npy", "-i", generated("cli_x_f8e4m3fn.npy")});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("byte 0x1F at element 1, which is no i4"));
}

TEST(NarrowCli, F6ProgramsAreRefusedBeforeThePlugin) {
  std::string dir = temp_dir("narrow_cli_f6");
  write_text(dir + "/p.mlir", R"(func.func @main(%x: tensor<4xf32>) -> tensor<4xf6E3M2FN> {
  %0 = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xf6E3M2FN>
  return %0 : tensor<4xf6E3M2FN>
})");
  ProcessResult r = run_hhlo({"run", dir + "/p.mlir", "-i", generated("cli_want_xf32.npy")});
  EXPECT_EQ(r.signal, 0) << r.output;
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("f6E3M2FN"));
}

}  // namespace
}  // namespace hhlo::test
