// Time to build and print two models with the builder and `to_mlir` (bench/build_print_jax.py is
// the JAX peer: `jax.jit(f).lower(*args).as_text()` of the same models):
//  - mlp: x [8, 64], 1,000 layers of relu(x @ w + b) (nn::dense + nn::relu), width 64;
//  - transformer: x [1, 128, 256], 12 pre-LN encoder blocks
//      h = x + mha(ln1(x)); y = h + dense(gelu(dense(ln2(h), ff1)), ff2)
//    (nn::layer_norm, nn::multi_head_attention with 4 heads, nn::gelu, nn::dense; ffn 1024).
// Every weight is a function argument (both sides), so no dense literal is printed. The printer
// runs with its defaults (locations on; JAX's as_text() prints none); bm_print_noloc prints
// without them for comparison.
//
// Before the benchmarks, main() checks that small versions of both models (same code, smaller
// shapes) compile and run on the CPU plugin through hhlo::run, the MLP against a host reference,
// and reports the op counts of the full models (the same counting rule as the JAX peer). Set
// HHLO_BP_DUMP=DIR to also write the printed full models to DIR/{mlp,transformer}.mlir.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "hhlo/ir/ops.h"
#include "hhlo/ir/printer.h"
#include "hhlo/nn/layers.h"
#include "hhlo/session.h"

namespace {

using namespace hhlo;

struct MlpShape {
  int64_t layers, width, batch;
};
struct TransformerShape {
  int64_t layers, d_model, heads, seq, batch, ffn;
};
constexpr MlpShape kMlp{1000, 64, 8};
constexpr TransformerShape kTransformer{12, 256, 4, 128, 1, 1024};

// Argument order: x, then per layer w [width, width], b [width].
Module build_mlp(const MlpShape& s) {
  std::vector<TensorType> types{{DType::f32, {s.batch, s.width}}};
  for (int64_t i = 0; i < s.layers; ++i) {
    types.push_back({DType::f32, {s.width, s.width}});
    types.push_back({DType::f32, {s.width}});
  }
  Module m;
  Func& f = m.add_func("main", std::move(types));
  Tensor h = f.arg(0);
  for (int64_t i = 0; i < s.layers; ++i) {
    size_t a = 1 + 2 * static_cast<size_t>(i);
    h = nn::relu(nn::dense(h, Tensor(f.arg(a)), Tensor(f.arg(a + 1))));
  }
  f.ret({h});
  return m;
}

// Per-layer parameter names in argument order (the JAX peer uses the same order).
const std::vector<std::pair<std::string, int>>& block_params() {
  // kind: 0 = [D], 1 = [D, D], 2 = [D, F], 3 = [F], 4 = [F, D]
  static const std::vector<std::pair<std::string, int>> p{
      {"ln1/g", 0},    {"ln1/b", 0},    {"attn/q/w", 1}, {"attn/q/b", 0},
      {"attn/k/w", 1}, {"attn/k/b", 0}, {"attn/v/w", 1}, {"attn/v/b", 0},
      {"attn/o/w", 1}, {"attn/o/b", 0}, {"ln2/g", 0},    {"ln2/b", 0},
      {"ff1/w", 2},    {"ff1/b", 3},    {"ff2/w", 4},    {"ff2/b", 0}};
  return p;
}

Module build_transformer(const TransformerShape& s) {
  const int64_t D = s.d_model, F = s.ffn;
  std::vector<TensorType> types{{DType::f32, {s.batch, s.seq, D}}};
  for (int64_t i = 0; i < s.layers; ++i)
    for (const auto& [name, kind] : block_params()) {
      (void)name;
      Dims d = kind == 0   ? Dims{D}
               : kind == 1 ? Dims{D, D}
               : kind == 2 ? Dims{D, F}
               : kind == 3 ? Dims{F}
                           : Dims{F, D};
      types.push_back({DType::f32, d});
    }
  Module m;
  Func& f = m.add_func("main", std::move(types));
  Tensor x = f.arg(0);
  size_t a = 1;
  for (int64_t i = 0; i < s.layers; ++i) {
    ad::Params p;
    for (const auto& bp : block_params()) p.set(bp.first, f.arg(a++));
    Tensor n1 = nn::layer_norm(x, p.at("ln1/g"), p.at("ln1/b"));
    Tensor h = x + nn::multi_head_attention(n1, n1, p, "attn", s.heads);
    Tensor n2 = nn::layer_norm(h, p.at("ln2/g"), p.at("ln2/b"));
    x = h + nn::dense(nn::gelu(nn::dense(n2, p, "ff1")), p, "ff2");
  }
  f.ret({x});
  return m;
}

Module build(int model) { return model == 0 ? build_mlp(kMlp) : build_transformer(kTransformer); }

// Op names counted as the JAX peer counts them: `stablehlo.NAME` after "= ", a quote (generic
// form) or "applies " (JAX's compact reduce body), `return` excluded.
std::map<std::string, int64_t> op_counts(const std::string& text) {
  static const std::regex re(R"((?:= |"|applies )stablehlo\.([a-z_]+))");
  std::map<std::string, int64_t> c;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it)
    if ((*it)[1] != "return") ++c[(*it)[1]];
  return c;
}

void bm_build(benchmark::State& state, int model) {
  for (auto _ : state) {
    Module m = build(model);
    benchmark::DoNotOptimize(m.funcs().data());
  }
}

void bm_print(benchmark::State& state, int model) {
  Module m = build(model);
  for (auto _ : state) {
    std::string text = to_mlir(m);
    benchmark::DoNotOptimize(text.data());
  }
}

