// The flags that feed hhlo::load (hhlo/program/load.h), declared once for `hhlo run`, `bench`
// and `tune`, and the one call of load the CLI makes, its messages naming the program file.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hhlo/core/tensor_type.h"
#include "hhlo/program/load.h"

namespace hhlo::cli {

/// The loading flags of a subcommand, as parsed.
struct LoadFlags {
  /// The program file (text, MLIR bytecode or a jax.export artifact).
  std::string program;
  /// --platform: the plugin's platform.
  std::string platform = "cpu";
  /// --execution: "" (not given: the tuned choice's mode, else async), "async" or "sync".
  std::string execution;
  /// --xla-option NAME=VALUE, in order.
  std::vector<std::string> xla_options;
  /// --entry and --export-platforms (comma separated).
  std::string entry, export_platforms;
  /// --custom-call-library, in order.
  std::vector<std::string> custom_call_libraries;
  /// --vjp-order: for a jax.export artifact, its K-th VJP (ReadProgramOptions::vjp_order).
  int vjp_order = 0;
  /// --onednn-convolution, --onednn-dot-general, --onednn-threads (PrepareOptions::onednn).
  OneDnnOps onednn;
  /// --unroll-loops (PrepareOptions::unroll_loops).
  int unroll_loops = 0;
  /// --hoist-constants BYTES (PrepareOptions::hoist_constants_min_bytes).
  int64_t hoist_constants = 0;
};

/// Which loading flags a subcommand takes.
enum class LoadFlagSet {
  /// Every one (`hhlo run`, `hhlo bench`).
  all,
  /// Those `hhlo tune` takes: not --platform (it tunes the CPU client), nor --execution,
  /// --onednn-* and --unroll-loops (what it chooses).
  tune,
};

/// Adds the positional program and the loading flags of `set` to `sub`, storing into `flags`
/// (which must outlive the parse).
void add_load_flags(CLI::App& sub, LoadFlags& flags, LoadFlagSet set = LoadFlagSet::all);

/// Adds to `sub` the flags `--onednn-convolution` and `--onednn-dot-general` (PrepareOptions::
/// onednn: the convolutions and dot_generals oneDNN serves run as its kernels, kernels/onednn)
/// and `--onednn-threads N` (OneDnnOps::threads, needs one of the flags), storing into `ops`.
void add_onednn_option(CLI::App& sub, OneDnnOps& ops);

/// Adds `--unroll-loops K` to `sub` (PrepareOptions::unroll_loops: counted loops unrolled by up
/// to K iterations per body, K >= 2), storing into `factor`.
void add_unroll_option(CLI::App& sub, int& factor);

/// Adds `--hoist-constants BYTES` to `sub` (PrepareOptions::hoist_constants_min_bytes: the
/// constants of `@main` of at least BYTES bytes kept out of the executable, bound to it once as
/// device buffers), storing into `min_bytes`.
void add_hoist_option(CLI::App& sub, int64_t& min_bytes);

/// Adds `--execution async|sync` to `sub`, storing into `mode`; returns it.
CLI::Option* add_execution_option(CLI::App& sub, std::string& mode);

/// `--execution async|sync` (`hhlo demo`): the client create options of that mode on `platform`.
/// Throws hhlo::Error for `sync` on another platform than "cpu" and for an unknown mode.
std::vector<ClientOption> execution_options(const std::string& mode, const std::string& platform);

/// CompileOptions with each `--xla-option NAME=VALUE` applied over the defaults (VALUE parsed by
/// parse_xla_option_value). Throws hhlo::Error naming an option that is not NAME=VALUE.
CompileOptions compile_options(const std::vector<std::string>& xla_options);

/// The hhlo::load options of `flags`, the program prepared for `arg_types` (nullopt: not
/// refined). Throws hhlo::Error for an --xla-option that is not NAME=VALUE.
LoadOptions load_options(const LoadFlags& flags, std::optional<std::vector<TensorType>> arg_types);

/// `message` (a compile error) with the plugin's name for the program text, "-" at the start of
/// a diagnostic position ("-:2:25: error: ..."), replaced by `program` (the file's path), so the
/// user is pointed into the file they gave. Other "-" are left alone.
std::string name_program_in(std::string message, const std::string& program);

/// Splits "cpu,cuda" at commas (empty items dropped).
std::vector<std::string> split_list(const std::string& list);

/// hhlo::load of the program `path` (its `bytes` already read; `read`, if it holds the program
/// already read from them, is used and emptied) with `options` through `cache`, its errors
/// worded for the command line: "cannot compile 'PATH': ..." for what the readers, the program
/// stage or the plugin refuse (the plugin's positions pointing into PATH), "'PATH' does not
/// accept inputs of shapes ...: JAX's message" for a failed shape assertion, "'PATH' does not
/// accept these inputs: ..." for inputs the program stage refuses; hhlo::IoError, the
/// verifier's refinement errors (hhlo::ShapeError) and the client's errors as they are.
Loaded load_program(const std::string& path, std::string_view bytes, const LoadOptions& options,
                    CompileCache& cache, std::optional<Program>* read = nullptr);

}  // namespace hhlo::cli
