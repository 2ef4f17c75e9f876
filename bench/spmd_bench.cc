// The data-parallel digits training step (issue 11) on 1, 2 and 4 CPU devices with the same
// global batch: one step is one PJRT execute of the step (forward, backward, Adam) over all
// devices, parameters and Adam state replicated and donated per shard, the batch already split
// on the devices, the scalar loss copied back. The 1-device step is the single-device program
// doing the same total work, so time(D) / time(1) is the SPMD execution overhead.
//
// Arguments: {devices, eigen, global batch}: eigen = 1 compiles with XLA's defaults, eigen = 0 with
// `xla_cpu_multi_thread_eigen = false` (no intra-op Eigen thread pool inside each device's
// program), to see whether per-device intra-op threads oversubscribe the cores.
// Counters: `devices`, `global_batch`, `cores` (std::thread::hardware_concurrency()).
#include <benchmark/benchmark.h>

#include <thread>

#include "hhlo/nn/layers.h"
#include "hhlo/nn/models.h"
#include "hhlo/nn/optim.h"
#include "hhlo/program/compile.h"
#include "hhlo/runtime/client.h"
#include "hhlo/runtime/sharded_array.h"
#include "hhlo/train/trainer.h"

namespace {

using namespace hhlo;

const Client& cpu() {
  static Client c = Client::create("cpu");  // 4 devices
  return c;
}

void dp_step(benchmark::State& state, const char* model_name) {
  const int devices = static_cast<int>(state.range(0));
  const bool eigen = state.range(1) != 0;
  const int64_t B = state.range(2);
  nn::Model model = nn::digits_model(model_name, 0);
  nn::BatchLossFn loss = [&model](const ad::Params& p, const std::vector<Value>& b) {
    return Value(nn::softmax_cross_entropy(model.forward(p, b[0]), b[1]));
  };
  nn::Optimizer opt = nn::adam(2e-3);
  ad::ParamArrays opt_state = opt.init(model.init);
  std::vector<TensorType> batch_types{{DType::f32, {B, 64}}, {DType::i32, {B}}};
  Module m = nn::build_train_step(loss, model.init, opt_state, opt, batch_types, devices);
  CompileOptions options;
  if (devices > 1) {
    options.num_partitions = devices;
    options.use_spmd_partitioning = true;
    options.use_shardy_partitioner = true;
  }
  if (!eigen) options.xla_options["xla_cpu_multi_thread_eigen"] = false;
  const Client& c = cpu();
  LoadedExecutable exe = compile(c, m, options);

  Array x(DType::f32, {B, 64}), y(DType::i32, {B});
  for (int64_t i = 0; i < B * 64; ++i)
    static_cast<float*>(x.data())[i] = static_cast<float>(i % 17) / 16.0f;
  for (int64_t i = 0; i < B; ++i) static_cast<int32_t*>(y.data())[i] = static_cast<int32_t>(i % 10);
  std::vector<Array> host;  // parameters, state, then the batch, in the step's argument order
  for (const auto& [n, a] : model.init) host.push_back(a);
  for (const auto& [n, a] : opt_state) host.push_back(a);
  const std::size_t n_carried = host.size();
  host.push_back(x);
  host.push_back(y);

  std::function<void()> one;
  std::vector<Buffer> bufs;
  std::vector<ShardedArray> sharded;
  if (devices == 1) {
    for (const Array& a : host) bufs.push_back(c.buffer_from_host(a));
    one = [&] {
      std::vector<const Buffer*> args;
      for (const Buffer& b : bufs) args.push_back(&b);
      std::vector<Buffer> out = exe.execute(args);
      for (std::size_t i = 0; i < n_carried; ++i) bufs[i] = std::move(out[i]);
      Array l = out.back().to_host();
      benchmark::DoNotOptimize(l.data());
    };
  } else {
    std::vector<Device> devs = exe.devices();
    for (std::size_t i = 0; i < host.size(); ++i)
      sharded.push_back(ShardedArray::from_host(c, host[i], exe.input_layouts()->at(i), devs));
    one = [&] {
      std::vector<const ShardedArray*> args;
      for (const ShardedArray& a : sharded) args.push_back(&a);
      std::vector<ShardedArray> out = exe.execute_sharded(args);
      for (std::size_t i = 0; i < n_carried; ++i) sharded[i] = std::move(out[i]);
      Array l = out.back().shard_on(0).to_host();
      benchmark::DoNotOptimize(l.data());
    };
  }
  for (int i = 0; i < 30; ++i) one();
  for (auto _ : state) one();
  state.counters["devices"] = devices;
  state.counters["global_batch"] = static_cast<double>(B);
  state.counters["cores"] = std::thread::hardware_concurrency();
}

void args(benchmark::internal::Benchmark* b) {
  for (int eigen : {1, 0})
    for (int d : {1, 2, 4}) b->Args({d, eigen, 256});
  for (int d : {1, 2, 4}) b->Args({d, 1, 2048});  // 8x the work per step
  b->ArgNames({"devices", "eigen", "batch"})->Unit(benchmark::kMicrosecond)->UseRealTime();
}

BENCHMARK_CAPTURE(dp_step, mlp, "mlp")->Apply(args);
BENCHMARK_CAPTURE(dp_step, cnn, "cnn")->Apply(args);

}  // namespace

BENCHMARK_MAIN();
