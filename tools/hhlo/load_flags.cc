// The loading flags of the CLI and its one call of hhlo::load (load_flags.h).
#include "load_flags.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <limits>
#include <sstream>

#include "hhlo/core/sharding.h"
#include "hhlo/ir/infer.h"
#include "hhlo/ir/refine.h"

namespace hhlo::cli {
namespace {

/// The ExecutionMode of `--execution MODE` ("" when not given). Throws hhlo::Error for another
/// word.
ExecutionMode execution_mode(const std::string& mode) {
  if (mode.empty()) return ExecutionMode::automatic;
  if (mode == "async") return ExecutionMode::async;
  if (mode == "sync") return ExecutionMode::sync;
  throw Error(fmt::format("--execution '{}': expected async or sync", mode));
}

}  // namespace

void add_onednn_option(CLI::App& sub, OneDnnOps& ops) {
  CLI::Option* conv =
      sub.add_flag("--onednn-convolution", ops.convolution,
                   "Run the f32 convolutions oneDNN serves as oneDNN's kernel (opt-in: faster "
                   "only where measured, docs/benchmarks.md)");
  CLI::Option* dot =
      sub.add_flag("--onednn-dot-general", ops.dot_general,
                   "Run the f32 dot_generals oneDNN serves as oneDNN's matmul (opt-in: faster "
                   "only where measured, docs/benchmarks.md)");
  CLI::Option* threads =
      sub.add_option("--onednn-threads", ops.threads,
                     "Threads of each oneDNN call (convolutions: OpenMP's; dot_generals: the "
                     "matmul's own team): 0 the default (every core), 1 the calling thread "
                     "alone (default 0); needs --onednn-convolution or --onednn-dot-general")
          ->check(CLI::Range(0, 4096));
  sub.parse_complete_callback([threads, conv, dot] {
    if (threads->count() > 0 && conv->count() + dot->count() == 0)
      throw CLI::RequiresError("--onednn-threads", "--onednn-convolution or --onednn-dot-general");
  });
}

void add_unroll_option(CLI::App& sub, int& factor) {
  sub.add_option("--unroll-loops", factor,
                 "Unroll counted while loops (JAX's scan, fori_loop) by up to K iterations per "
                 "body (opt-in: faster only where measured, docs/benchmarks.md)")
      ->check(CLI::Range(2, 1024));
}

void add_hoist_option(CLI::App& sub, int64_t& min_bytes) {
  sub.add_option("--hoist-constants", min_bytes,
                 "Keep the constants of @main of at least BYTES bytes (a model's weights) out of "
                 "the compiled program: bound to it once as device buffers, so the executable "
                 "and its cache entry hold no copy of them (opt-in; 0: off)")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            // CLI11 2.1's Range let a count past int64 through (9223372036854775808 ran);
            // from_chars says out of range for it.
            int64_t n = 0;
            auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
            if (ec != std::errc() || end != v.data() + v.size() || n < 0)
              return fmt::format("'{}' is not a byte count from 0 to {}", v,
                                 std::numeric_limits<int64_t>::max());
            return "";
          },
          "BYTES"));
}

std::vector<ClientOption> execution_options(const std::string& mode, const std::string& platform) {
  return client_options({.platform = platform, .execution = execution_mode(mode)}, 1);
}

CLI::Option* add_execution_option(CLI::App& sub, std::string& mode) {
  return sub
      .add_option("--execution", mode,
                  "async (default: XLA's thread pool runs each execution) or sync (the calling "
                  "thread runs it: less latency for small programs; CPU only)")
      ->check(CLI::IsMember({"async", "sync"}));
}

void add_load_flags(CLI::App& sub, LoadFlags& f, LoadFlagSet set) {
  sub.add_option("program", f.program,
                 "StableHLO program (.mlir text or bytecode) or jax.export artifact (.jax)")
      ->required();
  sub.add_option("--entry", f.entry,
                 "Public function to run (default: @main, or the only public function)");
  sub.add_option("--export-platforms", f.export_platforms,
                 "For a multi-platform jax.export: its platforms in order (Exported.platforms, "
                 "e.g. cpu,cuda); the _platform_index argument is then filled in");
  sub.add_option("--vjp-order", f.vjp_order,
                 "For a jax.export artifact serialized with vjp_order >= K: its K-th VJP "
                 "(inputs: the primals, then one cotangent per output)")
      ->check(CLI::Range(0, 64));
  sub.add_option("--custom-call-library", f.custom_call_libraries,
                 "Kernel library (.so) whose HHLO_CUSTOM_CALL_TARGETS to register before "
                 "compiling, repeatable")
      ->allow_extra_args(false);
  sub.add_option("--xla-option", f.xla_options,
                 "XLA compile option NAME=VALUE (a DebugOptions field; VALUE true/false, an "
                 "integer, a number or a string), repeatable; default "
                 "xla_cpu_enable_fast_min_max=false (NaN-propagating max/min)")
      ->allow_extra_args(false);  // one NAME=VALUE per flag: never swallows the program
  add_hoist_option(sub, f.hoist_constants);
  if (set == LoadFlagSet::tune) return;
  sub.add_option("--platform", f.platform, "Platform whose plugin to load")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  add_execution_option(sub, f.execution);
  add_onednn_option(sub, f.onednn);
  add_unroll_option(sub, f.unroll_loops);
}

