// `hhlo run` on JAX programs lowered with shardings over 4 CPU devices (issue 11): the module's
// mhlo.num_partitions = 4 makes it run SPMD-partitioned across 4 devices from global .npy
// inputs, and its global outputs equal what JAX computed on 4 devices
// (tests/cli/gen_spmd_programs.py, run at build time).
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
using ::testing::Not;

const std::string kDir = std::string(HHLO_GENERATED_DIR) + "/spmd/";

/// Runs case `name` (or the program `program` given for it) through `hhlo run` and compares
/// every output with JAX's.
void expect_jax_values(const std::string& name, const std::string& program = "") {
  std::vector<std::string> args{"run", program.empty() ? kDir + name + ".mlir" : program};
  for (int i = 0; std::filesystem::exists(kDir + name + ".in" + std::to_string(i) + ".npy"); ++i)
    args.insert(args.end(), {"-i", kDir + name + ".in" + std::to_string(i) + ".npy"});
  std::string out = temp_dir("spmd_" + name);
  args.insert(args.end(), {"-o", out});
  ProcessResult r = run_hhlo(args);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("ran on 4 devices"));
  int j = 0;
  for (; std::filesystem::exists(kDir + name + ".out" + std::to_string(j) + ".npy"); ++j) {
    Array want = read_npy(kDir + name + ".out" + std::to_string(j) + ".npy");
    Array got = read_npy(out + "/out" + std::to_string(j) + ".npy");
    ASSERT_EQ(got.type(), want.type()) << name << " output " << j;
    for (int64_t k = 0; k < want.num_elements(); ++k) {
      double w = want.element_as_double(k), g = got.element_as_double(k);
      EXPECT_NEAR(g, w, 1e-5 + 1e-5 * std::abs(w)) << name << " output " << j << " element " << k;
    }
  }
  EXPECT_GT(j, 0) << "no JAX outputs for " << name;
  EXPECT_FALSE(std::filesystem::exists(out + "/out" + std::to_string(j) + ".npy"));
}

// `hhlo bench` runs what `hhlo run` runs: the partitioned program over its 4 devices, with the
// inputs given and with zeros of the global input types.
TEST(CliSpmd, BenchRunsAPartitionedProgramOverItsDevices) {
  std::vector<std::string> args{"bench", kDir + "matmul_contracting.mlir", "-n", "3", "--json"};
  ProcessResult zeros = run_hhlo(args);
  ASSERT_EQ(zeros.exit_code, 0) << zeros.output;
  EXPECT_THAT(zeros.output, HasSubstr("\"devices\": 4"));
  for (int i = 0;
       std::filesystem::exists(kDir + "matmul_contracting.in" + std::to_string(i) + ".npy"); ++i)
    args.insert(args.end(), {"-i", kDir + "matmul_contracting.in" + std::to_string(i) + ".npy"});
  ProcessResult given = run_hhlo(args);
  ASSERT_EQ(given.exit_code, 0) << given.output;
  EXPECT_THAT(given.output, HasSubstr("\"devices\": 4"));
  EXPECT_THAT(given.output, HasSubstr("\"p50\""));
}

TEST(CliSpmd, ElementwiseOverAOneDimensionalMesh) { expect_jax_values("elementwise"); }
TEST(CliSpmd, MatmulWithAShardedContractingDimension) { expect_jax_values("matmul_contracting"); }
TEST(CliSpmd, DataParallelGradientStep) { expect_jax_values("data_parallel_step"); }
TEST(CliSpmd, TwoDimensionalMesh) { expect_jax_values("mesh_2d"); }
TEST(CliSpmd, ReductionsToReplicatedValues) { expect_jax_values("reduce_scalar"); }
TEST(CliSpmd, ShardMapWithPsumAndAllGather) { expect_jax_values("shard_map_psum_all_gather"); }

// The same programs lowered for GSPMD (mhlo.sharding strings, no sdy.mesh): run with XLA's GSPMD
// partitioner.
TEST(CliSpmd, GspmdElementwise) { expect_jax_values("gspmd_elementwise"); }
TEST(CliSpmd, GspmdMatmulWithAShardedContractingDimension) {
  expect_jax_values("gspmd_matmul_contracting");
}
TEST(CliSpmd, GspmdDataParallelGradientStep) { expect_jax_values("gspmd_data_parallel_step"); }
TEST(CliSpmd, GspmdTwoDimensionalMesh) { expect_jax_values("gspmd_mesh_2d"); }
TEST(CliSpmd, GspmdTwoDimensionalMeshWithAxesOutOfMeshOrder) {
  expect_jax_values("gspmd_mesh_2d_transposed");
}
TEST(CliSpmd, GspmdReductionsToReplicatedValues) { expect_jax_values("gspmd_reduce_scalar"); }

// The partition count is the parsed module's attribute, not the first "mhlo.num_partitions" in
// the text (which the earlier text scan took).
TEST(CliSpmd, NumPartitionsIsTheModuleAttributeNotAStringBeforeIt) {
  std::ifstream in(kDir + "elementwise.mlir");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  const std::string head = "module @jit__lambda attributes {";
  ASSERT_EQ(text.rfind(head, 0), 0u);
  // A string attribute sorted before the real one: the scan read 1 and ran on one device.
  text.insert(head.size(), "hhlo.note = \"mhlo.num_partitions = 1\", ");
  std::string dir = temp_dir("spmd_string_attr");
  write_text(dir + "/prog.mlir", text);
  expect_jax_values("elementwise", dir + "/prog.mlir");
}

TEST(CliSpmd, NumPartitionsInACommentIsNotTheModuleAttribute) {
  // No module attribute: one partition. The scan read the comment's 4 and partitioned for 4.
  std::string dir = temp_dir("spmd_comment");
  write_text(dir + "/prog.mlir", R"(module @m {
  // from a program that had mhlo.num_partitions = 4
  func.func public @main(%a: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.add %a, %a : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
)");
  write_npy(dir + "/a.npy", Array::from<float>({2}, {1.5f, -3}));
  ProcessResult r = run_hhlo({"run", dir + "/prog.mlir", "-i", dir + "/a.npy", "-o", dir});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("ran on")));
  EXPECT_EQ(read_npy(dir + "/out0.npy").to_vector<float>(), (std::vector<float>{3, -6}));
}

TEST(CliSpmd, InputsAreCheckedAgainstTheGlobalShapes) {
  // elementwise takes two f32[8,3]; a shard-sized f32[2,3] is refused naming the global type.
  std::string dir = temp_dir("spmd_bad_input");
  write_npy(dir + "/small.npy", Array(DType::f32, {2, 3}));
  ProcessResult r = run_hhlo({"run", kDir + "elementwise.mlir", "-i", dir + "/small.npy", "-i",
                              kDir + "elementwise.in1.npy"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("has shape [2x3], @main parameter 0 expects tensor<8x3xf32>"));
}

}  // namespace
}  // namespace hhlo::test
