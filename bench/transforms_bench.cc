// Costs of the transformations (docs/benchmarks.md, "Transformations"), one process:
// - jit/*: a cached hhlo::jit call against a direct LoadedExecutable::execute of the same
//   executable (tiny 2x2 f32 program; on device buffers, and from host Arrays with the copies
//   written out by hand). Goal: cached jit <= 1.1x direct.
// - hvp/*: a Hessian-vector product (ad::hvp, forward over reverse) against the gradient
//   (ad::grad) of the same MLP loss, both compiled, inputs on the device. Goal: hvp <= 4x grad.
// - vmap/*: our ad::vmap of three per-example functions against the program JAX's vmap makes of
//   the same functions (text written by bench/vmap_jax.py into $HHLO_VMAP_JAX_DIR at bench time,
//   parsed by our parser), both compiled and run through our runtime on the same inputs; the
//   results are compared once (counter max_rel_diff). Goal: ours within 1.1x of JAX's.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/autodiff/vjp_registry.h"
#include "hhlo/autodiff/vmap.h"
#include "hhlo/ir/conv_dimension_numbers.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/jit.h"
#include "hhlo/program/compile.h"
#include "hhlo/session.h"

namespace {

using namespace hhlo;
using Vs = std::vector<Value>;
constexpr ad::Axis none = std::nullopt;

const Client& client() { return default_session().client(); }

Array rand_f32(const TensorType& t, uint64_t seed) {
  Array a(t);
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (float& v : a.values<float>()) v = u(g);
  return a;
}

// A compiled program with device inputs.
struct Program {
  std::unique_ptr<LoadedExecutable> exe;
  std::vector<Buffer> args;
  std::vector<const Buffer*> ptrs() const {
    std::vector<const Buffer*> p;
    for (const Buffer& b : args) p.push_back(&b);
    return p;
  }
};

Program compile(const Module& m, const std::vector<TensorType>& types) {
  Program p;
  p.exe = std::make_unique<LoadedExecutable>(hhlo::compile(client(), m));
  for (size_t i = 0; i < types.size(); ++i)
    p.args.push_back(client().buffer_from_host(rand_f32(types[i], 100 + i)));
  return p;
}

void run_loop(benchmark::State& state, const Program& p) {
  std::vector<const Buffer*> args = p.ptrs();
  for (auto _ : state) {
    std::vector<Buffer> out = p.exe->execute(args);
    benchmark::DoNotOptimize(out.data());
  }
}

// ---- jit vs direct execute -------------------------------------------------------------------

const std::vector<float> kA{1, 2, 3, 4}, kB{10, 20, 30, 40};
Jitted& tiny() {
  static Jitted f =
      jit([](const std::vector<Tensor>& a) { return std::vector<Tensor>{add(a[0], a[1])}; });
  return f;
}
const TensorType kT(DType::f32, {2, 2});

void BM_Jit_CachedCall(benchmark::State& state) {
  Buffer a = client().buffer_from_host(Array::from<float>({2, 2}, kA));
  Buffer b = client().buffer_from_host(Array::from<float>({2, 2}, kB));
  Jitted& f = tiny();
  if (f({&a, &b})[0].to_host().values<float>()[3] != 44.0f) throw std::runtime_error("jit: wrong");
  for (auto _ : state) {
    std::vector<Buffer> out = f({&a, &b});
    benchmark::DoNotOptimize(out.data());
  }
}

void BM_Jit_DirectExecute(benchmark::State& state) {
  Buffer a = client().buffer_from_host(Array::from<float>({2, 2}, kA));
  Buffer b = client().buffer_from_host(Array::from<float>({2, 2}, kB));
  const LoadedExecutable& exe = tiny().executable({kT, kT});
  for (auto _ : state) {
    std::vector<Buffer> out = exe.execute({&a, &b});
    benchmark::DoNotOptimize(out.data());
  }
}

void BM_Jit_CachedCallArrays(benchmark::State& state) {
  Array a = Array::from<float>({2, 2}, kA), b = Array::from<float>({2, 2}, kB);
  Jitted& f = tiny();
  for (auto _ : state) {
    std::vector<Array> out = f({a, b});
    benchmark::DoNotOptimize(out.data());
  }
}

void BM_Jit_DirectArrays(benchmark::State& state) {
  Array a = Array::from<float>({2, 2}, kA), b = Array::from<float>({2, 2}, kB);
  const LoadedExecutable& exe = tiny().executable({kT, kT});
  for (auto _ : state) {
    Buffer da = client().buffer_from_host(a), db = client().buffer_from_host(b);
    std::vector<Array> out;
    for (const Buffer& o : exe.execute({&da, &db})) out.push_back(o.to_host());
    benchmark::DoNotOptimize(out.data());
  }
}

// ---- HVP vs gradient -------------------------------------------------------------------------

// L(w1, w2; x, y) = sum((tanh(x w1) w2 - y)^2), x [256, 128], w1 [128, 256], w2 [256, 16].
Value mlp_batch_loss(const Vs& a) {
  Value h = tanh(dot_general(a[2], a[0], {{}, {}, {1}, {0}}));
  Value d = subtract(dot_general(h, a[1], {{}, {}, {1}, {0}}), a[3]);
  return ad::reduce_sum(multiply(d, d), {0, 1});
}
const std::vector<TensorType> kMlp = {
    TensorType(DType::f32, {128, 256}), TensorType(DType::f32, {256, 16}),
    TensorType(DType::f32, {256, 128}), TensorType(DType::f32, {256, 16})};

void BM_Hvp_Grad(benchmark::State& state) {
  Module m;
  Func& f = m.add_func("main", kMlp);
  f.ret(ad::grad(mlp_batch_loss(f.args()), {f.arg(0), f.arg(1)}));
  run_loop(state, compile(m, kMlp));
}

void BM_Hvp_Hvp(benchmark::State& state) {
  std::vector<TensorType> types = kMlp;
  types.push_back(kMlp[0]);
  types.push_back(kMlp[1]);
  Module m;
  Func& f = m.add_func("main", types);
  Value x = f.arg(2), y = f.arg(3);
  f.ret(ad::hvp(
      [&](const Vs& w) {
        return mlp_batch_loss({w[0], w[1], x, y});
      },
      {f.arg(0), f.arg(1)}, {f.arg(4), f.arg(5)}));
  run_loop(state, compile(m, types));
}

// ---- vmap: ours vs JAX's ----------------------------------------------------------------------

constexpr int64_t kBatch = 128;
Value sum_dims(Value x, std::vector<int64_t> d) { return ad::reduce_sum(x, d); }

struct VmapCase {
  ad::TraceFn f;
  std::vector<ad::Axis> in_axes;
  std::vector<TensorType> types;  // batched
};

const std::map<std::string, VmapCase>& vmap_cases() {
  auto f32 = [](Dims d) { return TensorType(DType::f32, std::move(d)); };
  static const std::map<std::string, VmapCase> m = {
      {"mlp_grad",
       {[](const Vs& a) {
          Value h = tanh(dot_general(a[2], a[0], {{}, {}, {0}, {0}}));
          Value d = subtract(dot_general(h, a[1], {{}, {}, {0}, {0}}), a[3]);
          return ad::grad(sum_dims(multiply(d, d), {0}), {a[0], a[1]});
        },
        {none, none, 0, 0},
        {f32({64, 128}), f32({128, 10}), f32({kBatch, 64}), f32({kBatch, 10})}}},
      {"conv",
       {[](const Vs& a) {
          ConvDimensionNumbers d = conv_dimension_numbers("NCHW", "OIHW", "NCHW");
          Value o =
              convolution(reshape(a[0], {1, 3, 16, 16}), a[1], d, {.padding = {{1, 1}, {1, 1}}});
          return Vs{sum_dims(tanh(reshape(o, {8, 16, 16})), {1, 2})};
        },
        {0, none},
        {f32({kBatch, 3, 16, 16}), f32({8, 3, 3, 3})}}},
      {"attention",
       {[](const Vs& a) {
          Value s = dot_general(a[0], a[1], {{}, {}, {1}, {1}});
          s = multiply(s, ad::full_like(s, 0.25));
          Value mx = reduce(s, constant(s.func(), -INFINITY, s.dtype()), {1},
                            [](Value p, Value q) { return maximum(p, q); });
          Value e = exponential(subtract(s, broadcast_in_dim(mx, s.dims(), {0})));
          Value p = divide(e, broadcast_in_dim(sum_dims(e, {1}), s.dims(), {0}));
          return Vs{dot_general(p, a[2], {{}, {}, {1}, {0}})};
        },
        {0, 0, 0},
        {f32({kBatch, 32, 16}), f32({kBatch, 32, 16}), f32({kBatch, 32, 16})}}},
  };
  return m;
}

double max_rel_diff(const std::vector<Buffer>& a, const std::vector<Buffer>& b) {
  if (a.size() != b.size()) return INFINITY;
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    Array x = a[i].to_host(), y = b[i].to_host();
    if (x.type() != y.type()) return INFINITY;
    auto xv = x.values<float>(), yv = y.values<float>();
    for (size_t k = 0; k < xv.size(); ++k)
      worst =
          std::max(worst, std::abs(double(xv[k]) - yv[k]) / std::max(1.0, std::abs(double(yv[k]))));
  }
  return worst;
}

