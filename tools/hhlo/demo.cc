// `hhlo demo [--model mlp|cnn] [--epochs N] [--seed S] [--batch B] [--lr LR] [--save F] [--load F]
// [--devices N]`: the main job — train a classifier on the UCI digits data through the EDSL,
// autodiff and the CPU plugin (hhlo::demo::run, src/nn/demo.cc).
#include "hhlo/train/demo.h"

#include <iostream>
#include <memory>

#include "commands.h"

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
      sub.add_option("--save", o->save, "Write the trained parameters to this .npz");
      CLI::Option* load =
          sub.add_option("--load", o->load, "Start from the parameters in this .npz")
              ->check(CLI::ExistingFile);
      sub.add_flag("--eval-only", o->evaluate_only, "Only evaluate (with --load)")->needs(load);
      sub.add_option("--data", o->data, "Digits gzip CSV")->check(CLI::ExistingFile);
      sub.add_option("--devices", o->devices,
                     "Train data-parallel over N devices (the batch split over them)")
          ->check(CLI::PositiveNumber);
      sub.add_flag("!--no-progress", o->progress, "One line per epoch, no progress bar");
      return [o] {
        demo::Result r = demo::run(*o, std::cout);
        return r.test_accuracy > 0 ? 0 : 1;
      };
    },
});

}  // namespace
}  // namespace hhlo::cli
