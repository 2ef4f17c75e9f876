// Optimizers as StableHLO update functions: `update` builds the parameter and state update in the
// function under construction (so it fuses into the compiled training step), `init` gives the
// host initial state.
#pragma once

#include <functional>
#include <string>
#include <utility>

#include "hhlo/autodiff/params.h"

namespace hhlo::nn {

/// An optimizer: state names are prefixed per kind ("m/<param>", "v/<param>", "t").
struct Optimizer {
  std::string name;
  /// Initial state for parameters `params` (zeros shaped like them, plus scalars).
  std::function<ad::ParamArrays(const ad::ParamArrays& params)> init;
  /// Builds (new params, new state) from params, grads (same names) and state (init's names).
  std::function<std::pair<ad::Params, ad::Params>(const ad::Params& params, const ad::Params& grads,
                                                  const ad::Params& state)>
      update;
};

/// The hyperparameters of `sgd` after the learning rate, by name: `nn::sgd(0.1, {.momentum = 0.9})`
/// (adjacent doubles could be swapped without a compile error).
struct SgdOptions {
  double momentum = 0.0;
};

/// SGD with (heavy-ball) momentum: v = momentum * v + g; p -= lr * v (momentum 0: plain SGD,
/// no state). State "v/<name>".
Optimizer sgd(double lr, SgdOptions how = {});

/// The hyperparameters of `adam` after the learning rate, by name:
/// `nn::adam(1e-3, {.b2 = 0.99})` (adjacent doubles could be swapped without a compile error).
struct AdamOptions {
  double b1 = 0.9;
  double b2 = 0.999;
  double eps = 1e-8;
};

/// Adam (Kingma & Ba, Algorithm 1 with the bias correction folded into the step size, as the
/// JAX peer bench/train_jax.py): m, v moments; state "m/<name>",
/// "v/<name>" and the step count "t" (f32 scalar).
Optimizer adam(double lr, AdamOptions how = {});

}  // namespace hhlo::nn
