#include "hhlo/nn/optim.h"

#include "hhlo/nn/init.h"
#include "hhlo/ops/ops.h"

namespace hhlo::nn {

Optimizer sgd(double lr, SgdOptions how) {
  const double momentum = how.momentum;
  Optimizer o;
  o.name = "sgd";
  o.init = [momentum](const ad::ParamArrays& params) {
    ad::ParamArrays s;
    if (momentum != 0.0)
      for (const auto& [n, a] : params) s.set("v/" + n, filled(a.dims(), 0.0, a.dtype()));
    return s;
  };
  o.update = [lr, momentum](const ad::Params& params, const ad::Params& grads,
                            const ad::Params& state) {
    ad::Params np_, ns;
    for (const auto& [n, p] : params) {
      Tensor g = grads.at(n);
      if (momentum != 0.0) {
        Tensor v = Tensor(state.at("v/" + n)) * momentum + g;
        ns.set("v/" + n, v);
        g = v;
      }
      np_.set(n, Tensor(p) - g * lr);
    }
    return std::pair{np_, ns};
  };
  return o;
}

Optimizer adam(double lr, AdamOptions how) {
  const double b1 = how.b1, b2 = how.b2, eps = how.eps;
  Optimizer o;
  o.name = "adam";
  o.init = [](const ad::ParamArrays& params) {
    ad::ParamArrays s;
    for (const auto& [n, a] : params) {
      s.set("m/" + n, filled(a.dims(), 0.0, a.dtype()));
      s.set("v/" + n, filled(a.dims(), 0.0, a.dtype()));
    }
    s.set("t", filled({}, 0.0, DType::f32));
    return s;
  };
  o.update = [=](const ad::Params& params, const ad::Params& grads, const ad::Params& state) {
    ad::Params np_, ns;
    Tensor t = Tensor(state.at("t")) + 1.0;
    ns.set("t", t);
    // lr_t = lr * sqrt(1 - b2^t) / (1 - b1^t), computed once as a scalar.
    Tensor b1t = np::power(np::full_like(t, b1), t), b2t = np::power(np::full_like(t, b2), t);
    Tensor lr_t = np::sqrt(1.0 - b2t) / (1.0 - b1t) * lr;
    for (const auto& [n, p] : params) {
      Tensor g = grads.at(n);
      Tensor m = Tensor(state.at("m/" + n)) * b1 + g * (1.0 - b1);
      Tensor v = Tensor(state.at("v/" + n)) * b2 + g * g * (1.0 - b2);
      ns.set("m/" + n, m);
      ns.set("v/" + n, v);
      Tensor step = np::multiply(np::astype(lr_t, p.dtype()), m / (np::sqrt(v) + eps));
      np_.set(n, Tensor(p) - step);
    }
    return std::pair{np_, ns};
  };
  return o;
}

}  // namespace hhlo::nn
