// The input stage of `hhlo run`, `bench` and `tune`, which needs no plugin: the subcommand's
// options, the program file's bytes, the .npy/.npz inputs (or zeros of the program's input
// types) and the hhlo::load options they give. Shared by run.cc, bench.cc, tune.cc and the CLI
// fuzz target (tests/fuzz/targets/cli.cc), which calls it in-process.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/program/load.h"
#include "hhlo/program/program.h"
#include "hhlo/runtime/compile_cache.h"
#include "load_flags.h"
#include "run_npz.h"

namespace hhlo::cli {

/// The options of `hhlo run`, as parsed from the command line: the loading flags and its own.
struct RunOptions : LoadFlags {
  /// --input: FILE.npy, NAME=FILE.npy or one FILE.npz (read_inputs).
  std::vector<std::string> inputs;
  std::string output_dir;
  /// True when --output-dir was given (an empty value is then refused, not ignored).
  bool output_dir_given = false;
  int repeat = 0;
  /// --timeout: seconds allowed for compiling and executing (0 = no bound), deadline.h.
  double timeout = 0;
  bool json = false;
};

/// Adds the `--timeout SECONDS` option (a positive number; deadline.h) to `sub`, storing into
/// `seconds`.
void add_timeout_option(CLI::App& sub, double& seconds);

/// Adds the options of `hhlo run` to `sub` (add_load_flags and its own), storing into `o`
/// (which must outlive the parse).
void add_run_options(CLI::App& sub, RunOptions& o);

/// What `hhlo run`, `bench` and `tune` have read before they load a plugin.
struct RunInputs {
  /// The program file's bytes (text, bytecode or a jax.export artifact), read once.
  std::string bytes;
  /// The program read from `bytes` (ensure_program), when it had to be (inputs by name whose
  /// names the cache did not remember, zeros of its input types); hhlo::load takes it.
  std::optional<Program> program;
  /// What hhlo::load is asked for: the loading flags, the program prepared for the input types.
  LoadOptions load;
  /// The inputs, in order (every flat input of a jax.export artifact), and a label for each in
  /// messages (read_inputs; "input K (zeros)" for zeros).
  std::vector<Array> inputs;
  std::vector<std::string> labels;
  /// The argument and result names of the entry (io_names of the program), for .npz members and
  /// inputs given by name; empty when the inputs are .npy files in order (not needed).
  IoNames io;
};

/// Frees the program's bytes and module of `in` once it is loaded (a warm run of a model with its
/// weights inside holds them twice otherwise: the file's copy and the executable's).
void release_program(RunInputs& in);

/// True when `specs` (--input values) give the inputs by name: one .npz, or NAME=FILE.
bool inputs_by_name(const std::vector<std::string>& specs);

/// Reads the program file's bytes and the inputs `specs` of `f` (read_inputs: .npy files,
/// NAME=FILE, or one .npz by argument name; with none and `zeros_when_none`, zeros of each of the
/// program's input types, static_input_types), and the load options for their types. The
/// program is read (ensure_program) only when the inputs are given by name and `cache` (if not
/// null) does not remember its names (find_names; they are remembered then), or for zeros.
/// Throws hhlo::IoError for a missing, unreadable or blank program or input file, hhlo::Error
/// as read_inputs and ensure_program do, and for zeros of an input of dynamic shape; loads no
/// plugin.
RunInputs read_run_inputs(const LoadFlags& f, const std::vector<std::string>& specs,
                          CompileCache* cache, bool zeros_when_none);

/// read_run_inputs of `hhlo run`'s inputs (no zeros).
RunInputs load_run_inputs(const RunOptions& o, CompileCache* cache = nullptr);

/// The program of `in`, read from `in.bytes` (verified, with `f`'s name and VJP order) on first
/// use. Throws hhlo::Error "cannot compile 'PATH': ..." with our reader's message.
Program& ensure_program(const LoadFlags& f, RunInputs& in);

/// Keeps of `in.inputs` and `in.labels` the inputs the prepared program's `@main` takes
/// (PreparedFacts::kept_inputs: a jax.export drops unused inputs), moving the arrays.
void keep_module_inputs(const PreparedFacts& program, RunInputs& in);

}  // namespace hhlo::cli
