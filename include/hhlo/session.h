// One-call compile-and-run with an executable cache: the convenience layer above the runtime.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/program/load.h"
#include "hhlo/program/program.h"
#include "hhlo/program/tune.h"
#include "hhlo/runtime/client.h"
#include "hhlo/runtime/compile_cache.h"

namespace hhlo {

class Module;

/// A client plus two caches of compiled executables keyed by program text and compile options:
/// one in memory (running the same program twice compiles it once per process) and the
/// persistent CompileCache on disk (a later process loads the executable instead of compiling).
/// Thread-safe.
class Session {
 public:
  /// Uses `client` (shared) and a disk cache with `disk_cache` options (default: on, in
  /// `$XDG_CACHE_HOME/hhlo/compile` or `~/.cache/hhlo/compile`, `HHLO_COMPILE_CACHE` relocating
  /// or disabling it; `{.enabled = false}` turns it off). On a CPU client whose plugin has the FFI
  /// extension, registers JAX's LAPACK custom-call targets first (register_jax_cpu_kernels,
  /// hhlo/lapack/kernels.h), so `jax.export`ed linear algebra runs. Throws what
  /// register_jax_cpu_kernels throws.
  /// With `onednn` (opt-in, faster only where measured: docs/benchmarks.md "oneDNN kernels"),
  /// every program it compiles, built ones (a Trainer's step) included, has the f32
  /// convolutions and/or dot_generals oneDNN serves run as its kernels (PrepareOptions::onednn,
  /// hhlo/program/onednn_rewrite.h; part of each program's disk-cache key; the client must have
  /// the kernels registered: register_onednn_kernels, hhlo/onednn/kernels.h, library
  /// hhlo_onednn); throws hhlo::Error when onednn.threads < 0.
  explicit Session(Client client,
                   CompileCacheOptions disk_cache = CompileCacheOptions::from_environment(),
                   OneDnnOps onednn = {});
  const Client& client() const { return client_; }
  /// The oneDNN rewrites every program this session compiles gets (the constructor's `onednn`).
  const OneDnnOps& onednn() const { return onednn_; }
  /// The disk cache in use.
  const CompileCache& disk_cache() const { return disk_; }
  /// What the disk cache did for the last executable this session compiled or loaded.
  CacheOutcome last_outcome() const;

  /// The executable for `mlir` (StableHLO text or MLIR bytecode), compiled on first use through
  /// the program stage (hhlo::load, hhlo/program/load.h: read once, program.entry chosen, a
  /// multi-platform export's index bound from program.export_platforms; or loaded from the disk
  /// cache: PJRT_Executable_DeserializeAndLoad) and cached. Of `program` only `entry` and
  /// `export_platforms` are read: its platform is the client's, its oneDNN rewrites the
  /// session's. Throws hhlo::ParseError for a program our readers refuse, hhlo::Error when the
  /// entry cannot be chosen, hhlo::PjrtError when the plugin rejects the program.
  const LoadedExecutable& compile(std::string_view mlir, const CompileOptions& options = {},
                                  const PrepareOptions& program = {});
  /// Same for a built module (printed with to_mlir).
  const LoadedExecutable& compile(const Module& module, const CompileOptions& options = {});

  /// Compiles (cached, with `options`; `program` as compile reads it: program.entry chooses the
  /// function to run) and copies
  /// `args` to device 0, runs the entry, waits and copies every output back. When `mlir` is
  /// text whose entry has dynamic (`?`) dimensions (a shape-polymorphic `jax.export`), it is
  /// first refined to the shapes of `args` (prepare_program, hhlo/program/program.h) and one
  /// executable is cached per concrete argument shapes. The program is read once per text, and
  /// not at all when the disk cache remembers its executable under its bytes, options and
  /// argument types (a later process running it again; hhlo/program/program_cache.h).
  /// Throws hhlo::ParseError for a program our readers refuse, hhlo::Error when the entry cannot
  /// be chosen or the arguments do not
  /// match it (count, dtype, dims), hhlo::ShapeAssertionError when they violate the export's
  /// shape constraints (JAX's message), hhlo::PjrtError on compile or execution failure.
  std::vector<Array> run(std::string_view mlir, const std::vector<Array>& args,
                         const CompileOptions& options = {}, const PrepareOptions& program = {});
  /// run of a program read with `vjp_order` (ReadProgramOptions::vjp_order): `program` may be a
  /// serialized `jax.export` artifact (as it may in the run above, with vjp_order 0), whose
  /// function (0) or k-th VJP (k) runs on `args`, one per flat input (the unused ones too, each
  /// checked against its aval; PreparedProgram::kept_inputs), giving one array per flat output.
  /// One executable is cached per artifact, order and argument types. Throws as the run above,
  /// and hhlo::Error for an input that does not fit its aval (naming it), an artifact not
  /// exported for this client's platform, with ordered effects, or without a VJP of that order.
  std::vector<Array> run(std::string_view program, const std::vector<Array>& args,
                         const CompileOptions& options, int vjp_order);
  std::vector<Array> run(const Module& module, const std::vector<Array>& args,
                         const CompileOptions& options = {});

