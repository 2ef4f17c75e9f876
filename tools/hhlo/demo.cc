// `hhlo demo [--model mlp|cnn] [--epochs N] [--seed S] [--batch B] [--lr LR] [--save F] [--load F]
// [--devices N] [--mpi [--mpi-unchecked] [--mpi-timeout S]] [--execution async|sync]
// [--onednn-convolution] [--onednn-dot-general] [--onednn-threads N] [--xla-convolutions]`: the
// main job
// — train a classifier on the UCI digits data through the EDSL, autodiff and the CPU plugin
// (hhlo::demo::run, src/train/demo.cc). `mpirun -np 4 hhlo demo --mpi` trains data-parallel over 4
// processes (docs/distributed.md).
#include "hhlo/train/demo.h"

#include <chrono>
#include <iostream>
#include <memory>

#include "commands.h"
#include "hhlo/core/error.h"
#include "hhlo/onednn/kernels.h"
#include "hhlo/session.h"
#include "run_input.h"
#include "time_limit.h"
#ifdef HHLO_CLI_HAS_MPI
#include "hhlo/mpi/kernels.h"
#endif

namespace hhlo::cli {
namespace {

const bool registered = register_command({
    .name = "demo",
    .description =
        "Train an MLP (or CNN) on the UCI handwritten digits, one compiled step per batch",
    .setup = [](CLI::App& sub) -> Action {
      auto o = std::make_shared<demo::Options>();
      sub.add_option("--model", o->model, "Model to train")->check(CLI::IsMember({"mlp", "cnn"}));
      sub.add_option("--epochs", o->epochs, "Epochs, at least 1 (default: mlp 30, cnn 15)")
          ->check(CLI::Range(1, 1000000));
      sub.add_option("--seed", o->seed, "Seed of the initialization and of the shuffles");
      sub.add_option("--batch", o->batch, "Batch size")->check(CLI::PositiveNumber);
      sub.add_option("--lr", o->lr, "Adam learning rate (default 0.002)")
          ->check(CLI::PositiveNumber);
      sub.add_option("--save", o->save,
                     "Write the trained parameters to this file: .safetensors, else .npz");
      CLI::Option* load =
          sub.add_option("--load", o->load,
                         "Start from the parameters in this .npz or .safetensors file")
              ->check(CLI::ExistingFile);
      sub.add_flag("--eval-only", o->evaluate_only, "Only evaluate (with --load)")->needs(load);
      sub.add_option("--data", o->data, "Digits gzip CSV")->check(CLI::ExistingFile);
      sub.add_option("--devices", o->devices,
                     "Train data-parallel over N devices (the batch split over them)")
          ->check(CLI::PositiveNumber);
      auto mpi = std::make_shared<bool>(false), unchecked = std::make_shared<bool>(false);
      CLI::Option* mpi_flag = sub.add_flag(
          "--mpi", *mpi,
          "Train data-parallel over the MPI processes of the job (mpirun -np P hhlo demo --mpi): "
          "the batch split over them, gradients averaged by MPI inside the step");
      sub.add_flag("--mpi-unchecked", *unchecked,
                   "With --mpi: skip the check that every rank runs the same collective")
          ->needs(mpi_flag);
      auto timeout = std::make_shared<double>(120);
      sub.add_option("--mpi-timeout", *timeout,
                     "With --mpi: seconds every rank may be late at a collective, and a "
                     "collective may take, before the job is ended naming the rank (checked "
                     "mode; default 120; inf: no bound)")
          ->check(time_limit_validator())
          ->needs(mpi_flag);
      sub.add_flag("!--no-progress", o->progress, "One line per epoch, no progress bar");
      auto execution = std::make_shared<std::string>("async");
      auto execution_given = std::make_shared<bool>(false);
      add_execution_option(sub, *execution)
          ->each([execution_given](const std::string&) { *execution_given = true; })
          ->description(
              "async (XLA's thread pool runs each execution) or sync (the calling thread runs "
              "it; CPU only). Default: sync on one device, measured faster for both models' "
              "steps (docs/benchmarks.md, \"Training step\"); async on several");
      auto onednn = std::make_shared<OneDnnOps>();
      add_onednn_option(sub, *onednn);
      auto xla_convolutions = std::make_shared<bool>(false);
      sub.add_flag("--xla-convolutions", *xla_convolutions,
                   "Run the CNN's convolutions as XLA's own (the default on one device is "
                   "oneDNN's kernel on the calling thread, measured faster: docs/benchmarks.md, "
                   "\"Training step\")")
          ->excludes(sub.get_option("--onednn-convolution"))
          ->excludes(sub.get_option("--onednn-threads"));
      return [o, mpi, unchecked, timeout, execution, execution_given, onednn, xla_convolutions] {
        // One device defaults to the synchronous client: each step's execution, its loss copy
        // (and with --mpi its allreduce) on the calling thread, measured faster for the MLP's
        // and the CNN's steps (docs/benchmarks.md, "Training step") and with MPI on 1, 2 and 4
        // processes ("MPI allreduce across processes"). Several devices keep XLA's pool.
        if (!*execution_given && o->devices == 1) *execution = "sync";
        // And the CNN on one device (no MPI) to oneDNN's convolutions on the calling thread:
        // its step measured 0.75-0.93x JAX's against 1.00-1.51x with XLA's ("Training step").
        if (o->model == "cnn" && o->devices == 1 && !*mpi && !onednn->any() && !*xla_convolutions)
          *onednn = OneDnnOps{.convolution = true, .threads = 1};
        // --execution sync or --onednn-*: a session of its own (on a synchronous CPU client; with
        // the convolutions and/or dot_generals of every step and evaluation as oneDNN's kernels).
        std::unique_ptr<Session> own;
        if (*execution != "async" || onednn->any()) {
          Client client = Client::create("cpu", execution_options(*execution, "cpu"));
          if (onednn->any()) register_onednn_kernels(client);
          own = std::make_unique<Session>(std::move(client),
                                          CompileCacheOptions::from_environment(), *onednn);
        }
        o->session = own.get();
        [[maybe_unused]] Session& session = own ? *own : default_session();
        if (*mpi) {
#ifdef HHLO_CLI_HAS_MPI
          // Collective: every rank registers, then learns its place in the job.
          register_mpi_kernels(session.client());
          hhlo::mpi::set_checked(!*unchecked);
          // Saturated and rounded up (time_limit.h): 1e10 s wrapped the deadline into the past,
          // 0.0001 s truncated to a refused 0 ms.
          hhlo::mpi::set_timeout(to_milliseconds(*timeout));
          o->processes = hhlo::mpi::world_size();
          o->rank = hhlo::mpi::world_rank();
#else
          throw Error(
              "--mpi: this hhlo was built without MPI (CMake found no MPI; scripts/setup.sh "
              "installs Open MPI)");
#endif
        }
        demo::Result r = demo::run(*o, std::cout);
        return r.test_accuracy > 0 ? 0 : 1;
      };
    },
});

}  // namespace
}  // namespace hhlo::cli
