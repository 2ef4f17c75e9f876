// The demo's models over 8x8 digit images: forward functions of named parameters plus their
// initial values.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "hhlo/autodiff/params.h"
#include "hhlo/ops/tensor.h"

namespace hhlo::nn {

/// A model: logits [B, 10] from images x f32 [B, 64].
struct Model {
  /// "mlp" or "cnn", and a one-line description for the demo's banner.
  std::string name, description;
  /// Builds logits [B, 10] from x [B, 64] in x's function.
  std::function<Tensor(const ad::Params& params, Tensor x)> forward;
  /// Initial parameters (names as `forward` reads them).
  ad::ParamArrays init;
  /// Epochs and Adam learning rate the demo uses by default.
  int default_epochs = 30;
  double default_lr = 2e-3;
};

/// "mlp": dense 64->256 (ReLU) -> 10, Glorot-uniform weights, zero biases.
/// "cnn": reshape to NHWC 8x8x1, conv 3x3x16 SAME + ReLU + max-pool 2, conv 3x3x32 SAME + ReLU +
/// max-pool 2, dense 128 -> 10 (He-normal conv kernels).
/// Parameters are drawn from `seed`. Throws hhlo::Error on an unknown name.
Model digits_model(const std::string& name, uint64_t seed);

}  // namespace hhlo::nn
