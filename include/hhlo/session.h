// One-call compile-and-run with an executable cache: the convenience layer above the runtime.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "hhlo/core/array.h"
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
  /// or disabling it; `{.enabled = false}` turns it off). Throws nothing.
  explicit Session(Client client,
                   CompileCacheOptions disk_cache = CompileCacheOptions::from_environment());
  const Client& client() const { return client_; }
  /// The disk cache in use.
  const CompileCache& disk_cache() const { return disk_; }
  /// What the disk cache did for the last executable this session compiled or loaded.
  CacheOutcome last_outcome() const;

  /// The executable for `mlir`, compiled on first use (PJRT_Client_Compile, or loaded from the
  /// disk cache: PJRT_Executable_DeserializeAndLoad) and cached.
  /// Throws hhlo::PjrtError when the plugin rejects the program.
  const LoadedExecutable& compile(std::string_view mlir, const CompileOptions& options = {});
  /// Same for a built module (printed with to_mlir).
  const LoadedExecutable& compile(const Module& module, const CompileOptions& options = {});

  /// Copies `args` to device 0, runs `@main`, waits and copies every output back.
  /// Throws hhlo::Error when the arguments do not match @main (count, dtype, dims),
  /// hhlo::PjrtError on compile or execution failure.
  std::vector<Array> run(std::string_view mlir, const std::vector<Array>& args);
  std::vector<Array> run(const Module& module, const std::vector<Array>& args);

  /// Number of distinct executables compiled so far.
  std::size_t cache_size() const;

 private:
  Client client_;
  CompileCache disk_;
  CacheOutcome last_ = CacheOutcome::disabled;
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<LoadedExecutable>> cache_;
};

/// The process-wide session on the CPU plugin (Plugin::for_platform("cpu"), created on first use
/// with the plugin's default client options). Throws hhlo::PluginError when no plugin is found.
Session& default_session();

/// default_session().run(module, args): compile (cached) and run `@main` on the CPU plugin.
std::vector<Array> run(const Module& module, const std::vector<Array>& args);
/// default_session().run(mlir, args).
std::vector<Array> run(std::string_view mlir, const std::vector<Array>& args);

}  // namespace hhlo
