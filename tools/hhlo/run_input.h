// The input stage of `hhlo run`, which needs no plugin: the subcommand's options, reading the
// program, --xla-option values, the entry and export platforms, the partition count, and the
// .npy/.npz inputs. Shared by run.cc and the CLI fuzz target (tests/fuzz/targets/cli.cc), which
// calls it in-process.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/ir/module.h"
#include "hhlo/runtime/client.h"
#include "hhlo/runtime/compile_options.h"
#include "run_npz.h"

namespace hhlo::cli {

/// The options of `hhlo run`, as parsed from the command line.
struct RunOptions {
  std::string program;
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
  std::vector<std::string> xla_options;
  std::string entry;
  std::string export_platforms;
  std::vector<std::string> custom_call_libraries;
  bool json = false;
};

/// `--execution async|sync` (`hhlo run`, `hhlo bench`): the client create options of that
/// execution mode. `sync` is the CPU plugin's `asynchronous = false` (PJRT 0.115; the 0.81 plugin
/// ignores it): each execution runs on the calling thread, no hand-off to XLA's pool (measured:
/// a batch-1 MLP call 8.7 us against 30-71 us; large programs unchanged, docs/benchmarks.md).
/// `async` is the plugin's default (no option). Throws hhlo::Error for `sync` on another platform
/// than "cpu" (the CUDA plugin rejects unknown option names) and for an unknown mode.
std::vector<ClientOption> execution_options(const std::string& mode, const std::string& platform);

/// Adds the `--execution` option to `sub`, storing into `mode`.
void add_execution_option(CLI::App& sub, std::string& mode);

/// Adds the options of `hhlo run` to `sub`, storing into `o` (which must outlive the parse).
void add_run_options(CLI::App& sub, RunOptions& o);

/// CompileOptions with each `--xla-option NAME=VALUE` applied over the defaults (VALUE parsed by
/// parse_xla_option_value: true/false, integer, decimal number, else string). Throws hhlo::Error
/// naming an option that is not NAME=VALUE.
CompileOptions compile_options(const std::vector<std::string>& xla_options);

/// The bytes of the program file `path`. Throws hhlo::IoError when it is missing, a directory,
/// unreadable or blank.
std::string read_program(const std::string& path);

/// `message` (a compile error) with the plugin's name for the program text, "-" at the start of
/// a diagnostic position ("-:2:25: error: ..."), replaced by `program` (the file's path), so the
/// user is pointed into the file they gave. Other "-" are left alone.
std::string name_program_in(std::string message, const std::string& program);

/// Splits "cpu,cuda" at commas (empty items dropped).
std::vector<std::string> split_list(const std::string& list);

/// The integer module attribute `mhlo.num_partitions` of `module` (JAX writes it for a program
/// lowered with shardings over N devices); 1 when absent, not an integer, or below 1.
int num_partitions_of(const Module& module);

/// What `hhlo run` has read before it loads a plugin.
struct RunInputs {
  /// The program text (or bytecode) to compile.
  std::string text;
  /// The compile options: --xla-option values, --entry, --export-platforms, and SPMD
  /// partitioning for a program with `mhlo.num_partitions` > 1 (Shardy when it is written in
  /// that dialect).
  CompileOptions options;
  /// The --input arrays, in order.
  std::vector<Array> inputs;
  /// The argument and result names of @main (io_names), for .npz members.
  IoNames io;
};

/// Reads the program (read_program), the compile options and the inputs (read_inputs: .npy
/// files, or one .npz by argument name) of `o`. The text is parsed once (unverified) for both
/// the argument names and `mhlo.num_partitions`; when our parser cannot read the module body
/// (today: a Shardy module's `sdy.mesh` ops), only its header is parsed, for the partition count.
/// MLIR bytecode is read the same way (parse_module). Throws hhlo::Error / hhlo::IoError as those
/// do; loads no plugin.
RunInputs load_run_inputs(const RunOptions& o);

}  // namespace hhlo::cli
