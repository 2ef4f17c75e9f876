// `hhlo run` with .npz inputs and outputs (members matched to @main's arguments and results by
// name: jax.arg_info / jax.result_info, else arg<i> / out<i>) and `--repeat N --json`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "hhlo/nn/checkpoint.h"

namespace hhlo::test {
namespace {

using ::testing::HasSubstr;

const char* kNamed =
    R"(func.func @main(%a: tensor<3xf32> {jax.arg_info = "a"}, %b: tensor<3xf32> {jax.arg_info = "b"}) -> (tensor<3xf32> {jax.result_info = "sum"}, tensor<3xf32> {jax.result_info = "diff"}) {
  %0 = stablehlo.add %a, %b : tensor<3xf32>
  %1 = stablehlo.subtract %a, %b : tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
})";
const char* kPositional =
    R"(func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.subtract %a, %b : tensor<3xf32>
  return %0 : tensor<3xf32>
})";

TEST(CliNpz, MembersAreMatchedByArgumentAndResultName) {
  std::string dir = temp_dir("npz_named");
  write_text(dir + "/p.mlir", kNamed);
  ad::ParamArrays in;  // the archive lists b before a: names, not order, decide
  in.set("b", Array::from<float>({3}, {10, 20, 30}));
  in.set("a", Array::from<float>({3}, {1, 2, 3}));
  nn::save_npz(dir + "/in.npz", in);
  ProcessResult r =
      run_hhlo({"run", dir + "/p.mlir", "-i", dir + "/in.npz", "-o", dir + "/out.npz"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ad::ParamArrays out = nn::load_npz(dir + "/out.npz");
  EXPECT_EQ(out.names(), (std::vector<std::string>{"diff", "sum"}));
  EXPECT_EQ(out.at("sum").to_vector<float>(), (std::vector<float>{11, 22, 33}));
  EXPECT_EQ(out.at("diff").to_vector<float>(), (std::vector<float>{-9, -18, -27}));
}

TEST(CliNpz, UnnamedArgumentsAndResultsArePositional) {
  std::string dir = temp_dir("npz_positional");
  write_text(dir + "/p.mlir", kPositional);
  ad::ParamArrays in;
  in.set("arg1", Array::from<float>({3}, {1, 1, 1}));
  in.set("arg0", Array::from<float>({3}, {5, 6, 7}));
  nn::save_npz(dir + "/in.npz", in);
  ProcessResult r = run_hhlo({"run", dir + "/p.mlir", "-i", dir + "/in.npz", "-o", dir + "/o.npz"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ad::ParamArrays out = nn::load_npz(dir + "/o.npz");
  EXPECT_EQ(out.names(), (std::vector<std::string>{"out0"}));
  EXPECT_EQ(out.at("out0").to_vector<float>(), (std::vector<float>{4, 5, 6}));
}

TEST(CliNpz, ArchiveThatDoesNotMatchNamesTheMissingAndUnusedMembers) {
  std::string dir = temp_dir("npz_mismatch");
  write_text(dir + "/p.mlir", kNamed);
  ad::ParamArrays in;
  in.set("a", Array::from<float>({3}, {1, 2, 3}));
  in.set("c", Array::from<float>({3}, {1, 2, 3}));
  nn::save_npz(dir + "/in.npz", in);
  ProcessResult r = run_hhlo({"run", dir + "/p.mlir", "-i", dir + "/in.npz"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("missing b; unused c"));
}

TEST(CliRun, RepeatWithJsonPrintsTheLatenciesAsJson) {
  std::string dir = temp_dir("run_json");
  write_text(dir + "/p.mlir", kPositional);
  ad::ParamArrays in;
  in.set("arg0", Array::from<float>({3}, {5, 6, 7}));
  in.set("arg1", Array::from<float>({3}, {1, 1, 1}));
  nn::save_npz(dir + "/in.npz", in);
  ProcessResult r =
      run_hhlo({"run", dir + "/p.mlir", "-i", dir + "/in.npz", "--repeat", "7", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::size_t at = r.output.find("{\"calls\"");
  ASSERT_NE(at, std::string::npos) << r.output;
  nlohmann::json j = nlohmann::json::parse(r.output.substr(at, r.output.find('\n', at) - at));
  EXPECT_EQ(j["calls"].get<int>(), 7);
  ASSERT_EQ(j["samples_us"].size(), 7u);
  const auto& l = j["latency_us"];
  EXPECT_GT(l["min"].get<double>(), 0);
  EXPECT_LE(l["min"].get<double>(), l["median"].get<double>());
  EXPECT_LE(l["median"].get<double>(), l["max"].get<double>());
  EXPECT_DOUBLE_EQ(l["min"].get<double>(), j["samples_us"][0].get<double>());
}

}  // namespace
}  // namespace hhlo::test