CompileOptions compile_options(const std::vector<std::string>& xla_options) {
  CompileOptions options;
  for (const std::string& o : xla_options) {
    std::size_t eq = o.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error(
          fmt::format("--xla-option '{}' is not NAME=VALUE (e.g. "
                      "xla_cpu_enable_fast_min_max=true)",
                      o));
    options.xla_options[o.substr(0, eq)] = parse_xla_option_value(o.substr(eq + 1));
  }
  return options;
}

LoadOptions load_options(const LoadFlags& f, std::optional<std::vector<TensorType>> arg_types) {
  return {.vjp_order = f.vjp_order,
          .prepare = {.entry = f.entry,
                      .export_platforms = split_list(f.export_platforms),
                      .platform = f.platform,
                      .arg_types = std::move(arg_types),
                      .onednn = f.onednn,
                      .unroll_loops = f.unroll_loops,
                      .hoist_constants_min_bytes = f.hoist_constants},
          .compile = compile_options(f.xla_options),
          .client = {.platform = f.platform,
                     .execution = execution_mode(f.execution),
                     .kernel_libraries = f.custom_call_libraries}};
}

std::string name_program_in(std::string message, const std::string& program) {
  // Bytecode positions: "- (bytecode IR section):0:378: ..." (read_bytecode's source name).
  for (std::size_t at = 0; (at = message.find("- (bytecode ", at)) != std::string::npos;) {
    bool starts = at == 0 || message[at - 1] == '\n' || message[at - 1] == ' ';
    if (starts) message.replace(at, 1, program);
    at += starts ? program.size() : 1;
  }
  for (std::size_t at = 0; (at = message.find("-:", at)) != std::string::npos;) {
    bool starts_line = at == 0 || message[at - 1] == '\n' || message[at - 1] == ' ';
    bool has_position =
        at + 2 < message.size() && std::isdigit(static_cast<unsigned char>(message[at + 2]));
    if (starts_line && has_position) {
      message.replace(at, 1, program);
      at += program.size() + 1;
    } else {
      at += 2;
    }
  }
  return message;
}

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream ss(list);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

Loaded load_program(const std::string& path, std::string_view bytes, const LoadOptions& options,
                    CompileCache& cache, std::optional<Program>* read) {
  LoadStage stage = LoadStage::read;
  auto cannot_compile = [&](const std::string& what) {
    return Error(fmt::format("cannot compile '{}': {}", path,
                             stage == LoadStage::compile ? name_program_in(what, path) : what));
  };
  try {
    return load({.bytes = bytes,
                 .name = path,
                 .options = options,
                 .cache = &cache,
                 .stage = &stage,
                 .read = read});
  } catch (const IoError&) {
    throw;
  } catch (const ShapeAssertionError& e) {
    const std::optional<std::vector<TensorType>>& types = options.prepare.arg_types;
    throw Error(fmt::format("'{}' does not accept inputs of shapes {}: {}", path,
                            types ? types_to_string(*types) : "(none given)", e.what()));
  } catch (const ShapeError& e) {  // refinement's own message; the verifier's named as refused
    if (stage == LoadStage::prepare) throw;
    throw cannot_compile(e.what());
  } catch (const InputError& e) {  // the input count, an artifact's input against its aval
    if (stage != LoadStage::prepare) throw cannot_compile(e.what());
    throw Error(fmt::format("'{}' does not accept these inputs: {}", path, e.what()));
  } catch (const Error& e) {  // the readers, the entry, the platform index, the plugin
    if (stage == LoadStage::client) throw;
    throw cannot_compile(e.what());
  }
}

}  // namespace hhlo::cli
