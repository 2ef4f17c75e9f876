#include "hhlo/nn/models.h"

#include "hhlo/nn/init.h"
#include "hhlo/nn/layers.h"

namespace hhlo::nn {

Model digits_model(const std::string& name, uint64_t seed) {
  Model m;
  m.name = name;
  if (name == "mlp") {
    m.description = "MLP 64-256-10 (ReLU)";
    m.init.set("dense1/w", glorot_uniform({64, 256}, seed * 16 + 1));
    m.init.set("dense1/b", filled({256}, 0.0));
    m.init.set("dense2/w", glorot_uniform({256, 10}, seed * 16 + 2));
    m.init.set("dense2/b", filled({10}, 0.0));
    m.forward = [](const ad::Params& p, Tensor x) {
      return dense(relu(dense(x, p, "dense1")), p, "dense2");
    };
    m.default_epochs = 30;
    m.default_lr = 2e-3;
    return m;
  }
  throw Error("unknown model '" + name + "' (expected mlp or cnn)");
}

}  // namespace hhlo::nn
