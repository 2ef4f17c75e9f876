// The program stage: the one way in for programs made elsewhere (DESIGN.md "Layers": program).
// A program (StableHLO text, MLIR bytecode, a serialized `jax.export` artifact) is read once into
// a Module (read_program), then
// prepared for one platform and one set of argument shapes (prepare_program): entry selection,
// the binding of a multi-platform `jax.export`'s platform index (before refinement, as JAX does),
// shape refinement and the partition count. The runtime compiles what this hands it
// (hhlo/program/compile.h). `hhlo run`, `bench`, `check`, Session and jit all come this way. See
// docs/ir.md "The one way in".
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/core/tensor_type.h"
#include "hhlo/ir/module.h"
#include "hhlo/program/exported.h"
#include "hhlo/program/onednn_rewrite.h"

namespace hhlo {

/// The form a program was read from.
enum class ProgramFormat {
  text,      ///< StableHLO / MLIR text (what `jax.export`'s `mlir_module()` prints)
  bytecode,  ///< MLIR bytecode, a StableHLO portable artifact (`mlir_module_serialized`)
  exported,  ///< a serialized `jax.export` artifact (`Exported.serialize()`,
             ///< hhlo/program/exported.h)
};

/// Options of read_program.
struct ReadProgramOptions {
  /// Name of the program in messages and ParseError::source() (e.g. its path).
  std::string source_name = "program";
  /// Verify the module as `hhlo check` does (hhlo/ir/verifier.h, ops of other dialects allowed).
  bool verify = true;
  /// For a `jax.export` artifact: 0 reads its function, k its k-th VJP (JAX's `Exported.vjp()`
  /// applied k times; present when it was serialized with `vjp_order >= k`). Must be 0 for text
  /// and bytecode.
  int vjp_order = 0;
};

/// A program read once: its module and where it came from.
struct Program {
  Module module;
  ProgramFormat format = ProgramFormat::text;
  /// ReadProgramOptions::source_name.
  std::string source_name;
  /// For ProgramFormat::exported: the artifact as read_exported gives it, with the module of the
  /// level read (`vjp_order`) moved into `module` above; null for text and bytecode.
  std::shared_ptr<const Exported> artifact;
  /// ReadProgramOptions::vjp_order: the level of `artifact` that `module` is.
  int vjp_order = 0;

  /// The Exported whose module `module` is (the artifact, or its vjp_order-th VJP; its own
  /// `module` is empty), or nullptr when the program is not an artifact.
  const Exported* exported() const;
};

/// True when `bytes` are read as a `jax.export` artifact by read_program: is_exported_artifact,
/// or a `source_name` ending in ".jax" whose bytes are not MLIR bytecode (so a damaged artifact
/// gets the artifact reader's error, not the text parser's).
bool reads_as_exported(std::string_view bytes, std::string_view source_name);

/// Reads `bytes` into a Program: a `jax.export` artifact (reads_as_exported: read_exported, the
/// level `options.vjp_order`), MLIR bytecode (is_mlir_bytecode: read_bytecode) or else text
/// (parse_module). Throws hhlo::ParseError for what our readers refuse (with the line and column,
/// the byte offset and section for bytecode, "NAME (jax.export artifact)" for an artifact),
/// hhlo::Error for a call cycle, for an artifact version we do not read (naming both), for a
/// vjp_order the artifact was not serialized with (naming the orders it has) or a vjp_order
/// other than 0 for text or bytecode, and hhlo::ShapeError / hhlo::Error when `options.verify`
/// and the verifier rejects the module.
Program read_program(std::string_view bytes, const ReadProgramOptions& options = {});

/// The bytes of the program file `path` (read_file: a regular file, or a pipe read up to
/// kMaxStreamBytes); for a torch_xla bundle folder (is_torch_xla_bundle,
/// hhlo/program/torch_xla_bundle.h) the StableHLO text of its function with the weights bound
/// (read_torch_xla_bundle). Throws hhlo::IoError when it is missing, a directory that is no
/// bundle or a socket, unreadable, a stream past that bound, or blank ("program 'PATH' is empty;
/// ..."), and what read_torch_xla_bundle throws for a bundle.
std::string read_program_file_bytes(const std::string& path);

/// read_program of the file at `path` (read_file; source_name is `path`). Throws
/// hhlo::IoError when the file is missing, a directory or a socket, unreadable or blank, and what
/// read_program throws.
Program read_program_file(const std::string& path, bool verify = true, int vjp_order = 0);

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

/// The names of a Program's inputs and outputs: for a `jax.export` artifact its flat inputs and
/// outputs as JAX names them (Exported::in_names and out_names: "args[0]['w']",
/// "kwargs['scale']", "result['h']"; every input, the unused ones too), else io_names of its
/// module. Never throws.
IoNames io_names(const Program& program, std::string_view entry = "");

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
  /// index left out; for a `jax.export` artifact one per flat input, the unused ones too, each
  /// checked against its aval). nullopt: the entry is not refined (a dynamic one then fails in
  /// the plugin).
  std::optional<std::vector<TensorType>> arg_types;
  /// Last, rewrite the convolutions and/or dot_generals oneDNN serves into calls of its kernels,
  /// on onednn.threads threads (rewrite_for_onednn, hhlo/program/onednn_rewrite.h):
  /// opt-in, the client must have the kernels registered (register_onednn_kernels,
  /// hhlo/onednn/kernels.h). Part of the source key (hhlo/program/program_cache.h) when set.
  OneDnnOps onednn;
  /// When 2 or more: unroll `@main`'s counted while loops by up to this many iterations per
  /// body (unroll_loops, hhlo/program/loop_unroll.h), before the oneDNN rewrite; 0: not. Part
  /// of the source key when set.
  int unroll_loops = 0;
  /// When 1 or more: `@main` batched by JAX's `vmap` over a new leading axis of this size on
  /// every argument and result (in_axes and out_axes 0; vmap_main, hhlo/program/vmap_main.h),
  /// after refinement (`arg_types` are then the per-example types) and before the other
  /// rewrites: what the model server does with a model exported without a batch dimension.
  /// 0: not.
  int64_t vmap_batch = 0;
  /// When 1 or more: last (after the other rewrites), each `stablehlo.constant` among the
  /// top-level ops of `@main`'s body holding at least this many bytes becomes a trailing
  /// parameter of `@main` (hoist_constants, hhlo/program/hoist_constants.h; programs of one
  /// partition only), its value kept in PreparedProgram::hoisted: the executable carries no
  /// weights, and the program stage binds the values to it once as device buffers
  /// (LoadedExecutable::bind_trailing), so callers pass the same arguments as without. 0: not
  /// (the default). Part of the load key.
  int64_t hoist_constants_min_bytes = 0;
};