void BM_Vmap(benchmark::State& state, const std::string& name, bool ours) {
  const char* dir = std::getenv("HHLO_VMAP_JAX_DIR");
  if (!dir) {
    state.SkipWithError("HHLO_VMAP_JAX_DIR is not set (bench/run.sh writes JAX's programs there)");
    return;
  }
  const VmapCase& c = vmap_cases().at(name);
  Module mine;
  ad::vmap_func(mine, "main", c.types, c.f, c.in_axes);
  if (const char* dump = std::getenv("HHLO_VMAP_DUMP_DIR"))
    std::ofstream(std::string(dump) + "/" + name + "_ours.mlir") << to_mlir(mine);
  Module theirs = parse_module_file(std::string(dir) + "/" + name + ".mlir");
  Program a = compile(mine, c.types), b = compile(theirs, c.types);
  state.counters["max_rel_diff"] = max_rel_diff(a.exe->execute(a.ptrs()), b.exe->execute(a.ptrs()));
  run_loop(state, ours ? a : b);
}

}  // namespace

BENCHMARK(BM_Jit_CachedCall);
BENCHMARK(BM_Jit_DirectExecute);
BENCHMARK(BM_Jit_CachedCallArrays);
BENCHMARK(BM_Jit_DirectArrays);
BENCHMARK(BM_Hvp_Grad)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Hvp_Hvp)->Unit(benchmark::kMicrosecond);

int main(int argc, char** argv) {
  for (const auto& kv : vmap_cases()) {
    std::string n = kv.first;
    benchmark::RegisterBenchmark(("BM_Vmap_Ours/" + n).c_str(), BM_Vmap, n, true)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("BM_Vmap_Jax/" + n).c_str(), BM_Vmap, n, false)
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
