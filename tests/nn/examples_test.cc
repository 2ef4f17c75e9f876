// The example models of examples/models/models.h: forward loss and one SGD training step (the
// compiled on-device step of nn::Trainer) against the same models in JAX
// (tests/nn/gen_example_vectors.py -> data/example_vectors.txt).
#include <gtest/gtest.h>

#include "../../examples/models/models.h"
#include "hhlo/nn/optim.h"
#include "hhlo/train/trainer.h"
#include "vectors_util.h"

namespace hhlo {
namespace {

using LossFn = Value (*)(const ad::Params&, const examples::Inputs&);

void check_model(const std::string& c, LossFn fn, double tol = 2e-4) {
  const test::Vectors& v = test::jax_vectors("example_vectors.txt");
  ad::ParamArrays init;
  std::vector<std::string> in_names;
  std::vector<Array> batch;
  std::vector<TensorType> batch_types;
  for (const auto& [k, a] : v) {
    if (k.rfind(c + "/param/", 0) == 0) init.set(k.substr(c.size() + 7), a);
    if (k.rfind(c + "/input/", 0) == 0) {
      in_names.push_back(k.substr(c.size() + 7));
      batch.push_back(a);
      batch_types.push_back(a.type());
    }
  }
  ASSERT_FALSE(init.empty()) << c;
  nn::BatchLossFn loss = [&](const ad::Params& p, const std::vector<Value>& b) {
    examples::Inputs in;
    for (size_t i = 0; i < b.size(); ++i) in[in_names[i]] = b[i];
    return fn(p, in);
  };
  nn::Trainer t(loss, init, nn::sgd(0.1), batch_types);
  float l = t.step(batch);
  test::expect_close(Array::from<float>({}, {l}), v.at(c + "/loss"), tol, c + " loss");
  ad::ParamArrays after = t.params();
  for (const auto& [n, a] : after)
    test::expect_close(a, v.at(c + "/after/" + n), tol, c + " " + n + " after one step");
}

TEST(ExampleModels, Mlp) { check_model("mlp", examples::mlp_loss); }
TEST(ExampleModels, ResNetBlocks) { check_model("resnet", examples::resnet_loss); }
TEST(ExampleModels, TransformerEncoderLayer) {
  check_model("transformer", examples::transformer_loss);
}
TEST(ExampleModels, UNetWithTransposedConvolution) { check_model("unet", examples::unet_loss); }

}  // namespace
}  // namespace hhlo
