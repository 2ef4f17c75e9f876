#include "conformance/worker.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "conformance/rewrite.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/program/compile.h"

namespace hhlo::conformance {
namespace {

/// One line, at most `max` characters, for a report.
std::string condense(const std::string& message, std::size_t max = 400) {
  std::string out;
  bool space = false;
  for (char c : message) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  if (out.size() > max) out = out.substr(0, max) + " ...";
  return out;
}

/// Is a compile error a limitation of the plugin (rather than a bad program or a bug of ours)?
bool plugin_limitation(const PjrtError& e) {
  const std::string m = e.what();
  if (e.error_code() == PjrtErrorCode::unimplemented) return true;
  for (const char* pattern :
       {"is not supported", "not implemented", "Unimplemented", "unsupported",
        "failed to legalize operation", "Unknown custom-call API version enum value"})
    if (m.find(pattern) != std::string::npos) return true;
  return false;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError(fmt::format("cannot open '{}'", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::string_view status_name(Status s) {
  switch (s) {
    case Status::passed:
      return "passed";
    case Status::failed:
      return "failed";
    case Status::unsupported:
      return "unsupported";
  }
  return "?";
}

CheckMode parse_check_mode(const std::string& name) {
  if (name == "ffi") return CheckMode::ffi;
  if (name == "outputs") return CheckMode::outputs;
  throw Error(fmt::format("unknown check mode '{}' (expected ffi or outputs)", name));
}

CheckMode default_check_mode() { return CheckMode::ffi; }

FileResult run_file(const Client& client, const std::string& path, CheckMode mode, bool reprint) {
  FileResult r;
  r.file = std::filesystem::path(path).filename().string();
  auto t0 = std::chrono::steady_clock::now();
  auto done = [&](Status s, std::string reason) {
    r.status = s;
    r.reason = condense(reason);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  };
  std::string text;
  std::vector<CheckCall> checks;
  std::string program;
  try {
    text = read_file(path);
    checks = find_checks(text);
    if (checks.empty()) return done(Status::failed, "no check.* call: nothing verifies the result");
    program =
        mode == CheckMode::ffi ? rewrite_checks_to_ffi(text) : rewrite_checks_to_outputs(text);
    // i1 hex data is packed bits in the corpus, one byte per element in newer MLIR: lists are
    // read alike by every plugin.
    program = rewrite_i1_hex_literals(program);
  } catch (const std::exception& e) {
    return done(Status::failed, std::string("cannot prepare the program: ") + e.what());
  }
  if (reprint) {
    try {
      program = to_mlir(parse_module(program, {.source_name = r.file}));
    } catch (const std::exception& e) {
      return done(Status::failed, std::string("reprint: ") + e.what());
    }
  }

  LoadedExecutable exe;
  try {
    exe = compile(client, program);
  } catch (const PjrtError& e) {
    return done(plugin_limitation(e) ? Status::unsupported : Status::failed,
                std::string("compile: ") + e.what());
  } catch (const std::exception& e) {
    return done(Status::failed, std::string("compile: ") + e.what());
  }

  try {
    std::vector<Buffer> outputs = exe.execute(std::vector<const Buffer*>{});
    if (mode == CheckMode::outputs) {
      std::size_t extra = 2 * checks.size();
      if (outputs.size() < extra)
        return done(Status::failed,
                    fmt::format("expected at least {} outputs, got {}", extra, outputs.size()));
      std::size_t base = outputs.size() - extra;
      for (std::size_t k = 0; k < checks.size(); ++k) {
        Array actual = outputs[base + 2 * k].to_host();
        Array expected = outputs[base + 2 * k + 1].to_host();
        if (actual.type() != checks[k].type || expected.type() != checks[k].type)
          return done(Status::failed,
                      fmt::format("check at line {}: outputs have types {} and {}, expected {}",
                                  checks[k].line, actual.type().to_string(),
                                  expected.type().to_string(), checks[k].type.to_string()));
        if (auto mismatch = compare(checks[k].kind, checks[k].type, actual.data(), expected.data()))
          return done(Status::failed, fmt::format("line {}: {}", checks[k].line, *mismatch));
      }
    } else {
      for (const Buffer& b : outputs) b.to_host();  // surfaces any deferred execution error
    }
  } catch (const PjrtError& e) {
    std::string m = e.what();
    // A check handler's mismatch: keep its message, without the PJRT prefix.
    if (std::size_t at = m.find("check.expect_"); at != std::string::npos)
      return done(Status::failed, m.substr(at));
    return done(
        e.error_code() == PjrtErrorCode::unimplemented ? Status::unsupported : Status::failed,
        "execute: " + m);
  } catch (const std::exception& e) {
    return done(Status::failed, std::string("execute: ") + e.what());
  }
  return done(Status::passed, "");
}

int worker_main(CheckMode mode, bool reprint) {
  // The protocol owns the real stdout; whatever else writes to stdout lands on stderr.
  int proto_fd = dup(STDOUT_FILENO);
  dup2(STDERR_FILENO, STDOUT_FILENO);
  FILE* proto = fdopen(proto_fd, "w");
  if (!proto) return 1;
  std::optional<Client> client;
  try {
    Plugin plugin = Plugin::for_platform("cpu");
    if (mode == CheckMode::ffi) register_check_handlers(plugin);
    client = Client::create(plugin, {{"cpu_device_count", int64_t{1}}});
  } catch (const std::exception& e) {
    fmt::print(proto, "error\t{}\n", condense(e.what(), 2000));
    std::fflush(proto);
    return 1;
  }
  fmt::print(proto, "ready\n");
  std::fflush(proto);
  std::string path;
  while (std::getline(std::cin, path)) {
    if (path.empty()) continue;
    FileResult r = run_file(*client, path, mode, reprint);
    fmt::print(proto, "{}\t{:.3f}\t{}\n", status_name(r.status), r.seconds, r.reason);
    std::fflush(proto);
  }
  return 0;
}

}  // namespace hhlo::conformance
