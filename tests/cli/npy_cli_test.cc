// `hhlo run` on .npy inputs as NumPy writes them (issue 8, section 6): values reach the program
// as NumPy reads them, and bad files or overflowing types are clean errors naming the cause.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_util.h"
#include "hhlo/core/array.h"

namespace hhlo::test {
namespace {

using ::testing::HasSubstr;

std::string npy_bytes(const std::string& dict, const std::string& data) {
  std::string header = dict + "\n";
  return std::string("\x93NUMPY\x01\x00", 8) + char(header.size()) + '\0' + header + data;
}

TEST(CliNpy, BoolBytesOtherThanZeroOrOneReachTheProgramAsTrue) {
  // 01 00 02 01: convert gave 2 and select took 2 as false before.
  std::string dir = temp_dir("npy_bool");
  write_text(dir + "/p.npy", npy_bytes("{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }",
                                       std::string("\x01\x00\x02\x01", 4)));
  write_text(dir + "/p.mlir",
             R"(func.func @main(%p: tensor<4xi1>) -> (tensor<4xi32>, tensor<4xf32>) {
  %c = stablehlo.convert %p : (tensor<4xi1>) -> tensor<4xi32>
  %one = stablehlo.constant dense<1.0> : tensor<4xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<4xf32>
  %s = stablehlo.select %p, %one, %zero : tensor<4xi1>, tensor<4xf32>
  return %c, %s : tensor<4xi32>, tensor<4xf32>
})");
  ProcessResult r = run_hhlo({"run", dir + "/p.mlir", "-i", dir + "/p.npy", "-o", dir + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_npy(dir + "/out/out0.npy").to_vector<int32_t>(),
            (std::vector<int32_t>{1, 0, 1, 1}));
  EXPECT_EQ(read_npy(dir + "/out/out1.npy").to_vector<float>(), (std::vector<float>{1, 0, 1, 1}));
}

TEST(CliNpy, BigEndianInputIsReadAsItsValues) {
  // be_f4.npy (tests/core/gen_npy_files.py): (arange(6) * 1.5).reshape(2, 3) as '>f4'; x + x.
  std::string dir = temp_dir("npy_be");
  write_text(dir + "/p.mlir", R"(func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = stablehlo.add %x, %x : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
})");
  ProcessResult r = run_hhlo({"run", dir + "/p.mlir", "-i",
                              std::string(HHLO_GENERATED_DIR) + "/be_f4.npy", "-o", dir + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_npy(dir + "/out/out0.npy").to_vector<float>(),
            (std::vector<float>{0, 3, 6, 9, 12, 15}));
}

TEST(CliNpy, OverflowingShapeIsACleanErrorNamingTheFile) {
  std::string dir = temp_dir("npy_overflow");
  std::string npy = dir + "/big.npy";
  write_text(npy, npy_bytes("{'descr': '<f4', 'fortran_order': False, "
                            "'shape': (4611686018427387904, 4), }",
                            std::string(8, '\0')));
  write_text(dir + "/p.mlir", R"(func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
})");
  ProcessResult r = run_hhlo({"run", dir + "/p.mlir", "-i", npy});
  EXPECT_EQ(r.signal, 0) << r.output;
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("hhlo: error: "));
  EXPECT_THAT(r.output, HasSubstr(npy));
  EXPECT_THAT(r.output, HasSubstr("more elements than a 64-bit count holds"));
}

TEST(CliNpy, ProgramWithAnOverflowingTypeIsOurParseErrorNotAnInternalError) {
  std::string dir = temp_dir("mlir_overflow");
  write_text(dir + "/p.mlir", R"(func.func @main() -> tensor<4611686018427387904x4xf32> {
  %c = stablehlo.constant dense<1.0> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<4611686018427387904x4xf32>
  return %b : tensor<4611686018427387904x4xf32>
})");
  ProcessResult r = run_hhlo({"run", dir + "/p.mlir"});
  EXPECT_EQ(r.signal, 0) << r.output;
  EXPECT_EQ(r.exit_code, 1) << r.output;
  // Refused by our parser (the plugin threw a C++ exception through the C API on it).
  EXPECT_THAT(r.output, HasSubstr(dir + "/p.mlir:1:29: expected a dimension size, found an "
                                        "out-of-range number"));
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("internal error")));
}

TEST(CliNpy, OutputPathEndingInNpyIsTheOneOutputsFile) {
  // -o out.npy made a folder out.npy/ holding out0.npy (issue 44); np.save writes a file.
  std::string dir = temp_dir("npy_out_file");
  write_text(dir + "/p.mlir", R"(func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r = stablehlo.multiply %x, %x : tensor<2x2xf32>
  return %r : tensor<2x2xf32>
})");
  write_npy(dir + "/x.npy", Array::from<float>({2, 2}, {1.5f, -2, 3, 0.5f}));
  ProcessResult r =
      run_hhlo({"run", dir + "/p.mlir", "-i", dir + "/x.npy", "-o", dir + "/out.npy"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("wrote 1 output(s) to " + dir + "/out.npy"));
  ASSERT_TRUE(std::filesystem::is_regular_file(dir + "/out.npy")) << r.output;
  Array out = read_npy(dir + "/out.npy");
  EXPECT_EQ(out.type().to_string(), "tensor<2x2xf32>");
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{2.25f, 4, 9, 0.25f}));
}

TEST(CliNpy, OutputPathEndingInNpyForTwoOutputsIsRefusedBeforeWriting) {
  std::string dir = temp_dir("npy_out_two");
  write_text(dir + "/p.mlir",
             R"(func.func @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %r = stablehlo.add %x, %x : tensor<2xf32>
  return %r, %x : tensor<2xf32>, tensor<2xf32>
})");
  write_npy(dir + "/x.npy", Array::from<float>({2}, {1, 2}));
  ProcessResult r =
      run_hhlo({"run", dir + "/p.mlir", "-i", dir + "/x.npy", "-o", dir + "/out.npy"});
  EXPECT_EQ(r.signal, 0) << r.output;
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("hhlo: error: -o " + dir +
                                  "/out.npy: a .npy file holds one array and the program has 2 "
                                  "outputs: give a folder or a path ending in .npz\n"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/out.npy"));
  EXPECT_THAT(r.output, testing::Not(HasSubstr("out0:")));
}

}  // namespace
}  // namespace hhlo::test
