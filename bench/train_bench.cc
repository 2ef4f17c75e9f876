// Time per training step of the digits models (bench/train_jax.py is the JAX peer): one call of
// the compiled step (forward + backward + Adam, parameters and optimizer state donated and kept
// on the device), batch already on the device, scalar loss copied back every step.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <string>

#include "hhlo/nn/layers.h"
#include "hhlo/nn/models.h"
#include "hhlo/nn/optim.h"
#include "hhlo/onednn/kernels.h"
#include "hhlo/program/tune.h"
#include "hhlo/session.h"
#include "hhlo/train/trainer.h"

namespace {

using namespace hhlo;

void train_step(benchmark::State& state, const char* model_name) {
  const int64_t B = state.range(0);
  nn::Model model = nn::digits_model(model_name, 0);
  nn::BatchLossFn loss = [&model](const ad::Params& p, const std::vector<Value>& b) {
    return Value(nn::softmax_cross_entropy(model.forward(p, b[0]), b[1]));
  };
  nn::Trainer trainer(loss, model.init, nn::adam(2e-3), {{DType::f32, {B, 64}}, {DType::i32, {B}}});
  Array x(DType::f32, {B, 64}), y(DType::i32, {B});
  for (int64_t i = 0; i < B * 64; ++i)
    static_cast<float*>(x.data())[i] = static_cast<float>(i % 17) / 16.0f;
  for (int64_t i = 0; i < B; ++i) static_cast<int32_t*>(y.data())[i] = static_cast<int32_t>(i % 10);
  Buffer xb = trainer.client().buffer_from_host(x), yb = trainer.client().buffer_from_host(y);
  for (int i = 0; i < 50; ++i) trainer.step_on_device({&xb, &yb}).to_host();
  for (auto _ : state) {
    Array l = trainer.step_on_device({&xb, &yb}).to_host();
    benchmark::DoNotOptimize(l.data());
  }
}

// The same step lowered by JAX (`jax.jit(step).lower(...).as_text()`, file in $HHLO_TRAIN_MLIR),
// run through our runtime: separates graph differences from runtime/plugin differences.
// Inputs: the state (aliased to the first outputs) then x and y; the loss is the last output.
void jax_lowered_step(benchmark::State& state) {
  const char* path = std::getenv("HHLO_TRAIN_MLIR");
  if (!path) {
    state.SkipWithError("set HHLO_TRAIN_MLIR to a JAX-lowered step (bench/train_compare.sh does)");
    return;
  }
  std::ifstream f(path);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  Session& s = default_session();
  const LoadedExecutable& exe = s.compile(text);
  std::vector<TensorType> types = *exe.input_types();
  std::vector<Buffer> args;
  for (const auto& t : types) args.push_back(s.client().buffer_from_host(Array(t)));
  size_t n_state = types.size() - 2;
  auto one = [&] {
    std::vector<const Buffer*> ptrs;
    for (const auto& b : args) ptrs.push_back(&b);
    std::vector<Buffer> out = exe.execute(ptrs);
    for (size_t i = 0; i < n_state; ++i) args[i] = std::move(out[i]);
    return out.back().to_host();
  };
  for (int i = 0; i < 50; ++i) one();
  for (auto _ : state) {
    Array l = one();
    benchmark::DoNotOptimize(l.data());
  }
}

BENCHMARK(jax_lowered_step)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_CAPTURE(train_step, mlp, "mlp")->Arg(32)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_CAPTURE(train_step, cnn, "cnn")->Arg(32)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

// `hhlo_bench_train --median N`: the peer's methodology (bench/train_jax.py): N single steps, each
// timed alone, median and 25th percentile printed; robust to the outliers of a loaded machine.
namespace {

void print_median(const char* name, const std::function<void()>& step, int n) {
  for (int i = 0; i < 50; ++i) step();
  std::vector<double> t;
  for (int i = 0; i < n; ++i) {
    auto s = std::chrono::steady_clock::now();
    step();
    t.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s).count());
  }
  std::sort(t.begin(), t.end());
  std::printf("%s step_ms=%.4f step_ms_p25=%.4f\n", name, t[t.size() / 2], t[t.size() / 4]);
}

