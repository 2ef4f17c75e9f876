// The main job: train a classifier on the UCI digits data through the EDSL, autodiff and the CPU
// plugin, with the whole training step one compiled executable (hhlo/train/trainer.h). `hhlo demo`
// calls demo::run.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace hhlo {
class Session;
}

namespace hhlo::demo {

/// Options of the demo (CLI: --model, --epochs, --seed, --batch, --lr, --save, --load, --data,
/// --devices, --mpi).
struct Options {
  /// "mlp" (64-256-10, ReLU) or "cnn" (two 3x3 conv + max-pool blocks, then dense).
  std::string model = "mlp";
  /// Epochs; 0 picks the model's default (mlp 30, cnn 15).
  int epochs = 0;
  /// Seed of the parameter initialization and of the per-epoch shuffles (the train/test split
  /// is fixed: seed 0, 360 test images).
  uint64_t seed = 0;
  int64_t batch = 32;
  /// Adam learning rate; 0 picks the model's default.
  double lr = 0;
  /// Write the trained parameters to this file after training (empty: do not): a safetensors
  /// file when it ends in ".safetensors", else an .npz (nn::save_params).
  std::string save;
  /// Start from the parameters in this .npz or .safetensors file (nn::load_params; empty: fresh
  /// initialization). With epochs 0 given
  /// explicitly through `evaluate_only`, only evaluates.
  std::string load;
  /// Skip training (evaluate the loaded parameters).
  bool evaluate_only = false;
  /// The digits gzip CSV; empty: `data/digits.csv.gz` in share_dirs() (hhlo/core/paths.h), i.e.
  /// P/share/hhlo/data of the installed package or the build tree's link to the set-up folder.
  std::string data;
  /// Devices to train on, data-parallel (the batch, or with `processes` > 1 each process's share,
  /// split over them; must divide it and be at most the client's device count, 4 on the CPU
  /// plugin). 1: one device.
  int devices = 1;
  /// MPI processes to train over, data-parallel (hhlo::nn::DataParallel::processes): each global
  /// batch of `batch` images is split into `processes` equal shares by rank, each process steps
  /// on its share and the step averages the gradients over the processes with MPI inside the
  /// compiled executable. Must divide `batch`, equal hhlo::mpi::world_size() and, above 1, come
  /// with the MPI kernels registered on default_session()'s client (`hhlo demo --mpi` does both:
  /// tools/hhlo/demo.cc). With `devices` D > 1 too (the hybrid `--devices D --mpi`), each
  /// process's share is split over its D devices: D must divide batch / processes. 1: no MPI.
  int processes = 1;
  /// This process's rank (hhlo::mpi::world_rank()), 0 .. processes-1: which share of each batch
  /// it trains on. Only rank 0 writes to `out` and saves (--save); every rank returns the same
  /// Result (the losses are averaged over the processes, the parameters equal).
  int rank = 0;
  /// Draw a progress bar (when false, one line per epoch only).
  bool progress = true;
  /// The session (and so the client) to train and evaluate on; null: default_session(), the
  /// CPU plugin's default asynchronous client. `hhlo demo --execution sync` passes a session
  /// on a synchronous CPU client (execution_client_options(true), hhlo/runtime/client.h), which
  /// runs each step on the calling thread (docs/benchmarks.md, "Execution mode", says when that
  /// is faster). With `processes` > 1 the MPI kernels must be registered on its client.
  Session* session = nullptr;
};

/// Per-epoch figures.
struct EpochStats {
  double loss = 0, train_accuracy = 0, test_accuracy = 0, seconds = 0;
};

/// What a run achieved.
struct Result {
  std::vector<EpochStats> epochs;
  double test_accuracy = 0;
  /// Wall time from start (data loading, compilation included) to the final accuracy.
  double wall_seconds = 0;
  /// Median time of one training step (execute + loss to host), seconds.
  double step_seconds = 0;
  /// The loss of every training step, in order (the mean over the global batch).
  std::vector<double> losses;
};

/// Runs the demo, printing progress to `out` (rank 0 only). Throws, before anything is printed,
/// hhlo::Error on bad options (unknown model, a batch, device or process count below 1, a rank
/// outside 0 .. processes-1) and ShardingError (dimension 0, axis "batch") when the process
/// count does not divide the batch or the device count does not divide each process's share;
/// hhlo::IoError on missing data or checkpoint files; ShardingError when the client has fewer
/// devices than asked; and what compilation throws.
Result run(const Options& options, std::ostream& out);

}  // namespace hhlo::demo
