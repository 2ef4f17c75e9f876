// The train layer (above session and nn): running models on a device through the runtime.
// A training step compiled as ONE executable (forward, backward, optimizer update) whose
// parameters and optimizer state stay on the device between steps: @main takes (params...,
// state..., batch...) and returns (params..., state..., loss); every parameter and state argument
// carries `tf.aliasing_output = i`, so PJRT donates its buffer to the matching output and a step
// moves only the batch in and the scalar loss out.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hhlo/autodiff/params.h"
#include "hhlo/ir/module.h"
#include "hhlo/nn/optim.h"
#include "hhlo/runtime/buffer.h"
#include "hhlo/runtime/executable.h"
#include "hhlo/session.h"

namespace hhlo::nn {

/// A scalar loss of the parameters and the batch inputs, built in the step function.
using BatchLossFn = std::function<Value(const ad::Params& params, const std::vector<Value>& batch)>;
/// Outputs of a model for evaluation, built in an evaluation function.
using BatchFn =
    std::function<std::vector<Value>(const ad::Params& params, const std::vector<Value>& batch)>;

/// Builds the training-step module described above (exposed for tests and benchmarks).
/// Parameters and state are in name order. Throws what the loss, grad and optimizer builders throw.
/// With `data_parallel_devices` N > 1 the module is written for the global batch and annotated
/// for XLA's SPMD partitioner: a mesh @batch = <["batch"=N]>, every batch argument split on
/// its first dimension over "batch", parameters, state and every result replicated, and
/// `mhlo.num_partitions = N`; the partitioner inserts the gradient all-reduce.
/// With `mpi_processes` P > 1 the module is written for this process's share of the batch
/// (`batch_types` are the per-process shapes) and the gradients and the loss are averaged over
/// the P processes inside the step, before the optimizer update: per dtype, one
/// hhlo::mpi::allreduce (sum, over Comm::groups({{0, ..., P-1}}), so a job of another size is
/// refused at run time) of every gradient flattened and concatenated with the loss, then divided
/// by P. With equal shares this is the gradient of the mean loss over the global batch.
/// With both N > 1 and P > 1 (the hybrid) `batch_types` are the process's share, split over its
/// N devices as above, and the averaging runs on every device inside an sdy.manual_computation
/// over "batch" (N MPI calls per process, all carrying the same replica): one allreduce in f64
/// when any gradient is f64, else in f32, converted back after. Throws hhlo::Error when either
/// count is below 1, and in the hybrid when a gradient or the loss is not a real floating-point
/// type.
Module build_train_step(const BatchLossFn& loss, const ad::ParamArrays& params,
                        const ad::ParamArrays& state, const Optimizer& opt,
                        const std::vector<TensorType>& batch_types, int data_parallel_devices = 1,
                        int mpi_processes = 1);

/// How a Trainer splits each batch. Both 1: one device of one process.
struct DataParallel {
  /// Devices of this process (SPMD, XLA's partitioner; see the Trainer constructor taking
  /// `int devices`). At least 1.
  int devices = 1;
  /// MPI processes (ranks of MPI_COMM_WORLD; launch with `mpirun -np P`). With P > 1 every
  /// process runs its own Trainer on its own share of the global batch (the batch types and the
  /// arrays given to step() are the per-process shapes: global batch / P rows), and the step
  /// averages the gradients and the loss over the processes with hhlo::mpi::allreduce inside
  /// the compiled executable (build_train_step). Parameters and optimizer state stay equal on
  /// every process. Needs the MPI kernels registered on the session's client first
  /// (register_mpi_kernels in hhlo/mpi/kernels.h, library hhlo_mpi) and P equal to
  /// hhlo::mpi::world_size(). At least 1.
  int processes = 1;
};

/// Owns the device copies of parameters and optimizer state and the compiled step.
class Trainer {
 public:
  /// Compiles the step for `batch_types` and uploads `init` and opt.init(init) to device 0 of
  /// `session`'s client. Throws hhlo::PjrtError when compilation fails.
  Trainer(BatchLossFn loss, const ad::ParamArrays& init, Optimizer opt,
          std::vector<TensorType> batch_types, Session& session = default_session());
  /// Data-parallel over the first `devices` devices of `session`'s client: the step is compiled
  /// with SPMD partitioning (num_partitions = devices, Shardy), each batch is split over the
  /// devices on its first dimension, parameters and optimizer state are replicated (one copy
  /// per device, donated per shard each step) and the gradients are summed by the collectives
  /// the partitioner inserts. devices = 1 is the single-device trainer. Throws ShardingError
  /// when a batch's first dimension is not divisible by `devices` or the client has fewer
  /// devices, hhlo::PjrtError when compilation fails.
  Trainer(BatchLossFn loss, const ad::ParamArrays& init, Optimizer opt,
          std::vector<TensorType> batch_types, int devices, Session& session = default_session());
  /// Data-parallel over `dp.devices` devices of this process and `dp.processes` MPI processes
  /// (DataParallel). With dp.processes = 1 this is the constructor above taking `int devices`.
  /// With dp.processes > 1: `batch_types` are this process's share of the batch, and
  /// step() returns the loss averaged over the processes; every process must construct its
  /// Trainer with the same arguments (the programs must match) and run the same steps. With both
  /// above 1 (the hybrid), each process's share is split over its dp.devices devices (SPMD, as
  /// the `int devices` constructor) and the average over processes is taken on every device
  /// (build_train_step). Throws hhlo::Error when dp.processes or dp.devices < 1, ShardingError
  /// as the `int devices` constructor (a device count that does not divide the share, or more
  /// devices than the client has); hhlo::PjrtError when compilation fails
  /// (e.g. the MPI kernels are not registered) and, at step(), when the job's world size is not
  /// dp.processes (the MPI kernels refuse the communicator).
  Trainer(BatchLossFn loss, const ad::ParamArrays& init, Optimizer opt,
          std::vector<TensorType> batch_types, DataParallel dp,
          Session& session = default_session());
  /// One step on host batch arrays (uploaded, not donated); returns the loss (with MPI
  /// processes, the mean over the processes of their losses).
  /// Throws hhlo::Error when the batch does not match the compiled types.
  float step(const std::vector<Array>& batch);
  /// One step on device batch buffers; returns the loss buffer (not yet copied to host).
  /// Single-device trainers only (throws hhlo::Error for a data-parallel one: use step()).
  Buffer step_on_device(const std::vector<const Buffer*>& batch);
  /// Number of devices the step runs on (1, or the data-parallel count).
  int devices() const { return devices_; }
  /// Number of MPI processes the gradients are averaged over (1: none).
  int processes() const { return processes_; }
  /// Number of steps run.
  int64_t steps() const { return steps_; }
  /// Current parameters copied to the host.
  ad::ParamArrays params() const;
  /// Device buffers of the parameters, in name order (for evaluation executables); for a
  /// data-parallel trainer, the replica on the first device.
  std::vector<const Buffer*> param_buffers() const;
  /// Names of the parameters, in the order of param_buffers().
  const std::vector<std::string>& param_names() const { return param_names_; }
  /// Replaces the parameters (e.g. loaded from a checkpoint); shapes must match.
  void set_params(const ad::ParamArrays& params);
  /// MLIR text of the compiled step.
  const std::string& mlir() const { return mlir_; }
  /// The client the buffers live on (to upload batches for step_on_device).
  const Client& client() const { return session_->client(); }

