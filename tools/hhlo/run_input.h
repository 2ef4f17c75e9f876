// The input stage of `hhlo run`, which needs no plugin: the subcommand's options, reading the
// program, --xla-option values, the entry and export platforms, the partition count, and the
// .npy/.npz inputs. Shared by run.cc and the CLI fuzz target (tests/fuzz/targets/cli.cc), which
// calls it in-process.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/program/program.h"
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

/// Adds the `--timeout SECONDS` option (a positive number; deadline.h) to `sub`, storing into
/// `seconds`.
void add_timeout_option(CLI::App& sub, double& seconds);

/// Adds the options of `hhlo run` to `sub`, storing into `o` (which must outlive the parse).
void add_run_options(CLI::App& sub, RunOptions& o);

/// CompileOptions with each `--xla-option NAME=VALUE` applied over the defaults (VALUE parsed by
/// parse_xla_option_value: true/false, integer, decimal number, else string). Throws hhlo::Error
/// naming an option that is not NAME=VALUE.
CompileOptions compile_options(const std::vector<std::string>& xla_options);

/// The program file `path` read once (read_program_file, verified). Throws hhlo::IoError when it
/// is missing, not a regular file, unreadable or blank, and hhlo::Error "cannot compile 'PATH':
/// ..." with our reader's message (the line and column in PATH, or the byte offset and section of
/// bytecode) for a program it refuses.
Program read_program(const std::string& path);

/// `message` (a compile error) with the plugin's name for the program text, "-" at the start of
/// a diagnostic position ("-:2:25: error: ..."), replaced by `program` (the file's path), so the
/// user is pointed into the file they gave. Other "-" are left alone.
std::string name_program_in(std::string message, const std::string& program);

/// Splits "cpu,cuda" at commas (empty items dropped).
std::vector<std::string> split_list(const std::string& list);

/// What `hhlo run` has read before it loads a plugin.
struct RunInputs {
  /// The program, read once (text or bytecode).
  Program program;
  /// The compile options: --xla-option values (entry and platforms are in `prepare`).
  CompileOptions options;
  /// How the program stage prepares it: --entry, --export-platforms, --platform and the input
  /// types (arg_types) to refine a shape-polymorphic entry to.
  PrepareOptions prepare;
  /// The --input arrays, in order.
  std::vector<Array> inputs;
  /// The argument and result names of the entry (io_names), for .npz members.
  IoNames io;
};

/// Reads the program once (read_program), the compile options and the inputs (read_inputs: .npy
/// files, or one .npz by argument name) of `o`. Throws hhlo::Error / hhlo::IoError as those do;
/// loads no plugin.
RunInputs load_run_inputs(const RunOptions& o);

}  // namespace hhlo::cli
