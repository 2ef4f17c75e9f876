// hhlo::load: the one road from a program's bytes and options to a client and a ready executable
// (DESIGN.md "Layers": program). `hhlo run`, `bench`, `tune`, `demo` and Session call it and do
// nothing of its job themselves. One call: the tuned choice `hhlo tune` remembered is looked up
// and applied once, before the client is made; the client is made (or the caller's used) with
// the kernels the request names registered; a record of an earlier load of the same request
// gives the executable without reading the program (hhlo/program/program_cache.h); else the
// program is read, prepared (hhlo/program/program.h) and compiled through the compile cache.
// See docs/ir.md "The one way in".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hhlo/program/program.h"
#include "hhlo/program/tune.h"
#include "hhlo/runtime/client.h"
#include "hhlo/runtime/compile_cache.h"
#include "hhlo/runtime/compile_options.h"

namespace hhlo {

/// How the client runs executions.
enum class ExecutionMode {
  /// What the tuned choice says when one is followed, else `async`.
  automatic,
  /// The plugin's default: XLA's thread pool runs each execution.
  async,
  /// The CPU client's `asynchronous = false` (PJRT 0.115; the 0.81 plugin ignores it): each
  /// execution runs on the calling thread (execution_client_options, hhlo/runtime/client.h).
  sync,
};

/// The client a program is loaded on, and what is registered with its plugin.
struct ClientSpec {
  /// The platform ("cpu", "cuda"): its plugin is Plugin::for_platform(platform).
  std::string platform = "cpu";
  /// The execution mode. `sync` is refused on another platform than "cpu" (the CUDA plugin
  /// rejects unknown create options).
  ExecutionMode execution = ExecutionMode::automatic;
  /// CPU: the client's devices (`cpu_device_count`); 0: the plugin's default (4), raised to the
  /// program's partition count when that is larger. Ignored on other platforms.
  int device_count = 0;
  /// Kernel libraries (.so) whose HHLO_CUSTOM_CALL_TARGETS are registered with the plugin
  /// (register_kernel_library, hhlo/runtime/custom_call.h), in order.
  std::vector<std::string> kernel_libraries;
  /// CPU: JAX's LAPACK targets (`lapack_*_ffi`, register_jax_cpu_kernels) registered, so that
  /// `jax.export`ed linear algebra runs. oneDNN's kernels are registered whenever
  /// PrepareOptions::onednn asks for a rewrite (register_onednn_kernels).
  bool jax_cpu_kernels = true;
};

/// Everything that decides the executable hhlo::load gives: the load key (load_key) is over the
/// program's bytes and every field of this struct, nested structs included, so no field can be
/// left out of it.
struct LoadOptions {
  /// For a `jax.export` artifact: 0 loads its function, k its k-th VJP
  /// (ReadProgramOptions::vjp_order).
  int vjp_order = 0;
  /// The program stage: entry, export platforms, argument types, opt-in rewrites.
  /// `prepare.platform` is set to `client.platform` by load.
  PrepareOptions prepare;
  /// PJRT's compile options.
  CompileOptions compile;
  /// The client.
  ClientSpec client;
};

/// The step of hhlo::load that was running when it threw.
enum class LoadStage {
  read,     ///< reading the program's bytes (a file) or the program itself
  prepare,  ///< prepare_program: entry, platform index, refinement, rewrites
  client,   ///< making the client, registering kernels
  compile,  ///< compiling (or loading the compiled executable)
};

/// One load: the program and what to do with it.
struct LoadRequest {
  /// The program's bytes (text, MLIR bytecode or a `jax.export` artifact; read_program), kept
  /// alive by the caller during the call. Empty: read from `path`.
  std::string_view bytes;
  /// The program file, read when `bytes` is empty (read_file: a pipe too; a blank file is refused).
  std::string path;
  /// The program's name in messages; "" is `path`, else "program".
  std::string name;
  /// What is loaded (the load key's fields).
  LoadOptions options;
  /// The persistent compile cache (records and executables); null: none (every load compiles).
  CompileCache* cache = nullptr;
  /// A client to load on instead of making one (Session's): the client spec's execution mode
  /// and device count are then the client's own (a tuned choice's execution mode is not applied,
  /// Loaded::tuned says so); kernels are still registered with its plugin.
  const Client* client = nullptr;
  /// Follow the choice `hhlo tune` remembered for these options (find_tuned, when `cache`).
  bool follow_tuned = true;
  /// If not null, set to the step that was running when load threw (the CLI words its messages
  /// by it).
  LoadStage* stage = nullptr;
  /// If not null and holding a program, that program read from `bytes` (as read_program reads
  /// them with `name` and options.vjp_order) is used instead of reading them again, and emptied.
  std::optional<Program>* read = nullptr;
};

/// What hhlo::load gives.
struct Loaded {
  /// The client (made, or a copy of LoadRequest::client).
  Client client;
  /// The executable of the prepared `@main`.
  LoadedExecutable executable;
  /// What preparing the program learned (entry, names, partitions, kept inputs, rewrite counts):
  /// from the record of an earlier load when the program was not read.
  PreparedFacts facts;
  /// The tuned choice followed, as applied (its execution mode the one in use), or nullopt.
  std::optional<RememberedChoice> tuned;
  /// The options loaded after the tuned choice was applied (what the executable was made with).
  LoadOptions options;
  /// What the compile cache did (`hit` also when a record gave the executable unread).
  CacheOutcome outcome = CacheOutcome::disabled;
  /// True when the program was read (false: a record gave everything).
  bool read = false;
};

/// The 64-hex-digit key of loading `bytes` named `name` with `options`: SHA-256 over the bytes,
/// every field of `options` (write_key, hhlo/program/request_key.h) and the reader the name
/// chooses (reads_as_exported: text named `*.jax` is read as an artifact). Throws hhlo::Error
/// only if libcrypto fails.
std::string load_key(std::string_view bytes, const LoadOptions& options,
                     std::string_view name = "");

/// The key the tuned choice for `options` is remembered under (tuned_key of load_key): the
/// options with client.execution automatic, as `hhlo tune` is given them (it chooses the mode),
/// so that `hhlo run --execution sync` still finds the XLA options it chose. Throws as load_key.
std::string tuned_key_for(std::string_view bytes, const LoadOptions& options,
                          std::string_view name = "");

/// `options` with `choice` applied: its XLA options over options.compile's, its rewrites
/// (TunedChoice::with_rewrites), and its execution mode unless options.client.execution names
/// one (an explicit mode wins; the choice's `synchronous` is then set to it).
LoadOptions apply_choice(LoadOptions options, TunedChoice& choice);

/// The client create options `spec` asks for, for a program of `partitions` partitions (the
/// execution mode's, and `cpu_device_count` on CPU when spec.device_count or `partitions` is
/// above the plugin's default). Throws hhlo::Error for `sync` on another platform than "cpu".
std::vector<ClientOption> client_options(const ClientSpec& spec, int partitions);

/// A client as `spec` asks for, with its kernels registered (JAX's LAPACK targets on CPU, the
/// kernel libraries, oneDNN's kernels when `onednn`); `name` names the program in messages.
/// Throws hhlo::ShardingError when the platform has fewer devices than `partitions`, and what
/// Client::create and the registrations throw (hhlo::PluginError, hhlo::IoError for a kernel
/// library).
Client make_client(const ClientSpec& spec, int partitions, bool onednn,
                   const std::string& name = "program");

/// Loads the program of `request`: its bytes (read from `path` when not given), the tuned
/// choice (when followed and remembered for this plugin: RememberedChoice::plugin) applied to
/// the options, then from the cache's record of this load key when there is one whose
/// executable loads on the client (the program is not read), else read_program (verified),
/// prepare_program and compile through the cache (remembered under the load key). Throws
/// hhlo::IoError for a missing, unreadable or blank program file; what read_program,
/// prepare_program, make_client and Client::compile throw (a PjrtError for an unregistered
/// custom-call target names every target of the program nothing registered, and one for options
/// the tuned choice brought says so and how to forget it); LoadRequest::stage says which step.
Loaded load(const LoadRequest& request);

/// The types of the inputs of `program`'s entry (`entry` resolved as resolve_entry does; for a
/// `jax.export` artifact every flat input, the unused ones too), or nullopt when one has a
/// dynamic dimension. Throws hhlo::Error when the entry cannot be chosen.
std::optional<std::vector<TensorType>> static_input_types(const Program& program,
                                                          std::string_view entry = "");

}  // namespace hhlo