  /// `hhlo tune` in the API: times `program` (as run reads it, with `options`) on `args` under
  /// the CPU client's execution modes and the XLA option sets of `tune_options` (hhlo::tune in
  /// hhlo/program/tune.h, on fresh clients of this session's plugin), keeps the fastest whose
  /// outputs agree with the defaults', and remembers it in the disk cache (when on) for this
  /// program, options and argument types: a later Session or process (and `hhlo run`, `hhlo
  /// bench` given the same file, inputs and options) compiles it with the chosen options;
  /// executables this session already holds are kept. Returns the choice and every candidate's
  /// timings. Throws hhlo::Error on a client of another platform than "cpu", for a budget <= 0
  /// and as tune does; what run throws for the program and arguments.
  /// `entry` (PrepareOptions::entry and export_platforms, as compile reads them) chooses the
  /// function of `program` to tune.
  TuneResult tune(std::string_view program, const std::vector<Array>& args,
                  const CompileOptions& options = {}, const TuneOptions& tune_options = {},
                  const PrepareOptions& entry = {});

  /// The choice `hhlo tune` (hhlo/program/tune.h) remembered for the program, options and
  /// argument types of the last executable this session compiled or loaded, whose XLA options,
  /// loop unrolling and oneDNN rewrites it was compiled with (hhlo::load, hhlo/program/load.h);
  /// nullopt when none was remembered (the defaults). A choice is looked up in the disk cache
  /// under the load key of the options given to compile/run, and used only when tuned on this
  /// plugin and host (CompileCache::plugin_identity); a damaged one gives one warning line on
  /// stderr and is removed. The execution mode is the client's: choice.synchronous says which
  /// mode was measured fastest; create the client with
  /// execution_client_options(choice.synchronous) to follow it.
  std::optional<TunedChoice> last_tuned() const;

  /// Number of distinct executables compiled (or loaded) so far.
  std::size_t cache_size() const;
  /// Number of programs this session has read (parsed): a program whose executable the disk
  /// cache remembers under its bytes (hhlo/program/program_cache.h) is loaded without one.
  std::size_t programs_read() const;

 private:
  friend class ExportedFunction;
  /// run over pointers to the arguments (no copy of their data).
  std::vector<Array> run_flat(std::string_view program, const std::vector<const Array*>& args,
                              const CompileOptions& options, int vjp_order,
                              const PrepareOptions& entry = {});
  /// An executable and the flat inputs its `@main` takes (PreparedProgram::kept_inputs).
  struct Compiled {
    std::unique_ptr<LoadedExecutable> exe;
    std::vector<int64_t> kept_inputs;
  };
  /// The hhlo::load options of running a program with `o` and `entry` (its entry and export
  /// platforms) read at `vjp_order` on this session's client, prepared for `arg_types`.
  LoadOptions load_options(const CompileOptions& o, const PrepareOptions& entry, int vjp_order,
                           std::optional<std::vector<TensorType>> arg_types) const;
  /// The executable kept under `key` (memory_key, with the argument types when the program's
  /// executable depends on them), else hhlo::load of `program` with `options` on this session's
  /// client through the disk cache, kept.
  const Compiled& compile_keyed(const std::string& key, std::string_view program,
                                const LoadOptions& options);
  /// Copies `args` to device 0, executes `exe`, waits and copies every output back.
  std::vector<Array> execute_on_host(const LoadedExecutable& exe,
                                     const std::vector<const Array*>& args);

  Client client_;
  CompileCache disk_;
  OneDnnOps onednn_;
  CacheOutcome last_ = CacheOutcome::disabled;
  std::size_t programs_read_ = 0;
  std::optional<TunedChoice> last_tuned_;
  mutable std::mutex mu_;
  std::map<std::string, Compiled> cache_;
  /// memory_key of (options, VJP order, program) -> whether the executable is per argument
  /// types (PreparedFacts::by_types: a dynamic entry to refine, or an artifact whose inputs are
  /// checked).
  std::map<std::string, bool, std::less<>> dynamic_;
};

/// The process-wide session on the CPU plugin (Plugin::for_platform("cpu"), created on first use
/// with the plugin's default client options). Throws hhlo::PluginError when no plugin is found.
Session& default_session();

/// default_session().run(module, args): compile (cached) and run `@main` on the CPU plugin.
std::vector<Array> run(const Module& module, const std::vector<Array>& args);
/// default_session().run(mlir, args).
std::vector<Array> run(std::string_view mlir, const std::vector<Array>& args);

}  // namespace hhlo
