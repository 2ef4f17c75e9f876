// The input stage of `hhlo run`, which needs no plugin: the subcommand's options, reading the
// program, --xla-option values, the entry and export platforms, the partition count, and the
// .npy/.npz inputs. Shared by run.cc and the CLI fuzz target (tests/fuzz/targets/cli.cc), which
// calls it in-process.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/program/program.h"
#include "hhlo/program/tune.h"
#include "hhlo/runtime/client.h"
#include "hhlo/runtime/compile_cache.h"
#include "hhlo/runtime/compile_options.h"
#include "run_npz.h"

namespace hhlo::cli {

/// The options of `hhlo run`, as parsed from the command line.
struct RunOptions {
  std::string program;
  /// --input: FILE.npy, NAME=FILE.npy or one FILE.npz (read_inputs).
  std::vector<std::string> inputs;
  std::string output_dir;
  /// True when --output-dir was given (an empty value is then refused, not ignored).
  bool output_dir_given = false;
  std::string platform = "cpu";
  int repeat = 0;
  /// --timeout: seconds allowed for compiling and executing (0 = no bound), deadline.h.
  double timeout = 0;
  /// --execution: "async" (the plugin's default) or "sync" (execution_options).
  std::string execution = "async";
  /// True when --execution was given: it then wins over a tuned choice's mode (hhlo tune).
  bool execution_given = false;
  std::vector<std::string> xla_options;
  std::string entry;
  std::string export_platforms;
  std::vector<std::string> custom_call_libraries;
  bool json = false;
  /// --vjp-order: for a jax.export artifact, run its k-th VJP (ReadProgramOptions::vjp_order).
  int vjp_order = 0;
  /// --onednn-convolution, --onednn-dot-general, --onednn-threads: PrepareOptions::onednn, the
  /// kernels registered.
  OneDnnOps onednn;
  /// --unroll-loops: PrepareOptions::unroll_loops.
  int unroll_loops = 0;
};

/// `--execution async|sync` (`hhlo run`, `hhlo bench`): the client create options of that
/// execution mode. `sync` is the CPU plugin's `asynchronous = false` (PJRT 0.115; the 0.81 plugin
/// ignores it): each execution runs on the calling thread, no hand-off to XLA's pool (measured:
/// a batch-1 MLP call 8.7 us against 30-71 us; large programs unchanged, docs/benchmarks.md).
/// `async` is the plugin's default (no option). Throws hhlo::Error for `sync` on another platform
/// than "cpu" (the CUDA plugin rejects unknown option names) and for an unknown mode.
std::vector<ClientOption> execution_options(const std::string& mode, const std::string& platform);

/// Adds to `sub` the flags `--onednn-convolution` and `--onednn-dot-general` (PrepareOptions::
/// onednn: the convolutions and dot_generals oneDNN serves run as its kernels, kernels/onednn)
/// and `--onednn-threads N` (OneDnnOps::threads, needs one of the flags), storing into `ops`.
void add_onednn_option(CLI::App& sub, OneDnnOps& ops);

/// Adds `--unroll-loops K` to `sub` (PrepareOptions::unroll_loops: counted loops unrolled by up
/// to K iterations per body, K >= 2), storing into `factor`.
void add_unroll_option(CLI::App& sub, int& factor);

/// Adds the `--execution` option to `sub`, storing into `mode`; returns it.
CLI::Option* add_execution_option(CLI::App& sub, std::string& mode);

/// Adds the `--timeout SECONDS` option (a positive number; deadline.h) to `sub`, storing into
/// `seconds`.
void add_timeout_option(CLI::App& sub, double& seconds);

/// Adds the options of `hhlo run` to `sub`, storing into `o` (which must outlive the parse).
void add_run_options(CLI::App& sub, RunOptions& o);

/// CompileOptions with each `--xla-option NAME=VALUE` applied over the defaults (VALUE parsed by
/// parse_xla_option_value: true/false, integer, decimal number, else string). Throws hhlo::Error
/// naming an option that is not NAME=VALUE.
CompileOptions compile_options(const std::vector<std::string>& xla_options);

/// The program file `path` read once (read_program_file, verified; text, bytecode or a jax.export
/// artifact, its VJP of order `vjp_order`). Throws hhlo::IoError when it is missing, not a
/// regular file, unreadable or blank, and hhlo::Error "cannot compile 'PATH': ..." with our
/// reader's message (the line and column in PATH, or the byte offset and section of bytecode)
/// for a program it refuses.
Program read_program(const std::string& path, int vjp_order = 0);

/// read_program of the bytes of the file `path`, already read.
Program read_program_bytes(std::string_view bytes, const std::string& path, int vjp_order = 0);

/// `message` (a compile error) with the plugin's name for the program text, "-" at the start of
/// a diagnostic position ("-:2:25: error: ..."), replaced by `program` (the file's path), so the
/// user is pointed into the file they gave. Other "-" are left alone.
std::string name_program_in(std::string message, const std::string& program);

/// Splits "cpu,cuda" at commas (empty items dropped).
std::vector<std::string> split_list(const std::string& list);

/// What `hhlo run` has read before it loads a plugin.
struct RunInputs {
  /// The program file's bytes (text, bytecode or a jax.export artifact), read once.
  std::string bytes;
  /// The program read from `bytes` (ensure_program), when it had to be: a cache hit that reads
  /// nothing (hhlo/program/program_cache.h) leaves it empty.
  std::optional<Program> program;
  /// The compile options: --xla-option values (entry and platforms are in `prepare`).
  CompileOptions options;
  /// How the program stage prepares it: --entry, --export-platforms, --platform and the input
  /// types (arg_types) to refine a shape-polymorphic entry to.
  PrepareOptions prepare;
  /// The --input arrays, in order (every flat input of a jax.export artifact), and a label for
  /// each in messages (read_inputs).
  std::vector<Array> inputs;
  std::vector<std::string> labels;
  /// The argument and result names of the entry (io_names of the program), for .npz members and
  /// inputs given by name; empty when the inputs are .npy files in order (not needed).
  IoNames io;
};

/// The bytes of the program file `path`. Throws hhlo::IoError when it is missing, not a regular
/// file, unreadable or blank ("program 'PATH' is empty; ...").
std::string read_program_file_bytes(const std::string& path);

/// True when `specs` (--input values) give the inputs by name: one .npz, or NAME=FILE.
bool inputs_by_name(const std::vector<std::string>& specs);

/// Reads the program file's bytes, the compile options and the inputs (read_inputs: .npy files,
/// NAME=FILE, or one .npz by argument name) of `o`. The program is read (ensure_program) only
/// when the inputs are given by name and `cache` (if not null) does not remember its names
/// (find_names; they are remembered then). Throws hhlo::IoError for a missing, unreadable or
/// blank program or input file, and hhlo::Error as read_inputs and read_program do; loads no
/// plugin.
RunInputs load_run_inputs(const RunOptions& o, CompileCache* cache = nullptr);

/// The program of `in`, read from `in.bytes` (read_program with `o`'s name and VJP order) on
/// first use. Throws hhlo::Error "cannot compile 'PATH': ..." with our reader's message.
Program& ensure_program(const RunOptions& o, RunInputs& in);

/// Keeps of `in.inputs` and `in.labels` the inputs the prepared program's `@main` takes
/// (PreparedFacts::kept_inputs: a jax.export drops unused inputs), moving the arrays.
void keep_module_inputs(const PreparedFacts& program, RunInputs& in);

/// The tuned choice (`hhlo tune`, hhlo/program/tune.h) remembered in `cache` for the run whose
/// source key is `source`, or nullopt. A damaged one is removed and named in one warning line on
/// stderr (damaged_choice_warning, naming `program`). Never throws.
std::optional<RememberedChoice> find_tuned_choice(const std::string& program, CompileCache& cache,
                                                  const std::string& source);

}  // namespace hhlo::cli
