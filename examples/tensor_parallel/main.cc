// Tensor-parallel training of a small MLP over 4 CPU devices (Megatron style), written for global
// shapes with shardings and partitioned by XLA (Shardy); nothing per device is written by hand:
//
//   h = tanh(x W1 + b1)      W1 [in, hidden] split by columns over mesh axis "x" (4 devices),
//                            b1 and h split the same way: each device holds hidden/4 units
//   z = h W2 + b2            W2 [hidden, out] split by rows: the contraction runs over the split
//                            dimension, so each device has a partial product and the partitioner
//                            inserts the all_reduce that sums them
//   loss = mean((z - y)^2)   x, y, b2 and the loss replicated
//
// One SGD step (loss, gradients by hhlo::ad, updated parameters with the same shardings) is one
// program; the parameters stay on the devices as sharded arrays from step to step. The same step
// built without any sharding runs on one device from the same start, and the program checks that
// both loss trajectories and the final parameters agree (exit status 1 otherwise).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/autodiff/vjp_registry.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ir/spmd.h"
#include "hhlo/program/compile.h"
#include "hhlo/runtime/client.h"
#include "hhlo/runtime/sharded_array.h"
#include "hhlo/session.h"

using namespace hhlo;

namespace {

constexpr int64_t kBatch = 16, kIn = 6, kHidden = 16, kOut = 3, kDevices = 4, kSteps = 20;
constexpr double kLearningRate = 0.1;
const DType F = DType::f32;
const DotDimensionNumbers kMatmul{.lhs_contracting_dimensions = {1},
                                  .rhs_contracting_dimensions = {0}};

// Parameter order: W1, b1, W2, b2 (after the inputs x, y).
const std::vector<TensorType> kTypes = {{F, {kBatch, kIn}},   {F, {kBatch, kOut}},
                                        {F, {kIn, kHidden}},  {F, {kHidden}},
                                        {F, {kHidden, kOut}}, {F, {kOut}}};

/// The training step: (x, y, W1, b1, W2, b2) -> (loss, W1', b1', W2', b2'). With `sharded`, the
/// module gets the mesh x=4 and the Megatron shardings on arguments, results and the hidden layer.
Module training_step(bool sharded) {
  Module m;
  const Sharding rep1 = Sharding::replicated(1), rep2 = Sharding::replicated(2);
  const Sharding cols{{{}, {"x"}}}, rows{{{"x"}, {}}}, split{{{"x"}}};
  const std::vector<Sharding> shardings = {rep2, rep2, cols, split, rows, rep1};
  if (sharded) {
    m.add_mesh("mesh", Mesh{{{"x", kDevices}}, {}});
    m.set_attr({"mhlo.num_partitions", i32_attr(kDevices)});
  }
  Func& f = m.add_func("main", kTypes);
  if (sharded)
    for (size_t i = 0; i < kTypes.size(); ++i)
      f.set_arg_attr(i, sdy_sharding("mesh", shardings[i]));
  Value x = f.arg(0), y = f.arg(1);
  std::vector<Value> params = {f.arg(2), f.arg(3), f.arg(4), f.arg(5)};
  Value pre =
      add(dot_general(x, params[0], kMatmul), broadcast_in_dim(params[1], {kBatch, kHidden}, {1}));
  Value h = tanh(pre);
  if (sharded) h = sharding_constraint(m, h, "mesh", cols);  // hidden units split over "x"
  Value z =
      add(dot_general(h, params[2], kMatmul), broadcast_in_dim(params[3], {kBatch, kOut}, {1}));
  Value d = subtract(z, y);
  Value loss = multiply(ad::reduce_sum(multiply(d, d), {0, 1}),
                        constant(f, 1.0 / static_cast<double>(kBatch * kOut), F));
  std::vector<Value> grads = ad::grad(loss, params);
  std::vector<Value> out = {loss};
  for (size_t i = 0; i < params.size(); ++i)
    out.push_back(subtract(params[i], multiply(grads[i], ad::full_like(grads[i], kLearningRate))));
  f.ret(out);
  if (sharded) {
    f.set_result_attr(0, sdy_sharding("mesh", Sharding::replicated(0)));
    for (size_t i = 0; i < params.size(); ++i)
      f.set_result_attr(i + 1, sdy_sharding("mesh", shardings[i + 2]));
  }
  return m;
}

Array random(const Dims& d, std::mt19937& g, double scale) {
  std::normal_distribution<float> n(0.0f, static_cast<float>(scale));
  std::vector<float> v(static_cast<size_t>(d[0] * (d.size() > 1 ? d[1] : 1)));
  for (float& e : v) e = n(g);
  return Array::from<float>(d, v);
}

double max_rel_difference(const Array& a, const Array& b) {
  auto x = a.to_vector<float>(), y = b.to_vector<float>();
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i)
    worst = std::max(worst, std::abs(double(x[i]) - y[i]) / std::max(1.0, std::abs(double(y[i]))));
  return worst;
}

}  // namespace

