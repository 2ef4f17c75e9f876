// Fuzz target: the input handling of `hhlo run`, in-process (tools/hhlo/run_input.h): the
// command line is parsed with the subcommand's real options, then the program file, entry
// selection, --xla-option values and .npy inputs are read as `hhlo run` reads them before it
// loads a plugin. Properties: parsing ends in success or a CLI11 ParseError; reading in success or
// a hhlo::Error. Loading a plugin, compiling and executing are not fuzzed here.
//
// Input: argument tokens separated by NUL, then for each file a separator kFileSeparator and the
// file's bytes: the first file is the program, the next ones inputs. The tokens PROGRAM and
// INPUT0..INPUT3 name those files. Only paths inside the target's own temporary folder are read
// (other paths are parsed, never opened: a fuzzer-chosen /dev/zero would never end).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz.h"
#include "run_input.h"

namespace hhlo::fuzz {
namespace {

constexpr std::string_view kFileSeparator{"\0--file--\0", 10};
constexpr size_t kMaxFiles = 5;  // the program and 4 inputs

/// The target's temporary folder, created once per process.
const std::string& temp_dir() {
  static const std::string dir = [] {
    std::string pattern = "/tmp/hhlo-fuzz-cli-XXXXXX";
    if (!mkdtemp(pattern.data())) fuzz_fail("cli", "cannot create a temporary folder");
    return pattern;
  }();
  return dir;
}

std::string file_path(size_t k) {
  return temp_dir() + (k == 0 ? "/program.mlir" : "/in" + std::to_string(k - 1) + ".npy");
}

bool ours(const std::string& path) {
  return path.rfind(temp_dir() + "/", 0) == 0 && path.find("..") == std::string::npos;
}

}  // namespace

int cli(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> sections;
  for (size_t at = 0;;) {
    size_t next = in.find(kFileSeparator, at);
    sections.push_back(in.substr(at, next == std::string_view::npos ? in.npos : next - at));
    if (next == std::string_view::npos || sections.size() > kMaxFiles) break;
    at = next + kFileSeparator.size();
  }
  std::vector<std::string> args{"hhlo"};
  std::string_view tokens = sections[0];
  for (size_t at = 0; at <= tokens.size() && args.size() < 64;) {
    size_t end = std::min(tokens.find('\0', at), tokens.size());
    std::string t(tokens.substr(at, end - at));
    if (t == "PROGRAM") t = file_path(0);
    for (size_t k = 0; k < kMaxFiles - 1; ++k)
      if (t == "INPUT" + std::to_string(k)) t = file_path(k + 1);
    args.push_back(std::move(t));
    at = end + 1;
  }
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());

  cli::RunOptions options;
  try {
    CLI::App app{"hhlo", "hhlo"};
    app.require_subcommand(1);
    cli::add_run_options(*app.add_subcommand("run", "run"), options);
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError&) {
    return 0;
  } catch (const std::exception& e) {
    fuzz_fail("cli",
              std::string("argument parsing threw something else than a ParseError: ") + e.what());
  }
  if (!ours(options.program)) return 0;
  for (const std::string& p : options.inputs)
    if (!ours(p)) return 0;
  // Only now, and only the files the command line names, are written (or removed when the input
  // has no bytes for them: the reader's missing-file error): most inputs end in a ParseError
  // above, and writing five files for each of those was most of this target's time.
  std::vector<std::string> named = options.inputs;
  named.push_back(options.program);
  for (size_t k = 0; k < kMaxFiles; ++k) {
    std::string path = file_path(k);
    if (std::find(named.begin(), named.end(), path) == named.end()) continue;
    if (k + 1 < sections.size()) {
      std::ofstream(path, std::ios::binary | std::ios::trunc)
          .write(sections[k + 1].data(), static_cast<std::streamsize>(sections[k + 1].size()));
    } else {
      unlink(path.c_str());
    }
  }
  try {
    cli::RunInputs inputs = cli::load_run_inputs(options);
    if (cli::ensure_program(options, inputs).module.funcs().empty())
      fuzz_fail("cli", "an empty program was accepted");
    bool one_npz = options.inputs.size() == 1 && options.inputs[0].ends_with(".npz");
    if (!one_npz && inputs.inputs.size() != options.inputs.size())
      fuzz_fail("cli", "not one array per --input");
  } catch (const Error&) {
  } catch (const std::exception& e) {
    fuzz_fail("cli",
              std::string("reading the inputs threw something else than hhlo::Error: ") + e.what());
  }
  return 0;
}

}  // namespace hhlo::fuzz
