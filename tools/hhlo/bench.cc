// `hhlo bench prog.mlir [-i x.npy ...] [--iterations N] [--warmup W] [--json] [loading flags]`:
// the program loaded as `hhlo run` loads it (hhlo::load: the tuned choice followed, with or
// without -i; sharded programs over their devices), the time of a cold load (read, prepare,
// PJRT_Client_Compile) and a cached one (the compile cache's record and
// PJRT_Executable_DeserializeAndLoad, in a fresh temporary cache folder), then per-call latency
// (execute + await, inputs already on the devices) percentiles and throughput. Prints a table, or
// one JSON object with --json.
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
#include "hhlo/core/percentile.h"
#include "hhlo/program/load.h"
#include "hhlo/program/placed_call.h"
#include "hhlo/runtime/compile_cache.h"
#include "input_check.h"
#include "load_flags.h"
#include "rewrite_report.h"
#include "run_input.h"

namespace hhlo::cli {
namespace {

struct BenchOptions : LoadFlags {
  /// --timeout: seconds allowed for compiling and running (0 = no bound), deadline.h.
  double timeout = 0;
  std::vector<std::string> inputs;
  int iterations = 100, warmup = 5;
  bool json = false;
};

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// What loading the program costs: cold (read, prepare, PJRT_Client_Compile) and from the
/// compile cache (its record and PJRT_Executable_DeserializeAndLoad, nothing read), each through
/// hhlo::load on `loaded`'s client with the options it was loaded with, in a fresh temporary
/// cache folder; and the size of the cache entry. cached_ms is -1 when the plugin's executable
/// could not be cached.
struct LoadTimes {
  double cold_ms = 0, cached_ms = -1;
  std::uint64_t entry_bytes = 0;
};
LoadTimes time_loads(const BenchOptions& o, std::string_view bytes, const Loaded& loaded) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / fmt::format("hhlo-bench-cache-{}", getpid());
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  LoadTimes t;
  {
    CompileCache cache({.dir = dir.string()});
    LoadRequest r{.bytes = bytes,
                  .name = o.program,
                  .options = loaded.options,
                  .cache = &cache,
                  .client = &loaded.client,
                  .follow_tuned = false};
    auto t0 = Clock::now();
    Loaded cold = load(r);
    t.cold_ms = ms_since(t0);
    if (cold.outcome == CacheOutcome::miss) {
      t0 = Clock::now();
      Loaded cached = load(r);
      if (cached.outcome == CacheOutcome::hit) t.cached_ms = ms_since(t0);
    }
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
      if (e.path().extension() == ".hxc")
        t.entry_bytes = std::max<std::uint64_t>(t.entry_bytes, e.file_size(ec));
  }
  std::filesystem::remove_all(dir, ec);
  return t;
}

/// The sorted per-call latencies (execute + await, inputs on the devices, each call on the same
/// inputs) of `o.iterations` calls after `o.warmup`, and their total seconds.
std::pair<std::vector<double>, double> time_calls(const BenchOptions& o, const PlacedCall& placed) {
  for (int i = 0; i < o.warmup; ++i) placed.call(true);
  std::vector<double> us;
  auto all = Clock::now();
  for (int i = 0; i < o.iterations; ++i) {
    auto s = Clock::now();
    placed.call(true);
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - s).count());
  }
  double total_s = ms_since(all) / 1e3;
  std::sort(us.begin(), us.end());
  return {std::move(us), total_s};
}

