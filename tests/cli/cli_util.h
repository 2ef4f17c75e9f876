// Helpers of the CLI tests: run the built `hhlo` executable and capture what it prints.
#pragma once

#include <string>
#include <vector>

namespace hhlo::test {

/// How a child process ended and what it printed (stdout and stderr interleaved).
struct ProcessResult {
  /// Exit status, or -1 when the process was killed by a signal.
  int exit_code = -1;
  /// The signal that killed it, 0 if it exited.
  int signal = 0;
  std::string output;
};

/// Where and with what environment a child process runs.
struct ProcessOptions {
  /// Working folder of the child ("" = this process's).
  std::string cwd;
  /// NAME=VALUE entries added to (or replacing in) this process's environment.
  std::vector<std::string> env;
};

/// Runs `hhlo` (HHLO_CLI_PATH) with `args` (no shell; arguments passed as is).
ProcessResult run_hhlo(const std::vector<std::string>& args, const ProcessOptions& options = {});

/// Runs `/bin/sh -c script` with `$HHLO` naming the CLI (HHLO_CLI_PATH), for cases a single
/// process cannot set up (a pipe into `head`, a private tmpfs under `unshare -m`).
ProcessResult run_shell(const std::string& script, const ProcessOptions& options = {});

/// A fresh empty directory under the system temp folder, unique to this process and `name`,
/// removed with its contents when the process exits (HHLO_KEEP_TEST_DIRS=1 keeps it).
std::string temp_dir(const std::string& name);

/// Writes `text` to `path`.
void write_text(const std::string& path, const std::string& text);

}  // namespace hhlo::test
