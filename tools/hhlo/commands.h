// The `hhlo` CLI's subcommand registry. Each subcommand lives in its own file (devices.cc, run.cc,
// conformance.cc, ...) and registers itself with a namespace-scope
//   const bool registered = hhlo::cli::register_command({...});
// so adding a subcommand is a one-file change: main.cc knows none of them by name.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace hhlo::cli {

/// What a subcommand does once its options are parsed: returns the process exit code. May throw
/// hhlo::Error (main prints "hhlo: error: <what>" and exits with 1).
using Action = std::function<int()>;

/// One subcommand of `hhlo`.
struct Command {
  /// Subcommand name, e.g. "run".
  std::string name;
  /// One-line description shown by `hhlo --help`.
  std::string description;
  /// Adds the subcommand's options to `sub` (already created with name and description) and
  /// returns the action to run when the subcommand is chosen. Option values live in variables the
  /// returned action captures (e.g. a shared_ptr to an options struct).
  std::function<Action(CLI::App& sub)> setup;
  /// Hidden from `--help` (internal subcommands such as the conformance worker).
  bool hidden = false;
};

/// Registers `command`; call from a namespace-scope initializer. Returns true (so the call can
/// initialize a const bool). Throws std::logic_error on a duplicate name.
bool register_command(Command command);

/// All registered subcommands, sorted by name.
std::vector<Command> registered_commands();

}  // namespace hhlo::cli
