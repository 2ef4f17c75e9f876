// The program stage: the one way in for programs made elsewhere (DESIGN.md "Layers": program).
// A program (StableHLO text, MLIR bytecode) is read once into a Module (read_program), then
// prepared for one platform and one set of argument shapes (prepare_program): entry selection,
// the binding of a multi-platform `jax.export`'s platform index (before refinement, as JAX does),
// shape refinement and the partition count. The runtime compiles what this hands it
// (hhlo/program/compile.h). `hhlo run`, `bench`, `check`, Session and jit all come this way. See
// docs/ir.md "The one way in".
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hhlo/core/tensor_type.h"
#include "hhlo/ir/module.h"

namespace hhlo {

/// The form a program was read from.
enum class ProgramFormat {
  text,      ///< StableHLO / MLIR text (what `jax.export`'s `mlir_module()` prints)
  bytecode,  ///< MLIR bytecode, a StableHLO portable artifact (`mlir_module_serialized`)
};

/// Options of read_program.
struct ReadProgramOptions {
  /// Name of the program in messages and ParseError::source() (e.g. its path).
  std::string source_name = "program";
  /// Verify the module as `hhlo check` does (hhlo/ir/verifier.h, ops of other dialects allowed).
  bool verify = true;
};

/// A program read once: its module and where it came from.
struct Program {
  Module module;
  ProgramFormat format = ProgramFormat::text;
  /// ReadProgramOptions::source_name.
  std::string source_name;
};

/// Reads `bytes`, MLIR bytecode (is_mlir_bytecode: read_bytecode) or else text (parse_module),
/// into a Program. Throws hhlo::ParseError for what our readers refuse (with the line and column,
/// or the byte offset and section for bytecode), hhlo::Error for a call cycle, and
/// hhlo::ShapeError / hhlo::Error when `options.verify` and the verifier rejects the module.
Program read_program(std::string_view bytes, const ReadProgramOptions& options = {});

/// read_program of the file at `path` (read_regular_file; source_name is `path`). Throws
/// hhlo::IoError when the file is missing, not a regular file, unreadable or blank, and what
/// read_program throws.
Program read_program_file(const std::string& path, bool verify = true);

/// The names of a function's arguments and results as JAX gives them: each one's `jax.arg_info` /
/// `jax.result_info` string attribute (JAX's pytree paths, e.g. "x", "params['w']",
/// "result['loss']"), the positional `arg<i>` / `out<i>` where it has none or an empty one, and
/// positional names for all of them when two would be equal.
struct IoNames {
  std::vector<std::string> args, results;
};

/// IoNames of the entry of `module` (`entry` resolved as resolve_entry does: "" is `@main` or the
/// only public function), the platform index of a multi-platform export left out (it is no
/// input); empty lists when there is no such entry. Never throws.
IoNames io_names(const Module& module, std::string_view entry = "");

/// The integer module attribute `mhlo.num_partitions` (JAX writes it for a program lowered with
/// shardings over N devices), clamped to [1, 2^20]; 1 when absent or not an integer.
int num_partitions_of(const Module& module);

/// What prepare_program does to a program.
struct PrepareOptions {
  /// The public function to run: "" is `@main`, else the module's only public function
  /// (resolve_entry in hhlo/ir/entry.h).
  std::string entry;
  /// For a multi-platform `jax.export` (its entry starts with `_platform_index`): the export's
  /// platforms in order (JAX's `Exported.platforms`, e.g. {"cpu", "cuda"}).
  std::vector<std::string> export_platforms;
  /// The platform the program will run on (Client::platform_name(): "cpu", "cuda"); its place in
  /// export_platforms is the bound platform index.
  std::string platform = "cpu";
  /// The argument types to refine a shape-polymorphic entry to (one per argument, the platform
  /// index left out). nullopt: the entry is not refined (a dynamic one then fails in the plugin).
  std::optional<std::vector<TensorType>> arg_types;
};

/// A program prepared for the runtime: what Client::compile takes.
struct PreparedProgram {
  /// The entry as `@main` (select_entry), its platform index bound, refined to
  /// PrepareOptions::arg_types when it had dynamic dimensions.
  Module module;
  /// The entry's name in the program as read (e.g. "main", "predict").
  std::string entry;
  /// Program::source_name.
  std::string source_name;
  /// num_partitions_of the module: more than 1 asks for XLA's SPMD partitioner.
  int num_partitions = 1;
  /// True when the module is written for Shardy (it declares `sdy.mesh`es), else GSPMD.
  bool shardy = false;
  /// io_names of the prepared `@main` (the entry's names).
  IoNames names;
  /// True when the entry had dynamic dimensions and was refined.
  bool refined = false;
};

/// Prepares `program` for the runtime: makes PrepareOptions::entry `@main` (select_entry); binds
/// the platform index of a multi-platform export to `platform`'s place in export_platforms, or to
/// 0 when the code never reads it (bind_platform_index); refines a dynamic entry to `arg_types`
/// (refine_shapes). Throws hhlo::Error when the entry cannot be chosen (naming the public
/// functions), when the code reads the platform index and export_platforms does not name
/// `platform` (or is empty), when `arg_types` has another count than the entry's arguments (naming
/// the entry, the source, both counts and the entry's types); ShapeAssertionError with JAX's
/// message for a failed shape assertion, and what refine_shapes throws.
PreparedProgram prepare_program(Program program, const PrepareOptions& options = {});

}  // namespace hhlo
