// Fine-tuning a JAX-exported model from C++ (docs/autodiff.md "Gradients of imported programs"):
// loads the StableHLO text of a loss function `loss(params..., x, y)` that `jax.export` wrote,
// differentiates it with hhlo::inline_call + hhlo::ad::grad, adds an optimizer update
// (hhlo/nn/optim.h) and runs the training step on the CPU plugin.
//
//   .venv/bin/python examples/import_training/export_model.py /tmp/it
//   build/examples/import_training/hhlo_import_training /tmp/it [--steps N] [--lr LR]
//       [--momentum M] [--check]
//
// DIR holds mlp_loss.mlir, param0.npy.. (initial parameters: the loss's first arguments),
// x.npy and y.npy (its last two). With --check the program exits with status 1 unless the loss
// went down and every step's loss is within 1e-3 (relative) of JAX's (DIR/jax_losses.npy, the
// same SGD run in JAX).
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/core/array.h"
#include "hhlo/ir/inline.h"
#include "hhlo/ir/parser.h"
#include "hhlo/nn/optim.h"
#include "hhlo/session.h"

namespace fs = std::filesystem;
using namespace hhlo;

namespace {

// Parameter names keep the argument order under the name-ordered Params map.
std::string pname(size_t i) { return fmt::format("p{:03d}", i); }

struct Step {
  Module module;
  std::vector<std::string> state_names;
};

// @main(params..., state..., x, y) -> (loss, new params..., new state...): the imported loss
// inlined, its gradient w.r.t. the parameters, the optimizer's update.
Step build_step(const Module& exported, size_t num_params, const nn::Optimizer& opt,
                const ad::ParamArrays& state0) {
  const Func& entry = entry_function(exported);
  const auto& types = entry.arg_types();
  std::vector<TensorType> args(types.begin(), types.begin() + static_cast<long>(num_params));
  for (const auto& [name, a] : state0) args.push_back(a.type());
  args.insert(args.end(), types.begin() + static_cast<long>(num_params), types.end());
  Step s;
  Func& f = s.module.add_func("main", args);
  ad::Params params, state;
  std::vector<Value> loss_args;
  for (size_t i = 0; i < num_params; ++i) {
    params.set(pname(i), f.arg(i));
    loss_args.push_back(f.arg(i));
  }
  size_t k = num_params;
  for (const auto& [name, a] : state0) {
    state.set(name, f.arg(k++));
    s.state_names.push_back(name);
  }
  for (; k < args.size(); ++k) loss_args.push_back(f.arg(k));
  Value loss = inline_call(f, exported, entry.name(), loss_args)[0];
  ad::Params grads = ad::grad(loss, params);
  auto [new_params, new_state] = opt.update(params, grads, state);
  std::vector<Value> out = {loss};
  for (const auto& [name, v] : new_params) out.push_back(v);
  for (const auto& name : s.state_names) out.push_back(new_state.at(name));
  f.ret(out);
  return s;
}

int usage() {
  fmt::print(stderr,
             "usage: hhlo_import_training DIR [--steps N] [--lr LR] [--momentum M] [--check]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  fs::path dir = argv[1];
  int steps = 60;
  double lr = 0.1, momentum = 0.9;
  bool check = false;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--check") {
      check = true;
    } else if (i + 1 < argc && a == "--steps") {
      steps = std::atoi(argv[++i]);
    } else if (i + 1 < argc && a == "--lr") {
      lr = std::atof(argv[++i]);
    } else if (i + 1 < argc && a == "--momentum") {
      momentum = std::atof(argv[++i]);
    } else {
      return usage();
    }
  }
  try {
    Module exported = parse_module_file((dir / "mlp_loss.mlir").string());
    std::vector<Array> params;
    for (size_t i = 0; fs::exists(dir / fmt::format("param{}.npy", i)); ++i)
      params.push_back(read_npy((dir / fmt::format("param{}.npy", i)).string()));
    Array x = read_npy((dir / "x.npy").string()), y = read_npy((dir / "y.npy").string());
    fmt::print("imported @main of {} with {} arguments; training {} parameters\n",
               (dir / "mlp_loss.mlir").string(), entry_function(exported).arg_types().size(),
               params.size());

    nn::Optimizer opt = nn::sgd(lr, {.momentum = momentum});
    ad::ParamArrays named;
    for (size_t i = 0; i < params.size(); ++i) named.set(pname(i), params[i]);
    ad::ParamArrays state0 = opt.init(named);
    Step step = build_step(exported, params.size(), opt, state0);
    std::vector<Array> state;
    for (const auto& name : step.state_names) state.push_back(state0.at(name));

    std::vector<double> losses;
    for (int t = 0; t < steps; ++t) {
      std::vector<Array> in = params;
      in.insert(in.end(), state.begin(), state.end());
      in.push_back(x);
      in.push_back(y);
      std::vector<Array> out = run(step.module, in);
      losses.push_back(out[0].element_as_double(0));
      for (size_t i = 0; i < params.size(); ++i) params[i] = std::move(out[1 + i]);
      for (size_t i = 0; i < state.size(); ++i) state[i] = std::move(out[1 + params.size() + i]);
      if (t % 10 == 0 || t + 1 == steps) fmt::print("step {:4d}  loss {:.6f}\n", t, losses.back());
    }
    if (!check) return 0;

    bool ok = steps >= 2 && losses.back() < 0.5 * losses.front();
    if (!ok)
      fmt::print(stderr, "FAIL: the loss did not halve ({} -> {})\n", losses.front(),
                 losses.back());
    Array want = read_npy((dir / "jax_losses.npy").string());
    if (want.num_elements() < steps) {
      fmt::print(stderr, "FAIL: jax_losses.npy has {} steps, {} were run\n", want.num_elements(),
                 steps);
      return 1;
    }
    double worst = 0;
    for (int t = 0; t < steps; ++t) {
      double w = want.element_as_double(t), d = std::abs(losses[static_cast<size_t>(t)] - w);
      worst = std::max(worst, d / std::abs(w));
      if (d > 1e-3 * std::abs(w)) {
        fmt::print(stderr, "FAIL: step {}: loss {} but JAX's is {}\n", t,
                   losses[static_cast<size_t>(t)], w);
        ok = false;
      }
    }
    fmt::print(
        "{}: loss {:.4f} -> {:.4f}; largest relative difference to JAX's trajectory {:.2e}\n",
        ok ? "OK" : "FAIL", losses.front(), losses.back(), worst);
    return ok ? 0 : 1;
  } catch (const Error& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
}
