// `hhlo run -i "args[0]=params.safetensors"` (issue 41, item 7): every leaf under a pytree path of
// a jax.export artifact bound to the tensor of one safetensors file keyed by its path below it
// joined with '.' ("dense.kernel", "layers.1.w"), the file written by safetensors.flax
// (tests/cli/gen_safetensors_cli.py); outputs equal to JAX's. A missing or extra key is one line
// naming it. `-o FILE.safetensors` writes the outputs keyed by their paths, so a train step's new
// parameters feed back as they came.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "cli_util.h"
#include "hhlo/core/array.h"
#include "hhlo/core/safetensors.h"

namespace hhlo::test {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

std::string file(const std::string& name) {
  return (fs::path(HHLO_GENERATED_DIR) / "safetensors_cli" / name).string();
}

/// `got` equals JAX's `want` within f32 rounding.
void expect_near(const Array& got, const Array& want, const std::string& what) {
  ASSERT_EQ(got.type(), want.type()) << what;
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    double w = want.element_as_double(i);
    EXPECT_NEAR(got.element_as_double(i), w, 1e-5 * (1 + std::abs(w))) << what << " [" << i << "]";
  }
}

ProcessResult run_model(const std::string& artifact, const std::string& params,
                        const std::string& out) {
  return run_hhlo({"run", file(artifact), "-i", "args[0]=" + params, "-i",
                   "args[1]=" + file("x.npy"), "-o", out});
}

TEST(SafetensorsCli, BindsEveryLeafUnderAPytreePathWithJaxsValues) {
  std::string out = temp_dir("safetensors_cli_bind") + "/out";
  ProcessResult r = run_model("model.jax", file("params.safetensors"), out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_near(read_npy(out + "/y.npy"), read_npy(file("model.y.npy")), "y");
  expect_near(read_npy(out + "/norm.npy"), read_npy(file("model.norm.npy")), "norm");
}

TEST(SafetensorsCli, AMissingOrAnExtraKeyIsNamedOnOneLine) {
  std::string out = temp_dir("safetensors_cli_keys") + "/out";
  ProcessResult missing = run_model("model.jax", file("missing.safetensors"), out);
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_THAT(missing.output,
              HasSubstr("'" + file("missing.safetensors") +
                        "' does not match the arguments bound to it: missing keys [dense.bias "
                        "(args[0]['dense']['bias'])]\n"));
  ProcessResult extra = run_model("model.jax", file("extra.safetensors"), out);
  EXPECT_NE(extra.exit_code, 0);
  EXPECT_THAT(extra.output, HasSubstr("bound to it: extra keys [unused.w]\n"));
  for (const ProcessResult* r : {&missing, &extra})
    EXPECT_EQ(std::count(r->output.begin(), r->output.end(), '\n'), 1) << r->output;
  // Bound to no pytree path, a safetensors file says how to bind it.
  ProcessResult bare = run_hhlo({"run", file("model.jax"), "-i", file("params.safetensors")});
  EXPECT_NE(bare.exit_code, 0);
  EXPECT_THAT(bare.output, HasSubstr("give it as PATH=FILE"));
  // A path with no argument below it is unknown, with the program's names.
  ProcessResult unknown =
      run_hhlo({"run", file("model.jax"), "-i", "args[2]=" + file("params.safetensors"), "-i",
                "args[0]=" + file("params.safetensors"), "-i", "args[1]=" + file("x.npy")});
  EXPECT_THAT(unknown.output, HasSubstr("unknown [args[2]]"));
}

TEST(SafetensorsCli, OutputsWrittenAsOneFileFeedBackAsParameters) {
  std::string dir = temp_dir("safetensors_cli_step");
  ProcessResult step = run_model("step.jax", file("params.safetensors"), dir + "/new.safetensors");
  ASSERT_EQ(step.exit_code, 0) << step.output;
  Safetensors got = read_safetensors(dir + "/new.safetensors");
  Safetensors want = read_safetensors(file("step.out.safetensors"));
  std::map<std::string, const Array*> by_key;
  for (const auto& [key, a] : got.tensors) by_key[key] = &a;
  ASSERT_EQ(by_key.size(), want.tensors.size());
  for (const auto& [key, a] : want.tensors) {
    ASSERT_TRUE(by_key.contains(key)) << key;
    expect_near(*by_key.at(key), a, key);
  }
  ProcessResult again = run_model("model.jax", dir + "/new.safetensors", dir + "/out");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  expect_near(read_npy(dir + "/out/y.npy"), read_npy(file("model_after_step.y.npy")), "y");
}

}  // namespace
}  // namespace hhlo::test