int main() {
  std::mt19937 gen(3);
  Array x = random(kTypes[0].dims, gen, 1.0);
  // Targets from a fixed random linear map of x, so the loss has something to fall to.
  Array w_true = random({kIn, kOut}, gen, 0.5);
  std::vector<float> yv(kBatch * kOut, 0.0f);
  auto xv = x.to_vector<float>(), wv = w_true.to_vector<float>();
  for (int64_t b = 0; b < kBatch; ++b)
    for (int64_t o = 0; o < kOut; ++o)
      for (int64_t i = 0; i < kIn; ++i) yv[b * kOut + o] += xv[b * kIn + i] * wv[i * kOut + o];
  Array y = Array::from<float>(kTypes[1].dims, yv);
  std::vector<Array> init = {random(kTypes[2].dims, gen, 0.5), random(kTypes[3].dims, gen, 0.1),
                             random(kTypes[4].dims, gen, 0.5), random(kTypes[5].dims, gen, 0.1)};

  Session session(Client::create("cpu"));
  const Client& client = session.client();
  if (static_cast<int64_t>(client.devices().size()) < kDevices) {
    fmt::print("FAILED: the CPU plugin has {} devices, this example needs {}\n",
               client.devices().size(), kDevices);
    return 1;
  }

  // Tensor-parallel: compiled for 4 partitions; every array split as the partitioner laid it out.
  LoadedExecutable exe = compile(
      client, training_step(true),
      {.num_partitions = kDevices, .use_spmd_partitioning = true, .use_shardy_partitioner = true});
  if (!exe.input_layouts()) {
    fmt::print("FAILED: no SPMD layouts: {}\n", exe.sharding_error());
    return 1;
  }
  const std::vector<ShardLayout>& in = *exe.input_layouts();
  const char* names[] = {"x", "y", "W1", "b1", "W2", "b2"};
  for (size_t i = 0; i < in.size(); ++i) fmt::print("{:>2}: {}\n", names[i], in[i].to_string());
  std::vector<ShardedArray> state;
  state.push_back(ShardedArray::from_host(client, x, in[0]));
  state.push_back(ShardedArray::from_host(client, y, in[1]));
  for (size_t i = 0; i < init.size(); ++i)
    state.push_back(ShardedArray::from_host(client, init[i], in[i + 2]));

  // Single device: the same step without shardings, from the same start.
  Module single = training_step(false);
  std::vector<Array> ref = {x, y};
  ref.insert(ref.end(), init.begin(), init.end());

  double worst_loss = 0, first_loss = 0, last_loss = 0;
  fmt::print("step   loss (4 devices)   loss (1 device)\n");
  for (int step = 0; step < kSteps; ++step) {
    std::vector<const ShardedArray*> args;
    for (const ShardedArray& a : state) args.push_back(&a);
    std::vector<ShardedArray> out = exe.execute_sharded(args);
    double loss = out[0].to_host().to_vector<float>()[0];
    for (size_t i = 0; i < init.size(); ++i) state[i + 2] = std::move(out[i + 1]);

    std::vector<Array> r = session.run(single, ref);
    double loss1 = r[0].to_vector<float>()[0];
    for (size_t i = 0; i < init.size(); ++i) ref[i + 2] = std::move(r[i + 1]);
    if (step % 4 == 0 || step == kSteps - 1)
      fmt::print("{:4}   {:16.6f}   {:15.6f}\n", step, loss, loss1);
    if (step == 0) first_loss = loss;
    last_loss = loss;
    worst_loss = std::max(worst_loss, std::abs(loss - loss1) / std::max(1.0, std::abs(loss1)));
  }
  double worst_param = 0;
  for (size_t i = 0; i < init.size(); ++i)
    worst_param = std::max(worst_param, max_rel_difference(state[i + 2].to_host(), ref[i + 2]));
  fmt::print("4 devices vs 1 device: max rel. difference {:.3g} (losses), {:.3g} (parameters)\n",
             worst_loss, worst_param);
  if (worst_loss > 1e-5 || worst_param > 1e-5 || !(last_loss < first_loss)) {
    fmt::print("FAILED\n");
    return 1;
  }
  fmt::print("OK\n");
  return 0;
}
