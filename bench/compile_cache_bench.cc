// Cold compile vs warm start through the persistent compile cache (hhlo/runtime/compile_cache.h):
//  - digits: the MLP training step of `hhlo demo` (forward + backward + Adam, batch 32);
//  - transformer: 12 pre-LN encoder blocks, x [1, 128, 256], 4 heads, ffn 1024 (forward; the
//    model of bench/build_print_bench.cc).
// bm_cold: PJRT_Client_Compile of the program text. bm_warm: what a later process does instead,
// CompileCache::compile on a filled entry (read the file, check key and sha256, then
// PJRT_Executable_DeserializeAndLoad). bench/run.sh prints cold / warm (goal >= 50x).
// bm_execute: one call of the executable a hit loaded. HHLO_CACHE_BENCH_XLA_OPTIONS applies XLA
// options to all three (docs/benchmarks.md compares them), HHLO_CACHE_BENCH_DIR keeps the
// entries, HHLO_CACHE_BENCH_DUMP writes the two programs out.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "hhlo/ir/printer.h"
#include "hhlo/nn/layers.h"
#include "hhlo/nn/models.h"
#include "hhlo/nn/optim.h"
#include "hhlo/program/compile.h"
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

// The compile options of every benchmark: the defaults, then HHLO_CACHE_BENCH_XLA_OPTIONS
// ("name=value,name=value") on top, to compare what an option does to compile, load and execute.
CompileOptions options() {
  CompileOptions o;
  if (const char* env = std::getenv("HHLO_CACHE_BENCH_XLA_OPTIONS")) {
    std::string all = env;
    for (size_t at = 0; at < all.size();) {
      size_t end = std::min(all.find(',', at), all.size());
      std::string kv = all.substr(at, end - at);
      size_t eq = kv.find('=');
      if (eq != std::string::npos)
        o.xla_options[kv.substr(0, eq)] = parse_xla_option_value(kv.substr(eq + 1));
      at = end + 1;
    }
  }
  return o;
}

void bm_cold(benchmark::State& state, int which) {
  std::string text = program(which);
  for (auto _ : state) {
    LoadedExecutable exe = compile(client(), text, options());
    benchmark::DoNotOptimize(&exe);
  }
}

void bm_warm(benchmark::State& state, int which) {
  std::string text = program(which);
  // HHLO_CACHE_BENCH_DIR keeps the entries there (to look inside them); else a temporary folder.
  const char* keep = std::getenv("HHLO_CACHE_BENCH_DIR");
  std::filesystem::path dir = keep ? std::filesystem::path(keep)
                                   : std::filesystem::temp_directory_path() /
                                         ("hhlo-cache-bench-" + std::to_string(getpid()));
  CompileCache cache({.dir = dir.string()});
  CacheOutcome o;
  cache.compile(client(), print_program(read_program(text).module), options(),
                &o);  // fill the entry
  for (auto _ : state) {
    LoadedExecutable exe =
        cache.compile(client(), print_program(read_program(text).module), options(), &o);
    if (o != CacheOutcome::hit) {
      state.SkipWithError("the cache entry did not load");
      break;
    }
    benchmark::DoNotOptimize(&exe);
  }
  std::error_code ec;
  state.counters["entry_bytes"] = static_cast<double>(std::filesystem::file_size(
      cache.entry_path(
          cache.key(client(), print_program(read_program(text).module).text(), options())),
      ec));
  if (!keep) std::filesystem::remove_all(dir, ec);
}

// bm_execute: one call (execute + await) of the executable a cache hit loaded, zero inputs: the
// check that options making a cheaper load do not make a slower program.
void bm_execute(benchmark::State& state, int which) {
  std::string text = program(which);
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("hhlo-cache-bench-x" + std::to_string(getpid()));
  CompileCache cache({.dir = dir.string()});
  cache.compile(client(), print_program(read_program(text).module), options());
  LoadedExecutable exe =
      cache.compile(client(), print_program(read_program(text).module), options());
  std::vector<Array> inputs;
  for (const TensorType& t : exe.input_types().value()) inputs.emplace_back(t);
  for (auto _ : state) {
    state.PauseTiming();  // fresh buffers: the training step donates its arguments
    std::vector<Buffer> buffers;
    for (const Array& a : inputs) buffers.push_back(client().buffer_from_host(a));
    std::vector<const Buffer*> args;
    for (const Buffer& b : buffers) args.push_back(&b);
    state.ResumeTiming();
    std::vector<Buffer> out = exe.execute(args);
    benchmark::DoNotOptimize(&out);
  }
  std::error_code ec;
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

BENCHMARK_CAPTURE(bm_execute, digits, 0)
    ->Unit(benchmark::kMicrosecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK_CAPTURE(bm_execute, transformer, 1)
    ->Unit(benchmark::kMicrosecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

}  // namespace

// HHLO_CACHE_BENCH_DUMP=DIR writes the two programs to DIR/{digits,transformer}.mlir (for
// `hhlo bench` with --xla-option variants) and exits.
int main(int argc, char** argv) {
  if (const char* dir = std::getenv("HHLO_CACHE_BENCH_DUMP")) {
    for (int which : {0, 1}) {
      std::string path = std::string(dir) + (which == 0 ? "/digits.mlir" : "/transformer.mlir");
      std::FILE* f = std::fopen(path.c_str(), "wb");
      if (!f) return 1;
      std::string text = program(which);
      std::fwrite(text.data(), 1, text.size(), f);
      std::fclose(f);
    }
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
