// `hhlo`: runs StableHLO programs through PJRT plugins. Subcommands register themselves
// (commands.h).
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <stdexcept>
#include <system_error>

#include "commands.h"
#include "hhlo/core/error.h"
#include "version_text.h"

namespace hhlo::cli {
namespace {

std::map<std::string, Command>& registry() {
  static std::map<std::string, Command> commands;
  return commands;
}

}  // namespace

bool register_command(Command command) {
  std::string name = command.name;
  if (!registry().emplace(name, std::move(command)).second)
    throw std::logic_error("hhlo: subcommand '" + name + "' registered twice");
  return true;
}

std::vector<Command> registered_commands() {
  std::vector<Command> out;
  for (const auto& [name, command] : registry()) out.push_back(command);
  return out;
}

}  // namespace hhlo::cli

int main(int argc, char** argv) {
  // A closed stdout (`hhlo run ... | head -1`) must not kill the process midway through writing
  // its results: a write to it then fails with EPIPE, after the results are on disk (run.cc).
  std::signal(SIGPIPE, SIG_IGN);
  // XLA's plugins log through absl to stderr: the CPU plugin writes an INFO line for each
  // synchronous client ("asynchronous set via create_options: false", under absl's "WARNING: All
  // log messages before absl::InitializeLog() ..."), so every `hhlo tune` and `--execution sync`
  // printed two lines of noise. Its INFO level is dropped, warnings and errors kept, unless the
  // user set TF_CPP_MIN_LOG_LEVEL (0 shows it again), before any plugin is loaded (docs/facts.md).
  setenv("TF_CPP_MIN_LOG_LEVEL", "1", /*overwrite=*/0);
  CLI::App app{"hhlo: run StableHLO programs through XLA PJRT plugins", "hhlo"};
  app.require_subcommand(1);
  app.set_version_flag("--version", hhlo::cli::version_text, "Print hhlo's version and exit");
  std::map<const CLI::App*, hhlo::cli::Action> actions;
  for (const hhlo::cli::Command& c : hhlo::cli::registered_commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.description);
    if (c.hidden) sub->group("");
    actions[sub] = c.setup(*sub);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints the message (or the help); its own exit codes (105, 106, 109, ...) become the
    // documented 1 of every usage error.
    return app.exit(e) == 0 ? 0 : 1;
  }
  try {
    for (const auto& [sub, action] : actions)
      if (sub->parsed()) return action();
    return 2;  // unreachable: require_subcommand(1)
  } catch (const std::system_error& e) {
    if (e.code().value() != EPIPE) {
      fmt::print(stderr, "hhlo: internal error: {}\n", e.what());
      return 1;
    }
    fmt::print(stderr, "hhlo: stdout was closed; every output file was written before it\n");
    return 1;
  } catch (const hhlo::Error& e) {
    fmt::print(stderr, "hhlo: error: {}\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "hhlo: internal error: {}\n", e.what());
    return 1;
  }
}
