// Overhead of a custom call: one elementwise op on 1M f32 as a typed XLA FFI custom call
// (hhlo_example_vector_add from examples/custom_call_cpu) vs the same op as native stablehlo.add,
// each a whole program executed on the CPU plugin with inputs already on the device.
// Ratio = custom_call time / native time (docs/benchmarks.md, "Custom calls").
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "hhlo/program/compile.h"
#include "hhlo/runtime/client.h"
#include "hhlo/runtime/custom_call.h"

namespace {

constexpr int64_t kN = 1 << 20;

std::string program(bool custom) {
  const std::string t = "tensor<" + std::to_string(kN) + "xf32>";
  std::string op = custom ? "stablehlo.custom_call @hhlo_example_vector_add(%a, %b) "
                            "{api_version = 4 : i32} : (" +
                                t + ", " + t + ") -> " + t
                          : "stablehlo.add %a, %b : " + t;
  return "func.func @main(%a: " + t + ", %b: " + t + ") -> " + t + " {\n  %r = " + op +
         "\n  return %r : " + t + "\n}\n";
}

struct Fixture {
  hhlo::Client client = hhlo::Client::create("cpu", {{"cpu_device_count", int64_t{1}}});
  hhlo::Buffer a, b;
  Fixture() {
    hhlo::register_custom_call_library(client.plugin(), HHLO_CUSTOM_CALL_CPU_LIB,
                                       {"hhlo_example_vector_add"});
    hhlo::Array x(hhlo::DType::f32, {kN}), y(hhlo::DType::f32, {kN});
    auto xv = x.values<float>(), yv = y.values<float>();
    for (int64_t i = 0; i < kN; ++i) {
      xv[i] = static_cast<float>(i % 1000) * 0.5f;
      yv[i] = 1.0f - static_cast<float>(i % 7);
    }
    a = client.buffer_from_host(x);
    b = client.buffer_from_host(y);
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

void run(benchmark::State& state, bool custom) {
  Fixture& f = fixture();
  hhlo::LoadedExecutable exe = compile(f.client, program(custom));
  for (auto _ : state) {
    std::vector<hhlo::Buffer> out = exe.execute({&f.a, &f.b});
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(state.iterations() * kN);
  state.SetBytesProcessed(state.iterations() * kN * 3 * sizeof(float));
}

void BM_VectorAdd_1M_CustomCall(benchmark::State& state) { run(state, true); }
void BM_VectorAdd_1M_Native(benchmark::State& state) { run(state, false); }

BENCHMARK(BM_VectorAdd_1M_Native)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_VectorAdd_1M_CustomCall)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
