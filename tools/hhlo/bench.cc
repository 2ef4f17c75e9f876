// `hhlo bench prog.mlir [-i x.npy ...] [--iterations N] [--warmup W] [--json] [--platform P]
// [--xla-option NAME=VALUE ...]`: compile time cold (PJRT_Client_Compile) and cached (a
// compile-cache hit: read, check, PJRT_Executable_DeserializeAndLoad, in a fresh temporary cache
// folder), then per-call latency (execute + await, inputs already on the device) percentiles and
// throughput. Prints a table, or one JSON object with --json.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands.h"
#include "deadline.h"
#include "hhlo/core/array.h"
#include "hhlo/core/error.h"
#include "hhlo/ir/printer.h"
#include "hhlo/lapack/kernels.h"
#include "hhlo/onednn/kernels.h"
#include "hhlo/program/compile.h"
#include "hhlo/program/program_cache.h"
#include "hhlo/runtime/client.h"
#include "hhlo/runtime/compile_cache.h"
#include "input_check.h"
#include "rewrite_report.h"
#include "run_input.h"

namespace hhlo::cli {
namespace {

struct BenchOptions {
  std::string program, platform = "cpu", execution = "async", entry, export_platforms;
  /// True when --execution was given: it then wins over a tuned choice's mode.
  bool execution_given = false;
  /// --timeout: seconds allowed for compiling and running (0 = no bound), deadline.h.
  double timeout = 0;
  std::vector<std::string> inputs, xla_options;
  int iterations = 100, warmup = 5;
  bool json = false;
  /// --onednn-convolution, --onednn-dot-general, --onednn-threads: PrepareOptions::onednn, the
  /// kernels registered.
  OneDnnOps onednn;
  /// --unroll-loops: PrepareOptions::unroll_loops.
  int unroll_loops = 0;
};

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// Percentile `p` (0..100) of sorted `v`, linear between closest ranks (NumPy's default).
double percentile(const std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  double rank = p / 100.0 * static_cast<double>(v.size() - 1);
  std::size_t lo = static_cast<std::size_t>(std::floor(rank)), hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (rank - static_cast<double>(lo));
}

/// The options of the program stage for `hhlo bench`, as `hhlo run` prepares a program (entry,
/// platform index, refinement to the input shapes when inputs are given, the opt-in rewrites).
PrepareOptions bench_prepare_options(const BenchOptions& o, const RunInputs& in) {
  PrepareOptions p{.entry = o.entry,
                   .export_platforms = split_list(o.export_platforms),
                   .platform = o.platform,
                   .onednn = o.onednn,
                   .unroll_loops = o.unroll_loops};
  if (!o.inputs.empty()) {
    std::vector<TensorType> types;
    for (const Array& a : in.inputs) types.push_back(a.type());
    p.arg_types = std::move(types);
  }
  return p;
}

/// The program read once, prepared with `in.prepare` (a jax.export artifact's inputs checked
/// and its unused ones dropped from `in`).
PreparedProgram prepare_for_bench(const BenchOptions& o, RunInputs& in) {
  try {
    PreparedProgram p = prepare_program(std::move(*in.program), in.prepare);
    keep_module_inputs(p, in);
    return p;
  } catch (const IoError&) {
    throw;
  } catch (const Error& e) {
    std::string what = e.what();
    if (what.starts_with("cannot compile")) throw;
    throw Error(fmt::format("cannot compile '{}': {}", o.program, what));
  }
}

/// The program read once and the inputs (read_inputs: .npy files, NAME=FILE, one .npz).
RunInputs read_bench_inputs(const BenchOptions& o) {
  RunInputs in;
  in.bytes = read_program_file_bytes(o.program);
  in.program = read_program_bytes(in.bytes, o.program);
  in.io = io_names(*in.program, o.entry);
  Inputs read = read_inputs(o.inputs, in.io);
  in.inputs = std::move(read.arrays);
  in.labels = std::move(read.labels);
  return in;
}

/// Time of a compile-cache hit in a fresh folder (filled once, then the load timed), and the
/// entry's size; -1 ms when the plugin's executable could not be cached.
std::pair<double, std::uint64_t> cached_compile(const Client& client, const PreparedProgram& p,
                                                const CompileOptions& options) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / fmt::format("hhlo-bench-cache-{}", getpid());
  double cached_ms = -1;
  std::uint64_t entry_bytes = 0;
  CompileCache cache({.dir = dir.string()});
  CacheOutcome outcome;
  compile(client, p, options, &cache, &outcome);
  if (outcome == CacheOutcome::miss) {
    auto t0 = Clock::now();
    LoadedExecutable loaded = compile(client, p, options, &cache, &outcome);
    cached_ms = outcome == CacheOutcome::hit ? ms_since(t0) : -1;
    std::error_code ec;
    std::string key = cache.key(client, to_mlir(p.module), compile_options_for(p, options));
    entry_bytes = std::filesystem::file_size(cache.entry_path(key), ec);
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return {cached_ms, entry_bytes};
}

/// The client `hhlo bench` runs on, and the options it compiles with: `--execution` and
/// `--xla-option`, with the choice `hhlo tune` remembered for the program (hhlo/program/tune.h)
/// applied when there is one for this client (its mode unless --execution was given).
struct BenchSetup {
  Client client;
  CompileOptions options;
  std::optional<RememberedChoice> tuned;
};
BenchSetup setup_bench(const BenchOptions& o, const RunInputs& in) {
  CompileOptions options = compile_options(o.xla_options);
  CompileCache cache;
  std::optional<RememberedChoice> tuned =
      find_tuned_choice(o.program, cache, source_key(in.bytes, 0, in.prepare, options));
  std::string mode = o.execution;
  if (tuned && !o.execution_given) mode = tuned->choice.synchronous ? "sync" : "async";
  Client client = Client::create(o.platform, execution_options(mode, o.platform));
  if (tuned && cache.client_identity(client) != tuned->client) {  // tuned on another client
    if (mode != o.execution)
      client = Client::create(o.platform, execution_options(o.execution, o.platform));
    tuned.reset();
  }
  if (tuned) options = tuned->choice.apply(std::move(options));
  if (tuned) tuned->choice.synchronous = mode == "sync";  // --execution wins
  return {std::move(client), std::move(options), std::move(tuned)};
}

int run_bench(const BenchOptions& o) {
  Deadline deadline(o.timeout, o.program);
  RunInputs in = read_bench_inputs(o);
  in.prepare = bench_prepare_options(o, in);
  auto [client, options, tuned] = setup_bench(o, in);
  if (tuned) in.prepare = tuned->choice.with_rewrites(in.prepare);  // the rewrites hhlo tune chose
  PreparedProgram program = prepare_for_bench(o, in);
  std::vector<Array>& inputs = in.inputs;
  if (o.platform == "cpu") register_jax_cpu_kernels(client);  // JAX's lapack_*_ffi targets
  print_rewrites(program, in.prepare);
  if (in.prepare.onednn.any()) register_onednn_kernels(client);

  auto t0 = Clock::now();
  LoadedExecutable exe;
  try {
    exe = compile(client, program, options);
  } catch (const Error& e) {  // PjrtError from the plugin
    throw Error(
        fmt::format("cannot compile '{}': {}", o.program, name_program_in(e.what(), o.program)));
  }
  double cold_ms = ms_since(t0);
  auto [cached_ms, entry_bytes] = cached_compile(client, program, options);

  if (o.inputs.empty()) {
    if (auto types = exe.input_types())
      for (const TensorType& t : *types) inputs.emplace_back(t);  // zeros
  } else {
    check_inputs(exe, inputs, in.labels, o.entry);  // as `hhlo run` does: count, dtype, shape
  }
  std::vector<Buffer> buffers;
  for (const Array& a : inputs) buffers.push_back(client.buffer_from_host(a));
  std::vector<const Buffer*> args;
  for (const Buffer& b : buffers) args.push_back(&b);
  // Every call runs on the same inputs: a program that donates some (a training step) keeps them.
  const ExecuteOptions keep = ExecuteOptions::keeping_inputs(args.size());
  for (int i = 0; i < o.warmup; ++i) exe.execute(args, keep);
  std::vector<double> us;
  auto all = Clock::now();
  for (int i = 0; i < o.iterations; ++i) {
    auto s = Clock::now();
    std::vector<Buffer> out = exe.execute(args, keep);
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - s).count());
  }
  double total_s = ms_since(all) / 1e3;
  deadline.disarm();
  std::sort(us.begin(), us.end());
  double mean = 0;
  for (double u : us) mean += u / static_cast<double>(us.size());
  double throughput = total_s > 0 ? static_cast<double>(us.size()) / total_s : 0;

