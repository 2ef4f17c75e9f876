// What the producers write for models of ours (tests/producers/gen_*.py; the fixtures in
// tests/producers/fixtures/PRODUCER, remade by `make test-producers`, which points
// HHLO_PRODUCERS_DIR at a fresh copy), each run here with the values of the model's formula in
// NumPy (tests/producers/gen_vectors.py, which the producers' own eager outputs also equal):
// torch_xla 2.9's saved bundle, text and bytecode (whose @main takes the weights too, in the
// order of the bundle's meta: the graph's order, bn.running_var before bn.running_mean, ...),
// torchax's jax.export artifact, TensorFlow 2.21's StableHLO text and plain MLIR bytecode.
#include <fmt/format.h>
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
/// The inputs and NumPy's expected outputs (tests/producers/gen_vectors.py, at build time).
const fs::path kVectors = fs::path(HHLO_GENERATED_DIR) / "producers";

Array vector(const std::string& producer, const std::string& name) {
  return read_npy((kVectors / producer / name).string());
}

/// The outputs of the program at `path` on `inputs` (one per flat input; an artifact's unused
/// ones are dropped as its kept inputs say).
std::vector<Array> run(const std::string& path, const std::vector<Array>& inputs) {
  Loaded l = load({.path = path});
  return PlacedCall(l.client, l.executable, select_kept(l.facts.kept_inputs, inputs)).to_host();
}

/// `got` equals the producer's `want` (floats within 1e-5 relative, integers exactly).
void expect_values(const Array& got, const Array& want) {
  ASSERT_EQ(got.type(), want.type());
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    double w = want.element_as_double(i), g = got.element_as_double(i);
    EXPECT_NEAR(g, w, 1e-5 * (1 + std::abs(w))) << i;
  }
}

void expect_torchs_values(const std::vector<Array>& out) {
  ASSERT_EQ(out.size(), 1u);
  expect_values(out[0], vector("torch_xla", "expected.npy"));
}

/// The weights and the input in the order of @main's arguments, as the bundle's meta gives it.
std::vector<Array> all_arguments() {
  TorchXlaFunction f = read_torch_xla_meta((kDir / "bundle").string());
  std::vector<Array> args;
  for (const TorchXlaInput& in : f.inputs)
    args.push_back(read_npy(in.kind == TorchXlaInput::Kind::parameter
                                ? (kDir / "bundle" / "data" / in.name).string()
                                : (kVectors / "torch_xla" / "x.npy").string()));
  return args;
}

TEST(TorchXla, SavedBundleRunsWithTorchsValues) {
  expect_torchs_values(run((kDir / "bundle").string(), {vector("torch_xla", "x.npy")}));
}

TEST(TorchXla, TextAndBytecodeRunWithTorchsValuesTheWeightsInTheMetasOrder) {
  expect_torchs_values(run((kDir / "forward.mlir").string(), all_arguments()));
  expect_torchs_values(run((kDir / "forward.mlirbc").string(), all_arguments()));
}

TEST(Torchax, TheSerializedExportRunsWithTorchsValues) {
  const fs::path dir = fixtures() / "torchax";
  std::vector<Array> inputs;
  for (int i = 0; fs::exists(kVectors / "torchax" / fmt::format("in{}.npy", i)); ++i)
    inputs.push_back(vector("torchax", fmt::format("in{}.npy", i)));
  ASSERT_EQ(inputs.size(), 8u);  // six weights, num_batches_tracked (unused), x
  std::vector<Array> out = run((dir / "model.jax").string(), inputs);
  ASSERT_EQ(out.size(), 1u);
  expect_values(out[0], vector("torchax", "expected.npy"));
}

TEST(TensorFlow, TextAndPlainBytecodeRunWithTensorFlowsValues) {
  const fs::path dir = fixtures() / "tensorflow";
  std::vector<Array> inputs;
  for (const char* name : {"x.npy", "w.npy", "b.npy"}) inputs.push_back(vector("tensorflow", name));
  for (const char* form : {"forward.mlir", "forward.mlirbc"}) {
    SCOPED_TRACE(form);
    std::vector<Array> out = run((dir / form).string(), inputs);
    ASSERT_EQ(out.size(), 2u);
    expect_values(out[0], vector("tensorflow", "expected0.npy"));  // top_k's values
    expect_values(out[1], vector("tensorflow", "expected1.npy"));  // and indices
  }
}

}  // namespace
}  // namespace hhlo
