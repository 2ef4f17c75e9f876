// Cold compile vs warm start through the persistent compile cache (hhlo/runtime/compile_cache.h):
//  - digits: the MLP training step of `hhlo demo` (forward + backward + Adam, batch 32);
//  - transformer: 12 pre-LN encoder blocks, x [1, 128, 256], 4 heads, ffn 1024 (forward; the
//    model of bench/build_print_bench.cc).
// bm_cold: PJRT_Client_Compile of the program text. bm_warm: what a later process does instead,
// CompileCache::compile on a filled entry (read the file, check key and sha256, then
// PJRT_Executable_DeserializeAndLoad). bench/run.sh prints cold / warm (goal >= 50x).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "hhlo/ir/printer.h"
#include "hhlo/nn/layers.h"
#include "hhlo/nn/models.h"
#include "hhlo/nn/optim.h"
#include "hhlo/runtime/compile_cache.h"
#include "hhlo/session.h"
#include "hhlo/train/trainer.h"

namespace {

using namespace hhlo;

const Client& client() {
  static Client c = Client::create("cpu");
  return c;
}

std::string digits_step() {
  static const std::string text = [] {
    Session s(client(), {.enabled = false});
    nn::Model model = nn::digits_model("mlp", 0);
    nn::BatchLossFn loss = [&model](const ad::Params& p, const std::vector<Value>& b) {
      return Value(nn::softmax_cross_entropy(model.forward(p, b[0]), b[1]));
    };
    nn::Trainer t(loss, model.init, nn::adam(2e-3), {{DType::f32, {32, 64}}, {DType::i32, {32}}},
                  s);
    return t.mlir();
  }();
  return text;
}

std::string transformer() {
  static const std::string text = [] {
    const int64_t L = 12, D = 256, H = 4, S = 128, F = 1024;
    const char* names[] = {"ln1/g",    "ln1/b",    "attn/q/w", "attn/q/b", "attn/k/w", "attn/k/b",
                           "attn/v/w", "attn/v/b", "attn/o/w", "attn/o/b", "ln2/g",    "ln2/b",
                           "ff1/w",    "ff1/b",    "ff2/w",    "ff2/b"};
    const Dims dims[] = {{D},    {D}, {D, D}, {D}, {D, D}, {D}, {D, D}, {D},
                         {D, D}, {D}, {D},    {D}, {D, F}, {F}, {F, D}, {D}};
    std::vector<TensorType> types{{DType::f32, {1, S, D}}};
    for (int64_t i = 0; i < L; ++i)
      for (const Dims& d : dims) types.push_back({DType::f32, d});
    Module m;
    Func& f = m.add_func("main", std::move(types));
    Tensor x = f.arg(0);
    size_t a = 1;
    for (int64_t i = 0; i < L; ++i) {
      ad::Params p;
      for (const char* n : names) p.set(n, f.arg(a++));
      Tensor n1 = nn::layer_norm(x, p.at("ln1/g"), p.at("ln1/b"));
      Tensor h = x + nn::multi_head_attention(n1, n1, p, "attn", H);
      Tensor n2 = nn::layer_norm(h, p.at("ln2/g"), p.at("ln2/b"));
      x = h + nn::dense(nn::gelu(nn::dense(n2, p, "ff1")), p, "ff2");
    }
    f.ret({x});
    return to_mlir(m, {.locations = false});
  }();
  return text;
}

std::string program(int which) { return which == 0 ? digits_step() : transformer(); }

void bm_cold(benchmark::State& state, int which) {
  std::string text = program(which);
  for (auto _ : state) {
    LoadedExecutable exe = client().compile(text);
    benchmark::DoNotOptimize(&exe);
  }
}

void bm_warm(benchmark::State& state, int which) {
  std::string text = program(which);
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("hhlo-cache-bench-" + std::to_string(getpid()));
  CompileCache cache({.dir = dir.string()});
  CacheOutcome o;
  cache.compile(client(), text, {}, &o);  // fill the entry
  for (auto _ : state) {
    LoadedExecutable exe = cache.compile(client(), text, {}, &o);
    if (o != CacheOutcome::hit) {
      state.SkipWithError("the cache entry did not load");
      break;
    }
    benchmark::DoNotOptimize(&exe);
  }
  std::error_code ec;
  state.counters["entry_bytes"] = static_cast<double>(
      std::filesystem::file_size(cache.entry_path(cache.key(client(), text, {})), ec));
  std::filesystem::remove_all(dir, ec);
}

BENCHMARK_CAPTURE(bm_cold, digits, 0)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime()
    ->Iterations(1);
BENCHMARK_CAPTURE(bm_warm, digits, 0)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK_CAPTURE(bm_cold, transformer, 1)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime()
    ->Iterations(1);
BENCHMARK_CAPTURE(bm_warm, transformer, 1)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
