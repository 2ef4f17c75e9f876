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
  if (name == "cnn") {
    m.description = "CNN conv3x3x16-pool-conv3x3x32-pool-dense10";
    m.init.set("conv1/w", he_normal({3, 3, 1, 16}, seed * 16 + 3));
    m.init.set("conv1/b", filled({16}, 0.0));
    m.init.set("conv2/w", he_normal({3, 3, 16, 32}, seed * 16 + 4));
    m.init.set("conv2/b", filled({32}, 0.0));
    m.init.set("dense/w", glorot_uniform({128, 10}, seed * 16 + 5));
    m.init.set("dense/b", filled({10}, 0.0));
    m.forward = [](const ad::Params& p, Tensor x) {
      int64_t n = x.dim(0);
      Conv2dOptions same{.padding = Padding::same()};
      Tensor h = reshape(x, {n, 8, 8, 1});
      h = max_pool(relu(conv2d(h, p.at("conv1/w"), Tensor(p.at("conv1/b")), same)));
      h = max_pool(relu(conv2d(h, p.at("conv2/w"), Tensor(p.at("conv2/b")), same)));
      return dense(reshape(h, {n, 128}), p, "dense");
    };
    m.default_epochs = 15;
    m.default_lr = 2e-3;
    return m;
  }
  throw Error("unknown model '" + name + "' (expected mlp or cnn)");
}

}  // namespace hhlo::nn
