// Issue 41, item 6: `hhlo run DIR` / `hhlo check DIR` on torch_xla's saved StableHLO bundle
// (save_as_stablehlo's folder; made in its layout by tests/program/gen_torch_xla_bundle.py): the
// weights bound from data/ and constants/ by the meta's input locations, the user's inputs taken
// in torch's order, the values NumPy's. A damaged bundle is a one-line error naming the file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "cli_util.h"
#include "hhlo/core/array.h"

namespace hhlo::test {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

const fs::path kDir = fs::path(HHLO_GENERATED_DIR) / "torch_xla";

std::string at(const std::string& name) { return (kDir / name).string(); }

void expect_expected(const std::string& out_dir) {
  Array got = read_npy(out_dir + "/out0.npy"), want = read_npy(at("expected.npy"));
  ASSERT_EQ(got.type(), want.type());
  std::vector<float> g = got.to_vector<float>(), w = want.to_vector<float>();
  for (size_t i = 0; i < w.size(); ++i) EXPECT_NEAR(g[i], w[i], 1e-5 * (1 + std::abs(w[i]))) << i;
}

TEST(TorchXlaBundle, RunBindsTheWeightsByTheMetaAndTakesTheUserInputsInTorchsOrder) {
  std::string out = temp_dir("torch_xla_run") + "/out";
  ProcessResult r =
      run_hhlo({"run", at("linear_bn"), "-i", at("x.npy"), "-i", at("scale.npy"), "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_expected(out);
}

TEST(TorchXlaBundle, ATextOnlyBundleWithAnUnusedInputRunsToo) {
  std::string out = temp_dir("torch_xla_text") + "/out";
  ProcessResult r = run_hhlo({"run", at("linear_bn_text"), "-i", at("x.npy"), "-i", at("scale.npy"),
                              "-i", at("unused.npy"), "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_expected(out);
  // The user inputs by name, in any order.
  ProcessResult named =
      run_hhlo({"run", at("linear_bn_text"), "-i", "args[2]=" + at("unused.npy"), "-i",
                "args[1]=" + at("scale.npy"), "-i", "args[0]=" + at("x.npy"), "-o", out + "2"});
  ASSERT_EQ(named.exit_code, 0) << named.output;
  expect_expected(out + "2");
}

TEST(TorchXlaBundle, CheckListsTheUserInputsAndEveryBoundWeight) {
  ProcessResult r = run_hhlo({"check", at("linear_bn")});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("torch_xla bundle, function forward: 2 user input(s), 5"));
  EXPECT_THAT(r.output, HasSubstr("args[0]  tensor<2x3xf32>"));
  EXPECT_THAT(r.output, HasSubstr("bn.running_var  tensor<4xf32>  (data/bn.running_var)"));
  EXPECT_THAT(r.output, HasSubstr("constant 0  tensor<4xf32>  (constants/0)"));
  EXPECT_THAT(r.output,
              HasSubstr("entry @main(tensor<2x3xf32>, tensor<f32>) -> (tensor<2x4xf32>)"));
}

/// A copy of the bundle `name` in a fresh folder, to damage.
std::string copy_of(const std::string& name) {
  std::string dir = temp_dir("torch_xla_" + name) + "/" + name;
  fs::copy(at(name), dir, fs::copy_options::recursive);
  return dir;
}

TEST(TorchXlaBundle, AMissingOrMisshapedWeightOrABadMetaIsAnErrorNamingTheFile) {
  std::string missing = copy_of("linear_bn");
  fs::remove(fs::path(missing) / "data" / "bn.running_mean");
  ProcessResult r = run_hhlo({"run", missing, "-i", at("x.npy"), "-i", at("scale.npy")});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("parameter 'bn.running_mean' of functions/forward.meta"));
  EXPECT_THAT(r.output, HasSubstr("data/bn.running_mean"));

  std::string misshaped = copy_of("linear_bn");
  fs::copy_file(at("x.npy"), fs::path(misshaped) / "data" / "fc.bias",
                fs::copy_options::overwrite_existing);
  r = run_hhlo({"check", misshaped});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("data/fc.bias' is tensor<2x3xf32>; the function's signature "
                                  "says tensor<4xf32>"));

  std::string bad_meta = copy_of("linear_bn");
  std::ofstream(fs::path(bad_meta) / "functions" / "forward.meta") << "{\"name\": \"forward\"}";
  r = run_hhlo({"check", bad_meta});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("forward.meta': not torch_xla's StableHLOFunctionMeta"));

  // A folder that is no bundle is named as such.
  r = run_hhlo({"run", temp_dir("torch_xla_empty")});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("is a directory and not a torch_xla bundle"));
}

}  // namespace
}  // namespace hhlo::test