/// What prepare_program learned of a program besides its module: what a cache hit that reads
/// nothing gives back (hhlo/program/program_cache.h).
struct PreparedFacts {
  /// The entry's name in the program as read (e.g. "main", "predict").
  std::string entry;
  /// Program::source_name.
  std::string source_name;
  /// num_partitions_of the module: more than 1 asks for XLA's SPMD partitioner.
  int num_partitions = 1;
  /// True when the module is written for Shardy (it declares `sdy.mesh`es), else GSPMD.
  bool shardy = false;
  /// io_names of the prepared `@main` (the entry's names; a jax.export artifact's own).
  IoNames names;
  /// True when the entry had dynamic dimensions and was refined.
  bool refined = false;
  /// True when the executable depends on the argument types it was prepared for
  /// (PrepareOptions::arg_types): the entry was refined to them, or the program is a
  /// `jax.export` artifact (its inputs checked against its avals). A caller that keeps
  /// executables by program must then keep them by argument types too (Session).
  bool by_types = false;
  /// For a `jax.export` artifact: the indices of the caller's flat inputs that the module takes
  /// (Exported::module_kept_var_idx: JAX drops unused inputs from `@main`); empty when every
  /// input is an argument. select_kept selects them.
  std::vector<int64_t> kept_inputs;
  /// With PrepareOptions::onednn: the ops rewritten and kept (OneDnnRewrite), and why the first
  /// was kept (empty when none was).
  int onednn_rewritten = 0, onednn_kept = 0;
  std::string onednn_kept_reason;
  /// With PrepareOptions::unroll_loops: the loops unrolled and kept (LoopUnroll), and why the
  /// first was kept (empty when none was).
  int loops_unrolled = 0, loops_kept = 0;
  std::string loops_kept_reason;
  /// With PrepareOptions::hoist_constants_min_bytes: the constants made trailing parameters of
  /// `@main` (bound by the program stage, not the caller's: `names` leaves them out).
  int hoisted_constants = 0;
};

/// A program prepared for the runtime: what Client::compile takes, and what was learned of it.
struct PreparedProgram : PreparedFacts {
  /// The entry as `@main` (select_entry), its platform index bound, refined to
  /// PrepareOptions::arg_types when it had dynamic dimensions.
  Module module;
  /// The values of `@main`'s last `hoisted_constants` parameters (the hoisted constants, in
  /// order): compile (hhlo/program/compile.h) binds them to the executable.
  std::vector<std::shared_ptr<const Array>> hoisted;
};

/// The items of `all` (one per flat input of a `jax.export` artifact: types, names, pointers to
/// arrays) that `@main` takes, in order: those `kept` (PreparedProgram::kept_inputs) names, or all
/// of them when it is empty. Throws hhlo::Error when a kept index is not below `all.size()`.
template <typename T>
std::vector<T> select_kept(const std::vector<int64_t>& kept, const std::vector<T>& all);

/// Prepares `program` for the runtime: makes PrepareOptions::entry `@main` (select_entry); binds
/// the platform index of a multi-platform export to `platform`'s place in export_platforms, or to
/// 0 when the code never reads it (bind_platform_index); refines a dynamic entry to `arg_types`
/// (refine_shapes). A `jax.export` artifact brings its own platforms (export_platforms must be
/// empty or equal to them), names (Exported::in_names, out_names) and unused inputs (`arg_types`
/// covers every flat input; kept_inputs says which the module takes). Throws hhlo::Error when the
/// entry cannot be chosen (naming the public functions), when the code reads the platform index
/// and export_platforms does not name `platform` (or is empty), when `arg_types` has another
/// count than the entry's arguments (naming the entry, the source, both counts and the entry's
/// types); for an artifact also when it was not exported for `platform` (JAX's check, unless
/// exported with it disabled), when it has ordered effects (its `@main` takes and returns
/// tokens, which no caller here supplies), and when an input's dtype, rank or static dimension
/// differs from its aval (naming the input by its JAX name and both types);
/// ShapeAssertionError with JAX's message for a failed shape assertion, and what refine_shapes
/// throws.
PreparedProgram prepare_program(Program program, const PrepareOptions& options = {});

template <typename T>
std::vector<T> select_kept(const std::vector<int64_t>& kept, const std::vector<T>& all) {
  if (kept.empty()) return all;
  std::vector<T> out;
  out.reserve(kept.size());
  for (int64_t k : kept) {
    if (k < 0 || static_cast<std::size_t>(k) >= all.size())
      throw Error("the program keeps input " + std::to_string(k) + " of " +
                  std::to_string(all.size()) + " given");
    out.push_back(all[static_cast<std::size_t>(k)]);
  }
  return out;
}

}  // namespace hhlo
