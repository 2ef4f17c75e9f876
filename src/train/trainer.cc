#include "hhlo/train/trainer.h"

#include <fmt/format.h>

#include <algorithm>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ir/printer.h"
#include "hhlo/ir/spmd.h"
#include "hhlo/mpi/collectives.h"
#include "hhlo/ops/shape_ops.h"

namespace hhlo::nn {
namespace {

/// `values` averaged over `processes` MPI processes: per dtype (in order of first appearance, the
/// same on every rank), one allreduce-sum of the values flattened and concatenated, divided by
/// the process count and cut back into the values' shapes.
///
/// With `devices` D > 1 (the hybrid: SPMD over D devices inside each process) the values are
/// replicated over the devices, and every device of a process runs the collective (inside an
/// sdy.manual_computation over the mesh axis "batch": XLA's partitioner wants a sharding on a
/// side-effecting call): D MPI calls per process, matched in whatever order the devices reach
/// them, which is right because all D carry the same replica and the same signature. For that
/// there is one collective only: every value is converted to f64 when one is f64, else to f32,
/// and back after the mean.
std::vector<Value> mean_over_processes(const std::vector<Value>& values, int processes,
                                       int devices) {
  std::vector<int64_t> world(static_cast<size_t>(processes));
  for (int r = 0; r < processes; ++r) world[static_cast<size_t>(r)] = r;
  const mpi::Comm comm = mpi::Comm::groups({world});  // its size is checked at run time
  auto wire = [&](DType t) {                          // the dtype a value travels in
    if (devices == 1) return t;
    for (const Value& v : values)
      if (v.dtype() == DType::f64) return DType::f64;
    if (t != DType::f32 && t != DType::f16 && t != DType::bf16)
      throw Error(fmt::format(
          "build_train_step: data parallelism over devices and MPI processes together averages "
          "real floating-point gradients only; a gradient or the loss is {}",
          dtype_name(t)));
    return DType::f32;
  };
  std::vector<DType> dtypes;
  for (const Value& v : values)
    if (std::find(dtypes.begin(), dtypes.end(), wire(v.dtype())) == dtypes.end())
      dtypes.push_back(wire(v.dtype()));
  std::vector<Value> out(values.size());
  for (DType t : dtypes) {
    std::vector<size_t> members;
    std::vector<Tensor> flat;
    for (size_t i = 0; i < values.size(); ++i)
      if (wire(values[i].dtype()) == t) {
        members.push_back(i);
        Tensor v = np::reshape(Tensor(values[i]), {values[i].type().num_elements()});
        flat.push_back(v.dtype() == t ? v : np::astype(v, t));
      }
    Tensor all = flat.size() == 1 ? flat[0] : np::concatenate(flat, 0);
    Tensor sum;
    if (devices == 1) {
      sum = mpi::allreduce(all, mpi::ReduceOp::sum, comm);
    } else {
      const Sharding replicated = Sharding::replicated(1);
      sum = detail::manual_computation_over(
          Mesh{{{"batch", devices}}, {}}, "batch", {all}, {replicated}, {replicated}, {"batch"},
          [&](const std::vector<Value>& in) {
            return std::vector<Value>{mpi::allreduce(in[0], mpi::ReduceOp::sum, comm)};
          })[0];
    }
    Tensor mean = sum / static_cast<double>(processes);
    int64_t at = 0;
    for (size_t i : members) {
      int64_t n = values[i].type().num_elements();
      Tensor v = reshape(slice(mean, {at}, {at + n}, {1}), values[i].type().dims);
      out[i] = v.dtype() == values[i].dtype() ? v : np::astype(v, values[i].dtype());
      at += n;
    }
  }
  return out;
}

}  // namespace

Module build_train_step(const BatchLossFn& loss_fn, const ad::ParamArrays& params,
                        const ad::ParamArrays& state, const Optimizer& opt,
                        const std::vector<TensorType>& batch_types, int data_parallel_devices,
                        int mpi_processes) {
  if (data_parallel_devices < 1 || mpi_processes < 1)
    throw Error(fmt::format("build_train_step: {} devices and {} processes asked for",
                            data_parallel_devices, mpi_processes));
  std::vector<TensorType> types;
  for (const auto& [n, a] : params) types.push_back(a.type());
  for (const auto& [n, a] : state) types.push_back(a.type());
  types.insert(types.end(), batch_types.begin(), batch_types.end());
  Module m;
  Func& f = m.add_func("main", types);
  ad::Params p, s;
  size_t i = 0;
  for (const auto& kv : params) p.set(kv.first, f.arg(i++));
  for (const auto& kv : state) s.set(kv.first, f.arg(i++));
  std::vector<Value> batch(f.args().begin() + static_cast<long>(i), f.args().end());
  Value loss = loss_fn(p, batch);
  ad::Params g = ad::grad(loss, p);
  if (mpi_processes > 1) {  // the gradient of the global batch's mean loss, and that loss
    std::vector<Value> local;
    for (const auto& kv : params) local.push_back(g.at(kv.first));
    local.push_back(loss);
    std::vector<Value> mean = mean_over_processes(local, mpi_processes, data_parallel_devices);
    size_t k = 0;
    for (const auto& kv : params) g.set(kv.first, mean[k++]);
    loss = mean[k];
  }
  auto [np_, ns] = opt.update(p, g, s);
  std::vector<Value> outs;
  for (const auto& kv : params) outs.push_back(np_.at(kv.first));
  for (const auto& kv : state) outs.push_back(ns.at(kv.first));
  if (outs.size() != params.size() + state.size())
    throw Error("build_train_step: optimizer dropped entries");
  outs.push_back(loss);
  for (size_t k = 0; k + 1 < outs.size(); ++k) {
    if (outs[k].type() != types[k])
      throw Error(fmt::format("build_train_step: output {} has type {}, argument has {}", k,
                              outs[k].type().to_string(), types[k].to_string()));
    f.set_arg_attr(k, {"tf.aliasing_output", IntAttr{static_cast<int64_t>(k), DType::i32}});
  }
  f.ret(outs);
  if (data_parallel_devices > 1) {
    m.add_mesh("batch", Mesh{{{"batch", data_parallel_devices}}, {}});
    m.set_attr({"mhlo.num_partitions", IntAttr{data_parallel_devices, DType::i32}});
    m.set_attr({"mhlo.num_replicas", IntAttr{1, DType::i32}});
    for (size_t k = 0; k < types.size(); ++k) {
      Sharding sh = Sharding::replicated(types[k].dims.size());
      if (k >= params.size() + state.size()) {
        if (types[k].dims.empty())
          throw Error(
              fmt::format("build_train_step: batch argument {} is a scalar; a "
                          "data-parallel batch is split on its first dimension",
                          k - params.size() - state.size()));
        sh.dims[0] = {"batch"};
      }
      f.set_arg_attr(k, sdy_sharding("batch", sh));
    }
    for (size_t k = 0; k < outs.size(); ++k)
      f.set_result_attr(k, sdy_sharding("batch", Sharding::replicated(outs[k].type().dims.size())));
  }
  return m;
}

Trainer::Trainer(BatchLossFn loss, const ad::ParamArrays& init, Optimizer opt,
                 std::vector<TensorType> batch_types, Session& session)
    : Trainer(std::move(loss), init, std::move(opt), std::move(batch_types), DataParallel{},
              session) {}

Trainer::Trainer(BatchLossFn loss, const ad::ParamArrays& init, Optimizer opt,
                 std::vector<TensorType> batch_types, DataParallel dp, Session& session)
    : session_(&session), processes_(dp.processes) {
  if (dp.processes < 1)
    throw Error(fmt::format("Trainer: {} MPI processes asked for", dp.processes));
  if (dp.devices != 1 && dp.processes == 1) {
    *this =
        Trainer(std::move(loss), init, std::move(opt), std::move(batch_types), dp.devices, session);
    return;
  }
  if (dp.devices != 1) {
    if (dp.devices < 1) throw Error(fmt::format("Trainer: {} devices asked for", dp.devices));
    devices_ = dp.devices;
    init_sharded(loss, init, opt, batch_types);
    return;
  }
  ad::ParamArrays state = opt.init(init);
  Module m = build_train_step(loss, init, state, opt, batch_types, 1, dp.processes);
  mlir_ = to_mlir(m, {.locations = false});
  exe_ = &session.compile(mlir_);
  for (const auto& [n, a] : init) {
    param_names_.push_back(n);
    param_types_.push_back(a.type());
    params_.push_back(session.client().buffer_from_host(a));
  }
  for (const auto& [n, a] : state) {
    state_names_.push_back(n);
    state_.push_back(session.client().buffer_from_host(a));
  }
}

Trainer::Trainer(BatchLossFn loss, const ad::ParamArrays& init, Optimizer opt,
                 std::vector<TensorType> batch_types, int devices, Session& session)
    : session_(&session), devices_(devices) {
  if (devices < 1) throw Error(fmt::format("Trainer: {} devices asked for", devices));
  if (devices == 1) {
    *this = Trainer(std::move(loss), init, std::move(opt), std::move(batch_types), DataParallel{},
                    session);
    return;
  }
  init_sharded(loss, init, opt, batch_types);
}

void Trainer::init_sharded(const BatchLossFn& loss, const ad::ParamArrays& init,
                           const Optimizer& opt, const std::vector<TensorType>& batch_types) {
  const int devices = devices_;
  Session& session = *session_;
  std::size_t have = session.client().devices().size();
  if (static_cast<std::size_t>(devices) > have)
    throw ShardingError(
        -1, "batch",
        fmt::format("Trainer: data-parallel over {} devices, the client has {}", devices, have));
  for (std::size_t i = 0; i < batch_types.size(); ++i)  // the layout check names the sizes
    if (!batch_types[i].dims.empty())
      shard_layout(
          Mesh{{{"batch", devices}}, {}},
          [&] {
            Sharding sh = Sharding::replicated(batch_types[i].dims.size());
            sh.dims[0] = {"batch"};
            return sh;
          }(),
          batch_types[i].dims);
  ad::ParamArrays state = opt.init(init);
  Module m = build_train_step(loss, init, state, opt, batch_types, devices, processes_);
  mlir_ = to_mlir(m, {.locations = false});
  exe_ = &session.compile(
      mlir_,
      {.num_partitions = devices, .use_spmd_partitioning = true, .use_shardy_partitioner = true});
  if (!exe_->input_layouts())
    throw Error("Trainer: the data-parallel step has no SPMD layouts: " + exe_->sharding_error());
  std::vector<Device> devs = exe_->devices();
  std::size_t k = 0;
  for (const auto& [n, a] : init) {
    param_names_.push_back(n);
    param_types_.push_back(a.type());
    sparams_.push_back(
        ShardedArray::from_host(session.client(), a, exe_->input_layouts()->at(k++), devs));
  }
  for (const auto& [n, a] : state) {
    state_names_.push_back(n);
    sstate_.push_back(
        ShardedArray::from_host(session.client(), a, exe_->input_layouts()->at(k++), devs));
  }
}

Buffer Trainer::step_on_device(const std::vector<const Buffer*>& batch) {
  if (devices_ > 1)
    throw Error("Trainer::step_on_device: a data-parallel trainer takes host batches (step())");
  std::vector<const Buffer*> args;
  for (const auto& b : params_) args.push_back(&b);
  for (const auto& b : state_) args.push_back(&b);
  args.insert(args.end(), batch.begin(), batch.end());
  std::vector<Buffer> out = exe_->execute(args);
  size_t i = 0;
  for (auto& b : params_) b = std::move(out[i++]);
  for (auto& b : state_) b = std::move(out[i++]);
  ++steps_;
  return std::move(out[i]);
}

float Trainer::step(const std::vector<Array>& batch) {
  if (devices_ > 1) {
    std::size_t np = sparams_.size() + sstate_.size();
    if (batch.size() + np != exe_->input_layouts()->size())
      throw Error(fmt::format("Trainer::step: {} batch arrays given, the step takes {}",
                              batch.size(), exe_->input_layouts()->size() - np));
    std::vector<Device> devs = exe_->devices();
    std::vector<ShardedArray> sb;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const TensorType& want = (*exe_->input_types())[np + i];
      if (batch[i].dtype() != want.dtype)
        throw Error(fmt::format("Trainer::step: batch array {} is {}, the step takes {}", i,
                                batch[i].type().to_string(), dtype_name(want.dtype)));
      sb.push_back(ShardedArray::from_host(session_->client(), batch[i],
                                           exe_->input_layouts()->at(np + i), devs));
    }
    std::vector<const ShardedArray*> args;
    for (const auto& a : sparams_) args.push_back(&a);
    for (const auto& a : sstate_) args.push_back(&a);
    for (const auto& a : sb) args.push_back(&a);
    std::vector<ShardedArray> out = exe_->execute_sharded(args);
    std::size_t i = 0;
    for (auto& a : sparams_) a = std::move(out[i++]);
    for (auto& a : sstate_) a = std::move(out[i++]);
    ++steps_;
    Array loss = out[i].shard_on(0).to_host();
    return loss.dtype() == DType::f64 ? static_cast<float>(loss.to_vector<double>()[0])
                                      : loss.to_vector<float>()[0];
  }
  std::vector<Buffer> bufs;
  for (const auto& a : batch) bufs.push_back(session_->client().buffer_from_host(a));
  std::vector<const Buffer*> ptrs;
  for (const auto& b : bufs) ptrs.push_back(&b);
  Array loss = step_on_device(ptrs).to_host();
  return loss.dtype() == DType::f64 ? static_cast<float>(loss.to_vector<double>()[0])
                                    : loss.to_vector<float>()[0];
}