void print_json(const BenchOptions& o, const Loaded& loaded, const LoadTimes& t,
                const std::vector<double>& us, double mean, double throughput) {
  const std::optional<RememberedChoice>& tuned = loaded.tuned;
  nlohmann::json j = {
      {"program", o.program},
      {"platform", o.platform},
      {"devices", loaded.executable.devices().size()},
      {"tuned", tuned ? nlohmann::json(tuned->choice.describe()) : nlohmann::json(nullptr)},
      {"compile_cold_ms", t.cold_ms},
      {"compile_cached_ms",
       t.cached_ms < 0 ? nlohmann::json(nullptr) : nlohmann::json(t.cached_ms)},
      {"cache_speedup",
       t.cached_ms > 0 ? nlohmann::json(t.cold_ms / t.cached_ms) : nlohmann::json(nullptr)},
      {"cache_entry_bytes", t.entry_bytes},
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
}

void print_table(const BenchOptions& o, const Loaded& loaded, const LoadTimes& t,
                 const std::vector<double>& us, double mean, double throughput) {
  std::size_t devices = loaded.executable.devices().size();
  fmt::print("program:            {} ({}{})\n", o.program, o.platform,
             devices > 1 ? fmt::format(", {} devices", devices) : "");
  if (loaded.tuned)
    fmt::print("tuned:              {} (remembered by hhlo tune)\n",
               loaded.tuned->choice.describe());
  fmt::print("compile, cold:      {:10.2f} ms\n", t.cold_ms);
  if (t.cached_ms >= 0)
    fmt::print("compile, cached:    {:10.2f} ms  ({:.0f}x faster; entry {} bytes)\n", t.cached_ms,
               t.cold_ms / t.cached_ms, t.entry_bytes);
  else
    fmt::print("compile, cached:    n/a (the plugin's executable could not be cached)\n");
  fmt::print("latency over {} call(s) after {} warm-up (execute + await), us:\n", us.size(),
             o.warmup);
  fmt::print("  {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "min", "p50", "p90", "p99", "max",
             "mean");
  fmt::print("  {:10.1f} {:10.1f} {:10.1f} {:10.1f} {:10.1f} {:10.1f}\n", us.front(),
             percentile(us, 50), percentile(us, 90), percentile(us, 99), us.back(), mean);
  fmt::print("throughput:         {:10.1f} calls/s\n", throughput);
}

int run_bench(const BenchOptions& o) {
  Deadline deadline(o.timeout, o.program);
  CompileCache cache;
  // Without inputs, zeros of the program's input types: the same load (and tuned choice) as
  // `hhlo run` or `hhlo tune` given inputs of those types.
  RunInputs in = read_run_inputs(o, o.inputs, &cache, true);
  if (o.inputs.empty() && !in.inputs.empty())
    fmt::print(stderr, "inputs: zeros of the program's {} input type(s) (no -i given)\n",
               in.inputs.size());
  Loaded loaded = load_program(o.program, in.bytes, in.load, cache, &in.program);
  print_rewrites(loaded.facts, loaded.options.prepare);
  LoadTimes times = time_loads(o, in.bytes, loaded);
  keep_module_inputs(loaded.facts, in);
  check_inputs(loaded.executable, in.inputs, in.labels, o.entry);  // as `hhlo run` does
  PlacedCall placed(loaded.client, loaded.executable, in.inputs);
  auto [us, total_s] = time_calls(o, placed);
  deadline.disarm();
  double mean = 0;
  for (double u : us) mean += u / static_cast<double>(us.size());
  double throughput = total_s > 0 ? static_cast<double>(us.size()) / total_s : 0;
  if (o.json)
    print_json(o, loaded, times, us, mean, throughput);
  else
    print_table(o, loaded, times, us, mean, throughput);
  return 0;
}

const bool registered = register_command({
    .name = "bench",
    .description = "Compile time (cold and cached) and per-call latency of a StableHLO program",
    .setup = [](CLI::App& sub) -> Action {
      auto o = std::make_shared<BenchOptions>();
      add_load_flags(sub, *o);
      sub.add_option("--input,-i", o->inputs,
                     "Input .npy file, one per entry parameter, in order (default: zeros of "
                     "each input's type); or NAME=FILE.npy per parameter, or one .npz by name "
                     "(as `hhlo run`); a shape-polymorphic program is refined to their shapes")
          ->allow_extra_args(false);  // one file per -i: a mistyped flag is never an input
      sub.add_option("--iterations,-n", o->iterations, "Timed calls (default 100)")
          ->check(CLI::Range(1, 100000000));
      sub.add_option("--warmup", o->warmup, "Untimed calls first (default 5)")
          ->check(CLI::Range(0, 1000000));
      sub.add_flag("--json", o->json, "Print one JSON object instead of the table");
      add_timeout_option(sub, o->timeout);
      return [o] { return run_bench(*o); };
    },
});

}  // namespace
}  // namespace hhlo::cli
