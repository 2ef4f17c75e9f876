// What torch_xla 2.9 writes for a model of ours (tests/producers/gen_torch_xla.py; the fixtures
// in tests/producers/fixtures/torch_xla, remade by `make test-producers`, which points
// HHLO_PRODUCERS_DIR at a fresh copy): its saved bundle, its text and its bytecode each run here
// with torch's eager values. The text and bytecode @main take the weights too, in the order of
// the bundle's meta (the graph's order: bn.running_var before bn.running_mean, ...).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "hhlo/core/array.h"
#include "hhlo/program/load.h"
#include "hhlo/program/placed_call.h"
#include "hhlo/program/torch_xla_bundle.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;

fs::path fixtures() {
  const char* env = std::getenv("HHLO_PRODUCERS_DIR");
  return env ? fs::path(env) : fs::path(HHLO_SOURCE_DIR) / "tests/producers/fixtures";
}

const fs::path kDir = fixtures() / "torch_xla";

std::vector<Array> run(const std::string& path, const std::vector<Array>& inputs) {
  Loaded l = load({.path = path});
  return PlacedCall(l.client, l.executable, inputs).to_host();
}

void expect_torchs_values(const std::vector<Array>& out) {
  ASSERT_EQ(out.size(), 1u);
  Array want = read_npy((kDir / "expected.npy").string());
  ASSERT_EQ(out[0].type(), want.type());
  std::vector<float> g = out[0].to_vector<float>(), w = want.to_vector<float>();
  for (size_t i = 0; i < w.size(); ++i) EXPECT_NEAR(g[i], w[i], 1e-5 * (1 + std::abs(w[i]))) << i;
}

/// The weights and the input in the order of @main's arguments, as the bundle's meta gives it.
std::vector<Array> all_arguments() {
  TorchXlaFunction f = read_torch_xla_meta((kDir / "bundle").string());
  std::vector<Array> args;
  for (const TorchXlaInput& in : f.inputs)
    args.push_back(read_npy(in.kind == TorchXlaInput::Kind::parameter
                                ? (kDir / "bundle" / "data" / in.name).string()
                                : (kDir / "x.npy").string()));
  return args;
}

TEST(TorchXla, SavedBundleRunsWithTorchsValues) {
  expect_torchs_values(run((kDir / "bundle").string(), {read_npy((kDir / "x.npy").string())}));
}

TEST(TorchXla, TextAndBytecodeRunWithTorchsValuesTheWeightsInTheMetasOrder) {
  expect_torchs_values(run((kDir / "forward.mlir").string(), all_arguments()));
  expect_torchs_values(run((kDir / "forward.mlirbc").string(), all_arguments()));
}

}  // namespace
}  // namespace hhlo