 private:
  Session* session_;
  std::vector<std::string> param_names_, state_names_;
  std::vector<TensorType> param_types_;
  std::vector<Buffer> params_, state_;
  int devices_ = 1;
  int processes_ = 1;
  std::vector<ShardedArray> sparams_, sstate_;  // data-parallel: replicated over the devices
  std::string mlir_;
  const LoadedExecutable* exe_ = nullptr;
  /// The SPMD step over devices_ devices (and processes_ MPI processes): compiles, uploads.
  void init_sharded(const BatchLossFn& loss, const ad::ParamArrays& init, const Optimizer& opt,
                    const std::vector<TensorType>& batch_types);
  int64_t steps_ = 0;
};

/// Compiles `fn` over (params in name order, batch...) for evaluation and runs it on parameter
/// buffers without donating them.
class Evaluator {
 public:
  Evaluator(BatchFn fn, const ad::ParamArrays& like, std::vector<TensorType> batch_types,
            Session& session = default_session());
  /// Runs on device parameter buffers (in name order) and host batch arrays; returns host outputs.
  std::vector<Array> run(const std::vector<const Buffer*>& params,
                         const std::vector<Array>& batch) const;

 private:
  Session* session_;
  const LoadedExecutable* exe_ = nullptr;
};

}  // namespace hhlo::nn
