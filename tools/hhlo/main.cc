// `hhlo`: runs StableHLO programs through PJRT plugins. Subcommands register themselves
// (commands.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "commands.h"
#include "hhlo/core/error.h"
#include "standard_output.h"
#include "stop_signals.h"
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

namespace {

/// The exit status once stdout is flushed: `rc`, or 1 with one line on stderr when what was
/// written to stdout (the results of `hhlo run` without -o, a listing, the help) could not be
/// delivered. A command that failed already keeps its status and its one line.
int delivered(int rc, bool stdout_was_closed) {
  int err = hhlo::cli::flush_standard_output();
  if (err == 0 || rc != 0) return rc;
  if (err == EPIPE)
    fmt::print(stderr, "hhlo: stdout was closed; every output file was written before it\n");
  else
    fmt::print(stderr, "hhlo: error: {}\n", hhlo::cli::undelivered_message(err, stdout_was_closed));
  return 1;
}

/// The edit distance of `a` and `b`: insertions, deletions, substitutions and swaps of two
/// neighbours, one each (optimal string alignment).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

/// "" when `word` (the first argument, not an option) names a subcommand, else the one line
/// saying it does not: "'tun' is not a subcommand; did you mean 'tune'?" (the nearest visible
/// subcommand within two edits), or the list of them. CLI11 alone said "A subcommand is
/// required", as for `hhlo` with no argument.
std::string unknown_subcommand(std::string_view word) {
  std::vector<std::string> visible;
  for (const hhlo::cli::Command& c : hhlo::cli::registered_commands()) {
    if (c.name == word) return "";
    if (!c.hidden) visible.push_back(c.name);
  }
  // The fewest edits (at most two, fewer than the name's length), then the longest common
  // prefix: 'tun' is one edit from both 'run' and 'tune', and means 'tune'.
  auto common_prefix = [word](const std::string& name) {
    std::size_t n = 0;
    while (n < word.size() && n < name.size() && word[n] == name[n]) ++n;
    return n;
  };
  std::string best;
  std::size_t best_distance = 3, best_prefix = 0;
  for (const std::string& name : visible) {
    std::size_t d = edit_distance(word, name), p = common_prefix(name);
    if (d > 2 || d >= name.size() || d > best_distance) continue;
    if (d < best_distance || p > best_prefix) {
      best = name;
      best_distance = d;
      best_prefix = p;
    }
  }
  if (!best.empty()) return fmt::format("'{}' is not a subcommand; did you mean '{}'?", word, best);
  return fmt::format("'{}' is not a subcommand; the subcommands are {}", word,
                     fmt::join(visible, ", "));
}

/// "" when `word` (the first argument, an option) is one of hhlo's own (--help, -h, --version),
/// else the line saying that the other options follow the subcommand. CLI11 alone said "A
/// subcommand is required" for `hhlo --nosuchflag`, naming neither the option nor the fix.
std::string option_before_subcommand(std::string_view word) {
  if (word == "-h" || word == "--help" || word == "--version") return "";
  return fmt::format(
      "'{}' is not an option of hhlo itself; options follow the subcommand (hhlo SUBCOMMAND "
      "[options], e.g. hhlo run --help)",
      word);
}

}  // namespace

int main(int argc, char** argv) {
  // A closed standard stream's number must not go to a file opened later (`hhlo run ... >&-`).
  const bool stdout_was_closed = hhlo::cli::guard_standard_streams();
  // A closed stdout (`hhlo run ... | head -1`) must not kill the process midway through writing
  // its results: a write to it then fails with EPIPE, after the results are on disk (run.cc).
  std::signal(SIGPIPE, SIG_IGN);
  // Ctrl-C or SIGTERM while an output is written must not leave its temporary behind.
  hhlo::cli::remove_temporaries_on_stop_signals();
  // XLA's plugins log through absl to stderr: the CPU plugin writes an INFO line for each
  // synchronous client ("asynchronous set via create_options: false", under absl's "WARNING: All
  // log messages before absl::InitializeLog() ..."), so every `hhlo tune` and `--execution sync`
  // printed two lines of noise. Its INFO level is dropped, warnings and errors kept, unless the
  // user set TF_CPP_MIN_LOG_LEVEL (0 shows it again), before any plugin is loaded (docs/facts.md).
  setenv("TF_CPP_MIN_LOG_LEVEL", "1", /*overwrite=*/0);
  CLI::App app{"hhlo: run StableHLO programs through XLA PJRT plugins", "hhlo"};
  app.require_subcommand(1);
  // A usage error is one line, worded as every other error ("hhlo: error: --timeout: '0' is not
  // ..."), not CLI11's message and a second "Run with --help" line.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return fmt::format("hhlo: error: {}\n", e.what());
  });
  app.set_version_flag("--version", hhlo::cli::version_text, "Print hhlo's version and exit");
  std::map<const CLI::App*, hhlo::cli::Action> actions;
  for (const hhlo::cli::Command& c : hhlo::cli::registered_commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.description);
    if (c.hidden) sub->group("");
    actions[sub] = c.setup(*sub);
  }
  if (argc > 1 && argv[1][0] != '-')
    if (std::string message = unknown_subcommand(argv[1]); !message.empty()) {
      fmt::print(stderr, "hhlo: error: {}\n", message);
      return 1;
    }
  if (argc > 1 && argv[1][0] == '-')
    if (std::string message = option_before_subcommand(argv[1]); !message.empty()) {
      fmt::print(stderr, "hhlo: error: {}\n", message);
      return 1;
    }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints the message (or the help); its own exit codes (105, 106, 109, ...) become the
    // documented 1 of every usage error.
    return delivered(app.exit(e) == 0 ? 0 : 1, stdout_was_closed);
  }
  try {
    for (const auto& [sub, action] : actions)
      if (sub->parsed()) return delivered(action(), stdout_was_closed);
    return 2;  // unreachable: require_subcommand(1)
  } catch (const std::system_error& e) {
    // fmt::print throws std::system_error when a write fails: on stdout (its error flag set),
    // a result not delivered.
    bool on_stdout = std::ferror(stdout) != 0;
    if (e.code().value() == EPIPE) {
      fmt::print(stderr, "hhlo: stdout was closed; every output file was written before it\n");
      return 1;
    }
    if (on_stdout) {
      fmt::print(stderr, "hhlo: error: {}\n",
                 hhlo::cli::undelivered_message(e.code().value(), stdout_was_closed));
      return 1;
    }
    fmt::print(stderr, "hhlo: internal error: {}\n", e.what());
    return 1;
  } catch (const hhlo::Error& e) {
    fmt::print(stderr, "hhlo: error: {}\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "hhlo: internal error: {}\n", e.what());
    return 1;
  }
}
