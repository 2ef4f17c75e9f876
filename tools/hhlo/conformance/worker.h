// Running one conformance file in-process, and the worker loop the runner drives in a child
// process (`hhlo conformance-worker`), so that a crash or hang in the plugin costs one file only.
#pragma once

#include <string>

#include "hhlo/runtime/client.h"

namespace hhlo::conformance {

/// Outcome of one corpus file.
enum class Status {
  passed,
  /// A check failed, or compiling/executing failed for a reason that is not a plugin limitation.
  failed,
  /// The plugin cannot run the program (e.g. an op or type it does not implement).
  unsupported,
};

/// "passed", "failed", "unsupported".
std::string_view status_name(Status s);

/// The result for one file; `reason` is empty for a pass.
struct FileResult {
  /// File name without directory, e.g. "abs_float32_20_20.mlir".
  std::string file;
  Status status = Status::failed;
  std::string reason;
  /// Wall time in the worker (compile + execute + checks), or until the timeout.
  double seconds = 0;
};

/// How the `check.*` custom calls are served.
enum class CheckMode {
  /// Typed XLA FFI handlers of ours, registered with the plugin (api_version = 4 rewrite);
  /// a mismatch fails the execution with the handler's message.
  ffi,
  /// Checks rewritten into extra outputs of @main, compared on the host.
  outputs,
};

/// Parses "ffi" / "outputs"; throws hhlo::Error otherwise.
CheckMode parse_check_mode(const std::string& name);
/// The mode used when none is asked for: ffi.
CheckMode default_check_mode();
/// Registers handlers for check.expect_eq / expect_close / expect_almost_eq with `plugin`
/// (platform "Host"). Call once per process, before compiling. Throws hhlo::PluginError when
/// this build lacks them or the plugin has no FFI extension, hhlo::PjrtError when refused.
void register_check_handlers(const Plugin& plugin);

/// Runs the corpus file at `path` on `client` (whose plugin has the handlers registered when
/// `mode` is ffi). Never throws: every failure becomes a failed or unsupported result.
/// With `reprint`, the program (after the check rewrite) is parsed by hhlo/ir/parser.h and
/// re-printed by our printer before it is compiled (a parse failure is a failed result "reprint:
/// ...").
FileResult run_file(const Client& client, const std::string& path, CheckMode mode,
                    bool reprint = false);

/// The worker loop: creates a one-device CPU client (registering the handlers in ffi mode),
/// writes "ready" (or "error\t<message>") to stdout, then for each file path read from a stdin
/// line writes one line "<status>\t<seconds>\t<reason>" (newlines in the reason escaped as \n).
/// Anything else the process prints goes to stderr. Returns the process exit code.
int worker_main(CheckMode mode, bool reprint = false);

}  // namespace hhlo::conformance