/// How median mode runs: the client's execution mode and the opt-in oneDNN kernels.
struct MedianMode {
  int steps = 0;
  std::string model;  ///< "mlp" or "cnn"; empty: both
  bool synchronous = false;
  OneDnnOps onednn;
};

/// `--median N [--model mlp|cnn] [--execution sync|async] [--onednn-threads T] [--onednn-ops
/// conv|dot|both]` (the model: one of the two, both by default; T:
/// the oneDNN calls on T OpenMP threads, 0 its default; the ops rewritten: convolutions (the
/// default with T), dot_generals, or both); nullopt for other arguments (Google Benchmark's).
std::optional<MedianMode> median_args(int argc, char** argv) {
  if (argc < 3 || std::string(argv[1]) != "--median") return std::nullopt;
  MedianMode m{.steps = std::atoi(argv[2])};
  bool threads = false;
  std::string ops;
  for (int i = 3; i + 1 < argc; i += 2) {
    std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--model")
      m.model = value;
    else if (flag == "--execution")
      m.synchronous = value == "sync";
    else if (flag == "--onednn-threads")
      threads = true, m.onednn.threads = std::atoi(value.c_str());
    else if (flag == "--onednn-ops")
      ops = value;
    else
      return std::nullopt;
  }
  if (!threads && ops.empty()) return m;
  m.onednn.convolution = ops != "dot";
  m.onednn.dot_general = ops == "dot" || ops == "both";
  return m;
}

int median_mode(const MedianMode& m) {
  Client client = Client::create("cpu", execution_client_options(m.synchronous));
  if (m.onednn.any()) register_onednn_kernels(client);
  Session session(std::move(client), CompileCacheOptions::from_environment(), m.onednn);
  std::string mode = m.synchronous ? "_sync" : "";
  if (m.onednn.any())
    mode += fmt::format("_onednn{}{}{}", m.onednn.convolution ? "_conv" : "",
                        m.onednn.dot_general ? "_dot" : "", m.onednn.threads);
  const int n = m.steps;
  for (const char* model_name : {"mlp", "cnn"}) {
    if (!m.model.empty() && m.model != model_name) continue;
    nn::Model model = nn::digits_model(model_name, 0);
    nn::BatchLossFn loss = [&model](const ad::Params& p, const std::vector<Value>& b) {
      return Value(nn::softmax_cross_entropy(model.forward(p, b[0]), b[1]));
    };
    nn::Trainer trainer(loss, model.init, nn::adam(2e-3),
                        {{DType::f32, {32, 64}}, {DType::i32, {32}}}, session);
    Buffer xb = trainer.client().buffer_from_host(Array(DType::f32, {32, 64}));
    Buffer yb = trainer.client().buffer_from_host(Array(DType::i32, {32}));
    print_median((model_name + mode).c_str(),
                 [&] {
                   trainer.step_on_device({&xb, &yb}).to_host();
                 },
                 n);
    // The JAX-lowered step of the same model through our runtime, when given.
    std::string env = std::string("HHLO_TRAIN_MLIR_") + (model_name[0] == 'm' ? "MLP" : "CNN");
    if (const char* path = std::getenv(env.c_str())) {
      std::ifstream f(path);
      std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      const LoadedExecutable& exe = session.compile(text);
      std::vector<TensorType> types = *exe.input_types();
      std::vector<Buffer> args;
      for (const auto& t : types) args.push_back(session.client().buffer_from_host(Array(t)));
      size_t n_state = types.size() - 2;
      print_median(("jax_lowered_" + std::string(model_name) + mode).c_str(),
                   [&] {
                     std::vector<const Buffer*> ptrs;
                     for (const auto& b : args) ptrs.push_back(&b);
                     std::vector<Buffer> out = exe.execute(ptrs);
                     for (size_t i = 0; i < n_state; ++i) args[i] = std::move(out[i]);
                     out.back().to_host();
                   },
                   n);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // --median N [--model mlp|cnn] [--execution sync] [--onednn-threads T] [--onednn-ops
  // conv|dot|both]: the synchronous CPU client (hhlo/program/tune.h); the convolutions and/or
  // dot_generals as oneDNN's kernels on T threads (hhlo/session.h).
  if (std::optional<MedianMode> m = median_args(argc, argv)) return median_mode(*m);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
