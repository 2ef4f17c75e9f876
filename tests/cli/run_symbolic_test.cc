// `hhlo run` on a shape-polymorphic `jax.export` (tests/import/gen_symbolic.py, generated at
// build time with JAX's outputs): the program is refined to the .npy input shapes, so one file
// runs at two batch sizes; a size violating the export's constraint fails with JAX's message; the
// bytecode form is read into the same module and refined alike.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_util.h"
#include "hhlo/core/array.h"

namespace hhlo::test {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

const fs::path kDir = fs::path(HHLO_EXPORTS_DIR) / "symbolic";

std::string input(const std::string& name, const std::string& which, int i) {
  return (kDir / (name + "." + which + ".in" + std::to_string(i) + ".npy")).string();
}

TEST(RunSymbolic, MlpAtTwoBatchSizesMatchesJax) {
  for (int k : {0, 2}) {  // batch 1 and batch 17
    std::string out = temp_dir("run_symbolic_" + std::to_string(k));
    std::string s = "s" + std::to_string(k);
    ProcessResult r = run_hhlo({"run", (kDir / "poly_mlp.mlir").string(), "-i",
                                input("poly_mlp", s, 0), "-i", input("poly_mlp", s, 1), "-i",
                                input("poly_mlp", s, 2), "-i", input("poly_mlp", s, 3), "-o", out});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    Array got = read_npy(out + "/out0.npy");
    Array want = read_npy((kDir / ("poly_mlp." + s + ".out0.npy")).string());
    ASSERT_EQ(got.type(), want.type()) << r.output;
    for (int64_t i = 0; i < want.num_elements(); ++i)
      EXPECT_NEAR(got.element_as_double(i), want.element_as_double(i),
                  2e-5 * (1 + std::abs(want.element_as_double(i))));
  }
}

TEST(RunSymbolic, MultiPlatformExportWithExportPlatformsMatchesJax) {
  // Symbolic and multi-platform together (issue 21): the index is bound before refinement.
  const std::string name = "poly_multiplatform_solve";
  std::string out = temp_dir("run_symbolic_multiplatform");
  ProcessResult r =
      run_hhlo({"run", (kDir / (name + ".mlir")).string(), "-i", input(name, "s2", 0), "-i",
                input(name, "s2", 1), "--export-platforms", "cpu,cuda", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  Array got = read_npy(out + "/out0.npy");
  Array want = read_npy((kDir / (name + ".s2.out0.npy")).string());
  ASSERT_EQ(got.type(), want.type()) << r.output;
  for (int64_t i = 0; i < want.num_elements(); ++i)
    EXPECT_NEAR(got.element_as_double(i), want.element_as_double(i),
                2e-5 * (1 + std::abs(want.element_as_double(i))));
}

TEST(RunSymbolic, ConstraintViolationPrintsJaxMessage) {
  std::ifstream in(kDir / "poly_even.error.txt");
  std::stringstream jax;
  jax << in.rdbuf();
  ASSERT_THAT(jax.str(), HasSubstr("Division had remainder 1"));
  ProcessResult r =
      run_hhlo({"run", (kDir / "poly_even.mlir").string(), "-i", input("poly_even", "bad", 0)});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr(jax.str()));
  EXPECT_THAT(r.output, HasSubstr("tensor<7x3xf32>"));
}

TEST(RunSymbolic, BytecodeIsRefinedAsTheTextAndMatchesJax) {
  std::string out = temp_dir("run_symbolic_bytecode");
  ProcessResult r =
      run_hhlo({"run", (kDir / "poly_mlp.mlirbc").string(), "-i", input("poly_mlp", "s1", 0), "-i",
                input("poly_mlp", "s1", 1), "-i", input("poly_mlp", "s1", 2), "-i",
                input("poly_mlp", "s1", 3), "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  Array got = read_npy(out + "/out0.npy");
  Array want = read_npy((kDir / "poly_mlp.s1.out0.npy").string());
  ASSERT_EQ(got.type(), want.type()) << r.output;
  for (int64_t i = 0; i < want.num_elements(); ++i)
    EXPECT_NEAR(got.element_as_double(i), want.element_as_double(i),
                2e-5 * (1 + std::abs(want.element_as_double(i))));
  // `hhlo check` reads bytecode too.
  r = run_hhlo({"check", (kDir / "poly_mlp.mlirbc").string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("entry has dynamic dimensions"));
}

}  // namespace
}  // namespace hhlo::test
