// `hhlo tune PROGRAM -i ... [--budget SECONDS] [--loaded-workers N] [--json] [--xla-option
// NAME=VALUE ...] [--forget]`: times the program on its inputs under the CPU client's execution
// modes and the XLA option sets of tune_option_sets (hhlo/program/tune.h), one line per candidate
// with its median, confirms the fastest against the defaults idle and with N busy processes on
// the cores (tune_report.h prints both columns), keeps the fastest whose outputs agree with the
// defaults' and that holds under load, and remembers it in the compile cache beside
// the program's source record, where `hhlo run`, `hhlo bench` and Session find it. `--forget`
// removes that remembered choice.
#include "hhlo/program/tune.h"

#include <fmt/format.h>

#include <memory>
#include <optional>
#include <string>

#include "commands.h"
#include "deadline.h"
#include "hhlo/program/load.h"
#include "input_check.h"
#include "load_flags.h"
#include "run_input.h"
#include "time_limit.h"
#include "tune_report.h"

namespace hhlo::cli {
namespace {

struct TuneCliOptions {
  RunOptions run;
  double budget = 30;
  bool forget = false;  ///< remove the remembered choice instead of tuning
  /// TuneOptions::loaded_workers: busy processes of the loaded confirmation (0: none).
  int loaded_workers = default_loaded_workers();
  bool json = false;  ///< one JSON object instead of the lines
};

/// The program of `in` prepared as hhlo::load prepares it for `in.load` (read once).
PreparedProgram prepare_for_tune(const RunOptions& o, RunInputs& in) {
  Program& program = ensure_program(o, in);
  try {
    return prepare_program(std::move(program), in.load.prepare);
  } catch (const ShapeError&) {
    throw;
  } catch (const Error& e) {  // the entry, the platform index, the inputs against the avals
    throw Error(fmt::format("cannot compile '{}': {}", o.program, e.what()));
  }
}

int run_tune(const TuneCliOptions& t) {
  const RunOptions& o = t.run;
  if (!(t.budget > 0))
    throw Error(fmt::format("--budget {}: give a positive number of seconds", t.budget));
  if (t.loaded_workers < 0 || t.loaded_workers > 256)
    throw Error(
        fmt::format("--loaded-workers {}: give 0 (no loaded confirmation) to 256 busy processes",
                    t.loaded_workers));
  // The tuner plans its candidates within the budget; a call that never ends cannot be cut
  // short (PJRT cannot cancel an execution): the whole command is stopped at twice the budget
  // plus 10 s.
  double bound = 2 * t.budget + 10;
  Deadline deadline(bound, o.program, fmt::format("twice --budget {} s plus 10 s", t.budget));
  CompileCache cache;
  RunInputs in = load_run_inputs(o, &cache);
  std::string key = tuned_key_for(in.bytes, in.load, o.program);
  if (t.forget) {
    bool removed = forget_tuned(cache, key);
    fmt::print("{} {} with these inputs and options: run, bench and Session use the defaults\n",
               removed ? "forgot the tuned choice of" : "no tuned choice is remembered for",
               o.program);
    return 0;
  }
  std::optional<std::vector<TensorType>> types = static_input_types(ensure_program(o, in), o.entry);
  if (in.inputs.empty() && (!types || !types->empty()))
    throw Error(
        fmt::format("'{}' takes inputs: hhlo tune times it on them, give them with -i "
                    "(as for hhlo run)",
                    o.program));
  // As `hhlo run` checks them, before any candidate is compiled (a dynamic entry is refined to
  // the inputs by prepare_for_tune, which refuses those it cannot take).
  if (types) check_inputs(*types, in.inputs, in.labels, o.entry);
  PreparedProgram program = prepare_for_tune(o, in);
  if (program.num_partitions > 1)
    throw Error(
        fmt::format("'{}' is partitioned over {} devices; hhlo tune times one-device "
                    "programs",
                    o.program, program.num_partitions));
  keep_module_inputs(program, in);
  ClientFactory make_candidate_client = [&](bool synchronous) {
    ClientSpec spec = in.load.client;
    spec.execution = synchronous ? ExecutionMode::sync : ExecutionMode::async;
    return make_client(spec, 1, true, o.program);  // with the oneDNN candidates' kernels
  };
  if (!t.json)
    fmt::print("tuning {} (budget {} s): median of execute + await, candidate\n", o.program,
               t.budget);
  TuneOptions options{.budget_s = t.budget, .try_onednn = true};
  options.loaded_workers = t.loaded_workers;
  if (!t.json) options.progress = print_progress;
  TuneResult r;
  try {
    r = tune(program, in.inputs, in.load.compile, make_candidate_client, options);
  } catch (const PjrtError& e) {
    throw Error(
        fmt::format("cannot compile '{}': {}", o.program, name_program_in(e.what(), o.program)));
  }
  std::string plugin = cache.plugin_identity(Plugin::for_platform(in.load.client.platform));
  deadline.disarm();
  bool remembered = remember_tuned(cache, key, plugin, r);
  if (t.json)
    print_json(o.program, t.budget, options.confirm_rounds, r, remembered);
  else
    print_choice(r, remembered);
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
      add_load_flags(sub, o, LoadFlagSet::tune);
      sub.add_option("--input,-i", o.inputs,
                     "Inputs as for `hhlo run` (.npy in order, NAME=FILE.npy, or one .npz); the "
                     "choice is remembered for inputs of these types")
          ->allow_extra_args(false);  // one file per -i: a mistyped flag is never an input
      sub.add_option("--budget", t->budget,
                     "Seconds for the whole tuning (default 30; inf: no bound but each "
                     "candidate's call count); candidates past it are skipped, and a command "
                     "still running at twice it plus 10 s (a call that never ends) is stopped "
                     "with exit status 124")
          ->check(time_limit_validator());
      sub.add_option("--loaded-workers", t->loaded_workers,
                     "Busy processes (each spinning one core) beside the second rotation of the "
                     "confirmation: a candidate is kept only when it is also not slower than the "
                     "defaults with them (default: the online cores; 0: idle rotation only)");
      sub.add_flag("--json", t->json,
                   "Print one JSON object (every timing, the confirmation idle and loaded, the "
                   "choice) instead of the lines");
      sub.add_flag("--forget", t->forget,
                   "Remove the choice remembered for this program, inputs and options instead "
                   "of tuning (run, bench and Session then use the defaults)");
      return [t] { return run_tune(*t); };
    },
});

}  // namespace
}  // namespace hhlo::cli
