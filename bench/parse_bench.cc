// Time and memory of the StableHLO text parser (hhlo/ir/parser.h) on the large programs of
// bench/build_print_bench.cc: the 1,000-layer MLP and the 12-block transformer as our printer
// writes them (`HHLO_BP_DUMP=DIR hhlo_bench_build_print` writes DIR/{mlp,transformer}.mlir), and,
// when present, the same models as JAX prints them (`build_print_jax.py --dump DIR` writes
// DIR/{mlp,transformer}_jax.mlir, the pretty form). bench/parse_mlir.py is the peer: MLIR's own
// C++ parser (`jaxlib.mlir.ir.Module.parse`, verification included as here) on the same files.
//
//   HHLO_PARSE_TEXTS=DIR hhlo_bench_parse --benchmark_format=json
//
// Per file: bm_parse/NAME (parse + verify, the default ParseOptions) and bm_parse_noverify/NAME.
// Counters: text_bytes, module_bytes (heap bytes held by the parsed module: glibc mallinfo2()
// in-use bytes after parsing minus before, the text excluded) and module_per_text_byte (the
// issue's goal: at most 3).
// Bytecode (issue 21): for each DIR/NAME.mlirbc (the text serialized by jaxlib's
// stablehlo.serialize_portable_artifact_str at JAX's target; bench/run.sh writes them),
// bm_read_bytecode/NAME reads it with read_bytecode (hhlo/ir/bytecode.h, verified as parse_module
// verifies), with text_bytes the size of the equivalent text, so module_per_text_byte compares
// with the text; parse_mlir.py times jaxlib's deserialize_portable_artifact on the same bytes.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "hhlo/ir/bytecode.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"

namespace {

namespace fs = std::filesystem;
using namespace hhlo;

struct Text {
  std::string name, text;
  std::string bytecode;  // the same program as MLIR bytecode, or empty
};

std::vector<Text>& texts() {
  static std::vector<Text> t;
  return t;
}

size_t heap_in_use() {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

// Heap bytes the parsed module holds (median of 3 parses; the module stays alive while measured).
// parse_module reads text and bytecode alike.
size_t module_bytes(const std::string& text) {
  std::vector<size_t> v;
  for (int i = 0; i < 3; ++i) {
    size_t before = heap_in_use();
    Module m = parse_module(text);
    size_t after = heap_in_use();
    v.push_back(after > before ? after - before : 0);
    benchmark::DoNotOptimize(m.funcs().data());
  }
  std::sort(v.begin(), v.end());
  return v[1];
}

void bm_parse(benchmark::State& state, const Text* t, bool verify) {
  ParseOptions o;
  o.verify = verify;
  for (auto _ : state) {
    std::optional<Module> m = parse_module(t->text, o);
    benchmark::DoNotOptimize(m->funcs().data());
    // Freed outside the timing, as bench/parse_mlir.py frees MLIR's module (`del m` after the
    // clock stops): both sides time the parse alone.
    state.PauseTiming();
    m.reset();
    state.ResumeTiming();
  }
  size_t bytes = module_bytes(t->text);
  state.counters["text_bytes"] = static_cast<double>(t->text.size());
  state.counters["module_bytes"] = static_cast<double>(bytes);
  state.counters["module_per_text_byte"] =
      static_cast<double>(bytes) / static_cast<double>(t->text.size());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * t->text.size()));
}

void bm_read_bytecode(benchmark::State& state, const Text* t) {
  for (auto _ : state) {
    std::optional<Module> m = read_bytecode(t->bytecode);
    benchmark::DoNotOptimize(m->funcs().data());
    state.PauseTiming();  // freed outside the timing, as for the text
    m.reset();
    state.ResumeTiming();
  }
  size_t bytes = module_bytes(t->bytecode);
  state.counters["bytecode_bytes"] = static_cast<double>(t->bytecode.size());
  state.counters["text_bytes"] = static_cast<double>(t->text.size());
  state.counters["module_bytes"] = static_cast<double>(bytes);
  state.counters["module_per_text_byte"] =
      static_cast<double>(bytes) / static_cast<double>(t->text.size());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * t->bytecode.size()));
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return "";
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

int main(int argc, char** argv) {
  const char* dir = std::getenv("HHLO_PARSE_TEXTS");
  if (!dir) {
    std::fprintf(stderr,
                 "hhlo_bench_parse: set HHLO_PARSE_TEXTS=DIR (DIR/{mlp,transformer}.mlir from "
                 "HHLO_BP_DUMP=DIR hhlo_bench_build_print; bench/run.sh does it)\n");
    return 2;
  }
  for (const char* name : {"mlp", "transformer", "mlp_jax", "transformer_jax"}) {
    std::string text = read_file(fs::path(dir) / (std::string(name) + ".mlir"));
    if (text.empty()) continue;
    texts().push_back({name, text, read_file(fs::path(dir) / (std::string(name) + ".mlirbc"))});
  }
  if (texts().empty()) {
    std::fprintf(stderr, "hhlo_bench_parse: no {mlp,transformer}[_jax].mlir in %s\n", dir);
    return 2;
  }
  for (const Text& t : texts()) {
    // Parse once up front: a text we cannot parse is an error, not a benchmark.
    try {
      Module m = parse_module(t.text, {.source_name = t.name + ".mlir"});
      std::fprintf(stderr, "%s: %zu bytes, %zu functions, parses and verifies\n", t.name.c_str(),
                   t.text.size(), m.funcs().size());
    } catch (const Error& e) {
      std::fprintf(stderr, "hhlo_bench_parse: %s does not parse: %s\n", t.name.c_str(), e.what());
      return 1;
    }
    benchmark::RegisterBenchmark(("bm_parse/" + t.name).c_str(), bm_parse, &t, true)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("bm_parse_noverify/" + t.name).c_str(), bm_parse, &t, false)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    if (t.bytecode.empty()) continue;
    try {  // the bytecode must read into the module the text gives
      if (to_mlir(read_bytecode(t.bytecode)) != to_mlir(parse_module(t.text)))
        std::fprintf(stderr,
                     "hhlo_bench_parse: %s.mlirbc reads into another module than its text\n",
                     t.name.c_str());
    } catch (const Error& e) {
      std::fprintf(stderr, "hhlo_bench_parse: %s.mlirbc does not read: %s\n", t.name.c_str(),
                   e.what());
      return 1;
    }
    benchmark::RegisterBenchmark(("bm_read_bytecode/" + t.name).c_str(), bm_read_bytecode, &t)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