  if (o.json) {
    nlohmann::json j = {
        {"program", o.program},
        {"platform", o.platform},
        {"tuned", tuned ? nlohmann::json(tuned->choice.describe()) : nlohmann::json(nullptr)},
        {"compile_cold_ms", cold_ms},
        {"compile_cached_ms", cached_ms < 0 ? nlohmann::json(nullptr) : nlohmann::json(cached_ms)},
        {"cache_speedup",
         cached_ms > 0 ? nlohmann::json(cold_ms / cached_ms) : nlohmann::json(nullptr)},
        {"cache_entry_bytes", entry_bytes},
        {"iterations", us.size()},
        {"warmup", o.warmup},
        {"latency_us",
         {{"min", us.front()},
          {"p50", percentile(us, 50)},
          {"p90", percentile(us, 90)},
          {"p99", percentile(us, 99)},
          {"max", us.back()},
          {"mean", mean}}},
        {"throughput_per_s", throughput}};
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  fmt::print("program:            {} ({})\n", o.program, o.platform);
  if (tuned)
    fmt::print("tuned:              {} (remembered by hhlo tune)\n", tuned->choice.describe());
  fmt::print("compile, cold:      {:10.2f} ms\n", cold_ms);
  if (cached_ms >= 0)
    fmt::print("compile, cached:    {:10.2f} ms  ({:.0f}x faster; entry {} bytes)\n", cached_ms,
               cold_ms / cached_ms, entry_bytes);
  else
    fmt::print("compile, cached:    n/a (the plugin's executable could not be cached)\n");
  fmt::print("latency over {} call(s) after {} warm-up (execute + await), us:\n", us.size(),
             o.warmup);
  fmt::print("  {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "min", "p50", "p90", "p99", "max",
             "mean");
  fmt::print("  {:10.1f} {:10.1f} {:10.1f} {:10.1f} {:10.1f} {:10.1f}\n", us.front(),
             percentile(us, 50), percentile(us, 90), percentile(us, 99), us.back(), mean);
  fmt::print("throughput:         {:10.1f} calls/s\n", throughput);
  return 0;
}

const bool registered = register_command({
    .name = "bench",
    .description = "Compile time (cold and cached) and per-call latency of a StableHLO program",
    .setup = [](CLI::App& sub) -> Action {
      auto o = std::make_shared<BenchOptions>();
      sub.add_option("program", o->program,
                     "StableHLO program (.mlir text or bytecode) or jax.export artifact (.jax)")
          ->required();
      sub.add_option("--input,-i", o->inputs,
                     "Input .npy file, one per entry parameter, in order (default: zeros); or "
                     "NAME=FILE.npy per parameter, or one .npz by name (as `hhlo run`); a "
                     "shape-polymorphic program is refined to their shapes")
          ->allow_extra_args(false);  // one file per -i: a mistyped flag is never an input
      sub.add_option("--iterations,-n", o->iterations, "Timed calls (default 100)")
          ->check(CLI::Range(1, 100000000));
      sub.add_option("--warmup", o->warmup, "Untimed calls first (default 5)")
          ->check(CLI::Range(0, 1000000));
      sub.add_flag("--json", o->json, "Print one JSON object instead of the table");
      sub.add_option("--platform", o->platform, "Platform whose plugin to load")
          ->check(CLI::IsMember({"cpu", "cuda"}));
      add_execution_option(sub, o->execution)->each([o](const std::string&) {
        o->execution_given = true;
      });
      sub.add_option("--entry", o->entry,
                     "Public function to run (default: @main, or the only public function)");
      sub.add_option("--export-platforms", o->export_platforms,
                     "For a multi-platform jax.export: its platforms in order (e.g. cpu,cuda)");
      add_timeout_option(sub, o->timeout);
      sub.add_option("--xla-option", o->xla_options, "XLA compile option NAME=VALUE, repeatable")
          ->allow_extra_args(false);
      add_onednn_option(sub, o->onednn);
      add_unroll_option(sub, o->unroll_loops);
      return [o] { return run_bench(*o); };
    },
});

}  // namespace
}  // namespace hhlo::cli