ad::ParamArrays Trainer::params() const {
  ad::ParamArrays out;
  if (devices_ > 1) {
    for (size_t i = 0; i < sparams_.size(); ++i) out.set(param_names_[i], sparams_[i].to_host());
    return out;
  }
  for (size_t i = 0; i < params_.size(); ++i) out.set(param_names_[i], params_[i].to_host());
  return out;
}

std::vector<const Buffer*> Trainer::param_buffers() const {
  std::vector<const Buffer*> out;
  if (devices_ > 1) {  // the replica of logical device 0, on the executable's first device
    for (const auto& a : sparams_) out.push_back(&a.shard_on(0));
    return out;
  }
  for (const auto& b : params_) out.push_back(&b);
  return out;
}

void Trainer::set_params(const ad::ParamArrays& params) {
  for (size_t i = 0; i < params_.size(); ++i) {
    const Array& a = params.at(param_names_[i]);
    if (a.type() != param_types_[i])
      throw Error(fmt::format("Trainer::set_params: '{}' has type {}, the model expects {}",
                              param_names_[i], a.type().to_string(), param_types_[i].to_string()));
    if (devices_ > 1)
      sparams_[i] = ShardedArray::from_host(session_->client(), a, exe_->input_layouts()->at(i),
                                            exe_->devices());
    else
      params_[i] = session_->client().buffer_from_host(a);
  }
}

Evaluator::Evaluator(BatchFn fn, const ad::ParamArrays& like, std::vector<TensorType> batch_types,
                     Session& session)
    : session_(&session) {
  std::vector<TensorType> types;
  for (const auto& [n, a] : like) types.push_back(a.type());
  size_t np = types.size();
  types.insert(types.end(), batch_types.begin(), batch_types.end());
  Module m;
  Func& f = m.add_func("main", types);
  ad::Params p;
  size_t i = 0;
  for (const auto& kv : like) p.set(kv.first, f.arg(i++));
  std::vector<Value> batch(f.args().begin() + static_cast<long>(np), f.args().end());
  f.ret(fn(p, batch));
  exe_ = &session.compile(to_mlir(m, {.locations = false}));
}

std::vector<Array> Evaluator::run(const std::vector<const Buffer*>& params,
                                  const std::vector<Array>& batch) const {
  std::vector<Buffer> bufs;
  for (const auto& a : batch) bufs.push_back(session_->client().buffer_from_host(a));
  std::vector<const Buffer*> args = params;
  for (const auto& b : bufs) args.push_back(&b);
  std::vector<Array> out;
  for (const auto& b : exe_->execute(args)) out.push_back(b.to_host());
  return out;
}

}  // namespace hhlo::nn
