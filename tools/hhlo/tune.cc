// `hhlo tune PROGRAM -i ... [--budget SECONDS] [--xla-option NAME=VALUE ...] [--forget]`: times the
// program on its inputs under the CPU client's execution modes and the XLA option sets of
// tune_option_sets (hhlo/program/tune.h), one line per candidate with its median, keeps the
// fastest whose outputs agree with the defaults', and remembers it in the compile cache beside
// the program's source record, where `hhlo run`, `hhlo bench` and Session find it. `--forget`
// removes that remembered choice.
#include "hhlo/program/tune.h"

#include <fmt/format.h>

#include <memory>
#include <string>

#include "commands.h"
#include "hhlo/program/program_cache.h"
#include "input_check.h"
#include "run_input.h"
#include "run_stage.h"
#include "time_limit.h"

namespace hhlo::cli {
namespace {

struct TuneCliOptions {
  RunOptions run;
  double budget = 30;
  bool forget = false;  ///< remove the remembered choice instead of tuning
};

/// One progress line: the figures first (aligned whatever the candidate's length), then the
/// candidate; or the candidate and why it is not usable.
void print_progress(const TuneTiming& t) {
  if (t.usable)
    fmt::print("  median {:10.1f} us  (min {:.1f}, {} calls)  {}{}\n", t.median_us, t.min_us,
               t.calls, t.candidate.describe(), t.note.empty() ? "" : "; " + t.note);
  else
    fmt::print("  {:>38}  {}: {}\n", "not usable", t.candidate.describe(), t.note);
  std::fflush(stdout);
}

/// The last lines: the choice and its speed-up over the defaults, and where it is remembered.
void print_choice(const TuneResult& r, bool remembered) {
  double speedup = r.choice_median_us > 0 ? r.default_median_us / r.choice_median_us : 1;
  fmt::print("chosen: {} (median {:.1f} us, {:.2f}x the defaults' speed)\n", r.choice.describe(),
             r.choice_median_us, speedup);
  if (remembered)
    fmt::print("remembered in the compile cache: `hhlo run`, `hhlo bench` and Session use it\n");
  else
    fmt::print("not remembered: the compile cache is off or not writable (HHLO_COMPILE_CACHE)\n");
}

int run_tune(const TuneCliOptions& t) {
  const RunOptions& o = t.run;
  if (!(t.budget > 0))
    throw Error(fmt::format("--budget {}: give a positive number of seconds", t.budget));
  CompileCache cache;
  RunInputs in = load_run_inputs(o, &cache);
  std::string source = source_key(in.bytes, o.vjp_order, in.prepare, in.options);
  if (t.forget) {
    bool removed = forget_tuned(cache, tuned_key(source));
    fmt::print("{} {}: run, bench and Session use the defaults\n",
               removed ? "forgot the tuned choice of" : "no tuned choice is remembered for",
               o.program);
    return 0;
  }
  PreparedProgram program = prepare_for_inputs(o, in);
  if (program.num_partitions > 1)
    throw Error(
        fmt::format("'{}' is partitioned over {} devices; hhlo tune times one-device "
                    "programs",
                    o.program, program.num_partitions));
  keep_module_inputs(program, in);
  std::string identity;
  ClientFactory make_client = [&](bool synchronous) {
    RunOptions c = o;
    c.execution = synchronous ? "sync" : "async";
    c.onednn = {.convolution = true, .dot_general = true};  // the oneDNN candidates' kernels
    Client client = client_for_run(c, 1);
    if (identity.empty()) identity = cache.client_identity(client);
    return client;
  };
  fmt::print("tuning {} (budget {} s): median of execute + await, candidate\n", o.program,
             t.budget);
  TuneResult r;
  try {
    r = tune(program, in.inputs, in.options, make_client,
             {.budget_s = t.budget, .try_onednn = true, .progress = print_progress});
  } catch (const PjrtError& e) {
    throw Error(
        fmt::format("cannot compile '{}': {}", o.program, name_program_in(e.what(), o.program)));
  }
  print_choice(r, remember_tuned(cache, tuned_key(source), identity, r));
  return 0;
}

const bool registered = register_command({
    .name = "tune",
    .description =
        "Time a program under the execution modes and XLA CPU option sets; remember the fastest "
        "that agrees with the defaults for run, bench and Session",
    .setup = [](CLI::App& sub) -> Action {
      auto t = std::make_shared<TuneCliOptions>();
      RunOptions& o = t->run;
      sub.add_option("program", o.program,
                     "StableHLO program (.mlir text or bytecode) or jax.export artifact (.jax)")
          ->required();
      sub.add_option("--input,-i", o.inputs,
                     "Inputs as for `hhlo run` (.npy in order, NAME=FILE.npy, or one .npz); the "
                     "choice is remembered for inputs of these types")
          ->allow_extra_args(false);  // one file per -i: a mistyped flag is never an input
      sub.add_option("--budget", t->budget,
                     "Seconds for the whole tuning (default 30; inf: no bound but each "
                     "candidate's call count); candidates past it are skipped")
          ->check(time_limit_validator());
      sub.add_flag("--forget", t->forget,
                   "Remove the choice remembered for this program, inputs and options instead "
                   "of tuning (run, bench and Session then use the defaults)");
      sub.add_option("--entry", o.entry,
                     "Public function to run (default: @main, or the only public function)");
      sub.add_option("--export-platforms", o.export_platforms,
                     "For a multi-platform jax.export: its platforms in order (e.g. cpu,cuda)");
      sub.add_option("--vjp-order", o.vjp_order, "For a jax.export artifact: tune its K-th VJP")
          ->check(CLI::Range(0, 64));
      sub.add_option("--custom-call-library", o.custom_call_libraries,
                     "Kernel library (.so) whose targets to register, repeatable")
          ->allow_extra_args(false);
      sub.add_option("--xla-option", o.xla_options,
                     "XLA option NAME=VALUE the candidates start from (as for `hhlo run`, which "
                     "finds the choice when given the same ones), repeatable")
          ->allow_extra_args(false);
      return [t] { return run_tune(*t); };
    },
});

}  // namespace
}  // namespace hhlo::cli