// Print without loc(...) (JAX's as_text() prints none): shows what the locations cost.
void bm_print_noloc(benchmark::State& state, int model) {
  Module m = build(model);
  for (auto _ : state) {
    std::string text = to_mlir(m, PrintOptions{.locations = false});
    benchmark::DoNotOptimize(text.data());
  }
}

void bm_build_print(benchmark::State& state, int model) {
  for (auto _ : state) {
    std::string text = to_mlir(build(model));
    benchmark::DoNotOptimize(text.data());
  }
}

BENCHMARK_CAPTURE(bm_build, mlp, 0)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(bm_print, mlp, 0)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(bm_print_noloc, mlp, 0)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(bm_build_print, mlp, 0)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(bm_build, transformer, 1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(bm_print, transformer, 1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(bm_print_noloc, transformer, 1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(bm_build_print, transformer, 1)->Unit(benchmark::kMillisecond)->UseRealTime();

// ---------------------------------------------------------------- sanity check

uint32_t lcg_state = 12345;
float next_uniform() {  // in [-0.5, 0.5)
  lcg_state = lcg_state * 1664525u + 1013904223u;
  return static_cast<float>(lcg_state >> 8) / 16777216.0f - 0.5f;
}

Array random_array(const TensorType& t, float scale) {
  Array a(t);
  float* p = static_cast<float*>(a.data());
  for (int64_t i = 0; i < a.num_elements(); ++i) p[i] = next_uniform() * scale;
  return a;
}

void check(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("build_print_bench sanity check failed: " + what);
}

// Small MLP through the plugin, against a host reference.
void check_mlp() {
  const MlpShape s{3, 8, 2};
  std::string text = to_mlir(build_mlp(s));
  std::vector<Array> args;
  args.push_back(random_array({DType::f32, {s.batch, s.width}}, 2.0f));
  for (int64_t i = 0; i < s.layers; ++i) {
    args.push_back(random_array({DType::f32, {s.width, s.width}}, 1.0f));
    args.push_back(random_array({DType::f32, {s.width}}, 1.0f));
  }
  std::vector<Array> out = run(text, args);
  std::vector<float> h(static_cast<const float*>(args[0].data()),
                       static_cast<const float*>(args[0].data()) + s.batch * s.width);
  for (int64_t l = 0; l < s.layers; ++l) {
    const float* w = static_cast<const float*>(args[1 + 2 * l].data());
    const float* b = static_cast<const float*>(args[2 + 2 * l].data());
    std::vector<float> y(h.size());
    for (int64_t r = 0; r < s.batch; ++r)
      for (int64_t j = 0; j < s.width; ++j) {
        double acc = b[j];
        for (int64_t k = 0; k < s.width; ++k)
          acc += double(h[r * s.width + k]) * w[k * s.width + j];
        y[r * s.width + j] = static_cast<float>(std::max(acc, 0.0));
      }
    h = y;
  }
  check(out.size() == 1 && out[0].dims() == Dims{s.batch, s.width}, "mlp output shape");
  const float* o = static_cast<const float*>(out[0].data());
  double max_err = 0;
  for (size_t i = 0; i < h.size(); ++i) max_err = std::max(max_err, double(std::fabs(o[i] - h[i])));
  check(max_err < 1e-4, "mlp differs from the host reference by " + std::to_string(max_err));
  std::fprintf(stderr,
               "sanity: small MLP (%lld layers) ran on the CPU plugin, max |err| vs host %.2g\n",
               static_cast<long long>(s.layers), max_err);
}

// Small transformer through the plugin: shape, finite, and output differs from input.
void check_transformer() {
  const TransformerShape s{2, 16, 4, 8, 1, 32};
  Module m = build_transformer(s);
  std::string text = to_mlir(m);
  const Func& f = *m.funcs().front();
  std::vector<Array> args;
  for (size_t i = 0; i < f.arg_types().size(); ++i)
    args.push_back(random_array(f.arg_types()[i], 1.0f));
  std::vector<Array> out = run(text, args);
  check(out.size() == 1 && out[0].dims() == Dims{s.batch, s.seq, s.d_model},
        "transformer output shape");
  const float* o = static_cast<const float*>(out[0].data());
  const float* x = static_cast<const float*>(args[0].data());
  double diff = 0;
  for (int64_t i = 0; i < out[0].num_elements(); ++i) {
    check(std::isfinite(o[i]), "transformer output not finite");
    diff = std::max(diff, double(std::fabs(o[i] - x[i])));
  }
  check(diff > 1e-3, "transformer output equals its input");
  std::fprintf(stderr,
               "sanity: small transformer (%lld layers) ran on the CPU plugin, output finite\n",
               static_cast<long long>(s.layers));
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  check_mlp();
  check_transformer();
  const char* dump = std::getenv("HHLO_BP_DUMP");
  for (int model = 0; model < 2; ++model) {
    const char* name = model == 0 ? "mlp" : "transformer";
    std::string text = to_mlir(build(model));
    int64_t total = 0;
    std::string hist;
    for (const auto& [op, n] : op_counts(text)) {
      total += n;
      hist += (hist.empty() ? "" : " ") + op + ":" + std::to_string(n);
    }
    std::fprintf(stderr, "ops %s: %lld (%s), %zu bytes of text\n", name,
                 static_cast<long long>(total), hist.c_str(), text.size());
    benchmark::AddCustomContext(std::string("ops_") + name, std::to_string(total));
    benchmark::AddCustomContext(std::string("ops_hist_") + name, hist);
    if (dump) std::ofstream(std::string(dump) + "/" + name + ".mlir") << text;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
