// `hhlo bench`: compile time cold and cached, latency percentiles and throughput, table and JSON.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "hhlo/core/array.h"

namespace hhlo::test {
namespace {

using ::testing::HasSubstr;

const char* kProgram = R"(func.func @main(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = stablehlo.dot_general %x, %x, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %1 = stablehlo.tanh %0 : tensor<64x64xf32>
  return %1 : tensor<64x64xf32>
})";

TEST(CliBench, JsonHasColdAndCachedCompileAndOrderedPercentiles) {
  std::string dir = temp_dir("bench_json");
  write_text(dir + "/p.mlir", kProgram);
  write_npy(dir + "/x.npy", Array(DType::f32, {64, 64}));
  ProcessResult r = run_hhlo({"bench", dir + "/p.mlir", "-i", dir + "/x.npy", "--iterations", "30",
                              "--warmup", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The JSON object is the last thing printed (the plugin may log lines to stderr before it).
  nlohmann::json j = nlohmann::json::parse(r.output.substr(r.output.find("{\n")));
  EXPECT_GT(j["compile_cold_ms"].get<double>(), 0);
  ASSERT_TRUE(j["compile_cached_ms"].is_number()) << j.dump();
  // A cache hit (deserialize and load) is cheaper than compiling.
  EXPECT_LT(j["compile_cached_ms"].get<double>(), j["compile_cold_ms"].get<double>());
  EXPECT_GT(j["cache_entry_bytes"].get<double>(), 0);
  EXPECT_EQ(j["iterations"].get<int>(), 30);
  const auto& l = j["latency_us"];
  EXPECT_GT(l["min"].get<double>(), 0);
  EXPECT_LE(l["min"].get<double>(), l["p50"].get<double>());
  EXPECT_LE(l["p50"].get<double>(), l["p90"].get<double>());
  EXPECT_LE(l["p90"].get<double>(), l["p99"].get<double>());
  EXPECT_LE(l["p99"].get<double>(), l["max"].get<double>());
  EXPECT_LE(l["min"].get<double>(), l["mean"].get<double>());
  EXPECT_LE(l["mean"].get<double>(), l["max"].get<double>());
  // Throughput is calls over the timed loop: at most one call per minimum latency.
  EXPECT_GT(j["throughput_per_s"].get<double>(), 0);
  EXPECT_LE(j["throughput_per_s"].get<double>(), 1e6 / l["min"].get<double>() * 1.01);
}

TEST(CliBench, TablePrintsCompileTimesAndPercentilesWithZeroInputsByDefault) {
  std::string dir = temp_dir("bench_table");
  write_text(dir + "/p.mlir", kProgram);
  ProcessResult r = run_hhlo({"bench", dir + "/p.mlir", "-n", "5"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("inputs: zeros of the program's 1 input type(s) (no -i given)"));
  EXPECT_THAT(r.output, HasSubstr("compile, cold:"));
  EXPECT_THAT(r.output, HasSubstr("compile, cached:"));
  EXPECT_THAT(r.output, HasSubstr("faster; entry"));
  EXPECT_THAT(r.output, HasSubstr("latency over 5 call(s)"));
  EXPECT_THAT(r.output, HasSubstr("p99"));
  EXPECT_THAT(r.output, HasSubstr("calls/s"));
}

TEST(CliBench, WrongInputShapeIsAnErrorNamingTheArgument) {
  std::string dir = temp_dir("bench_bad");
  write_text(dir + "/p.mlir", kProgram);
  write_npy(dir + "/x.npy", Array(DType::f32, {3}));
  ProcessResult r = run_hhlo({"bench", dir + "/p.mlir", "-i", dir + "/x.npy"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("hhlo: error:"));
}

TEST(CliBench, MalformedProgramNamesTheFileAndTheLineLikeRun) {
  std::string dir = temp_dir("bench_malformed");
  write_text(dir + "/p.mlir", "func.func @main(%x: tensor<2xf32) -> tensor<2xf32> {\n}\n");
  ProcessResult r = run_hhlo({"bench", dir + "/p.mlir"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  // The plugin calls the text "-": the file is named instead, at line 1, column 33.
  EXPECT_THAT(r.output, HasSubstr("hhlo: error: cannot compile '" + dir + "/p.mlir'"));
  EXPECT_THAT(r.output, HasSubstr(dir + "/p.mlir:1:33:"));
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("-:1:"))) << r.output;
}

TEST(CliBench, WrongInputCountIsRunsMessageWithTheTypes) {
  std::string dir = temp_dir("bench_count");
  write_text(dir + "/p.mlir", kProgram);
  write_npy(dir + "/x.npy", Array(DType::f32, {64, 64}));
  ProcessResult r =
      run_hhlo({"bench", dir + "/p.mlir", "-i", dir + "/x.npy", "-i", dir + "/x.npy"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("hhlo: error: @main takes 1 input(s) (tensor<64x64xf32>), 2 given "
                        "with --input"));
}

TEST(CliBench, MissingAndEmptyProgramsAreErrorsNamingThem) {
  std::string dir = temp_dir("bench_missing");
  ProcessResult missing = run_hhlo({"bench", dir + "/nope.mlir"});
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
  EXPECT_THAT(missing.output,
              HasSubstr("hhlo: error: program '" + dir + "/nope.mlir' does not exist"));
  write_text(dir + "/empty.mlir", "\n");
  ProcessResult empty = run_hhlo({"bench", dir + "/empty.mlir"});
  EXPECT_EQ(empty.exit_code, 1) << empty.output;
  EXPECT_THAT(empty.output, HasSubstr("program '" + dir + "/empty.mlir' is empty"));
}

}  // namespace
}  // namespace hhlo::test
