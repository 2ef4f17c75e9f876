// `hhlo run PROGRAM.mlir [--input a.npy ...] [--output-dir DIR] [--platform cpu|cuda] [--repeat
// N] [--xla-option NAME=VALUE ...] [--custom-call-library lib.so ...]`: registers JAX's LAPACK
// targets (CPU) and the given kernel libraries, compiles a StableHLO program, checks the inputs
// against @main, executes, prints and writes outputs.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "commands.h"
#include "deadline.h"
#include "hhlo/core/array.h"
#include "hhlo/core/sharding.h"
#include "hhlo/ir/entry.h"
#include "hhlo/ir/infer.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/refine.h"
#include "hhlo/lapack/kernels.h"
#include "hhlo/onednn/kernels.h"
#include "hhlo/program/compile.h"
#include "hhlo/program/program_cache.h"
#include "hhlo/runtime/client.h"
#include "hhlo/runtime/compile_cache.h"
#include "hhlo/runtime/custom_call.h"
#include "input_check.h"
#include "rewrite_report.h"
#include "run_input.h"
#include "run_npz.h"
#include "run_stage.h"

namespace hhlo::cli {

PreparedProgram prepare_for_inputs(const RunOptions& o, RunInputs& in) {
  const std::string& path = o.program;
  ensure_program(o, in);
  try {
    PreparedProgram p = prepare_program(std::move(*in.program), in.prepare);
    in.program.reset();
    return p;
  } catch (const ShapeAssertionError& e) {
    throw Error(fmt::format("'{}' does not accept inputs of shapes {}: {}", path,
                            types_to_string(*in.prepare.arg_types), e.what()));
  } catch (const ShapeError&) {
    throw;
  } catch (const InputError& e) {  // the input count, an artifact's input against its aval
    throw Error(fmt::format("'{}' does not accept these inputs: {}", path, e.what()));
  } catch (const Error& e) {  // the entry, the platform index
    throw Error(fmt::format("cannot compile '{}': {}", path, e.what()));
  }
}

Client client_for_run(const RunOptions& o, int partitions) {
  std::vector<ClientOption> client_options = execution_options(o.execution, o.platform);
  if (o.platform == "cpu" && partitions > 4)  // the CPU plugin makes 4 devices unless told
    client_options.push_back({"cpu_device_count", int64_t{partitions}});
  Client client = Client::create(o.platform, client_options);
  if (partitions > static_cast<int>(client.devices().size()))
    throw ShardingError(-1, "",
                        fmt::format("'{}' has mhlo.num_partitions = {}, the {} platform has {} "
                                    "device(s)",
                                    o.program, partitions, o.platform, client.devices().size()));
  if (o.platform == "cpu") register_jax_cpu_kernels(client);  // JAX's lapack_*_ffi targets
  for (const std::string& lib : o.custom_call_libraries)
    register_kernel_library(client.plugin(), lib);
  if (o.onednn.any()) register_onednn_kernels(client);
  return client;
}

namespace {

/// Creates `dir` if needed and checks that files can be created in it, before anything runs.
void prepare_output_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw IoError(fmt::format("output directory '{}' cannot be created: {}", dir,
                              ec ? ec.message() : "a file of that name exists"));
  std::string probe = (std::filesystem::path(dir) / ".hhlo-write-probe").string();
  {
    std::ofstream out(probe);
    if (!out) throw IoError(fmt::format("output directory '{}' is not writable", dir));
  }
  std::filesystem::remove(probe, ec);
}

/// Every custom_call target named in `block` (and its regions), once each, in order.
void collect_targets(const Block& block, std::vector<std::string>& out) {
  for (const auto& op : block.ops()) {
    if (op->name() == "stablehlo.custom_call") {
      const Attribute* t = op->attr("call_target_name");
      const StringAttr* name = t ? t->get_if<StringAttr>() : nullptr;
      if (name && std::find(out.begin(), out.end(), name->value) == out.end())
        out.push_back(name->value);
    }
    for (const auto& region : op->regions()) collect_targets(*region, out);
  }
}

/// After the plugin reported one unregistered custom-call target (NOT_FOUND, its `message`
/// naming the first), all of them: the module's own custom-call targets that nothing registered
/// with the plugin (unregistered_custom_call_targets); empty when the plugin's message names none
/// of those (then it was not about them).
std::vector<std::string> unregistered_targets(const Client& client, const Module& module,
                                              const std::string& message) {
  std::vector<std::string> targets;
  for (const auto& f : module.funcs()) collect_targets(f->body(), targets);
  std::vector<std::string> missing = unregistered_custom_call_targets(client.plugin(), targets);
  bool named = std::any_of(missing.begin(), missing.end(), [&](const std::string& t) {
    return message.find(t) != std::string::npos;
  });
  return named ? missing : std::vector<std::string>{};
}

/// File stems for the outputs: each result's name (`results`: PreparedProgram::names, JAX's
/// pytree path from `jax.result_info` or a jax.export artifact, e.g. "result['loss']"), without
/// JAX's leading "result", reduced to letters, digits, '-' and '.', other runs of characters
/// becoming one '_' ("loss", "[0]['w']" -> "0_w"), when every result has one that is not only
/// digits and they are distinct; else out0, out1, ...
std::vector<std::string> output_names(const std::vector<std::string>& results, std::size_t count) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < count; ++i) names.push_back(fmt::format("out{}", i));
  if (results.size() != count) return names;
  std::vector<std::string> stems;
  for (std::size_t i = 0; i < count; ++i) {
    std::string_view r = results[i];
    if (r == names[i]) return names;  // a result without a name
    if (r.substr(0, 6) == "result") r.remove_prefix(6);
    std::string stem;
    for (char c : r) {
      bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.';
      if (keep)
        stem += c;
      else if (!stem.empty() && stem.back() != '_')
        stem += '_';
    }
    while (!stem.empty() && (stem.back() == '_' || stem.back() == '.')) stem.pop_back();
    bool digits = std::all_of(stem.begin(), stem.end(), [](char c) { return std::isdigit(c); });
    if (digits || std::find(stems.begin(), stems.end(), stem) != stems.end()) return names;
    stems.push_back(stem);
  }
  return stems;
}

std::string preview(const Array& a) {
  constexpr int64_t kMax = 8;
  std::string s;
  int64_t n = std::min(a.num_elements(), kMax);
  for (int64_t i = 0; i < n; ++i) s += fmt::format("{}{:g}", i ? ", " : "", a.element_as_double(i));
  if (a.num_elements() > kMax) s += ", ...";
  return "[" + s + "]";
}

/// Writes every output to disk first (the `.npz` archive at `o.output_dir`, or NAMES[i].npy in
/// that folder), then prints each with a preview: a closed stdout (`hhlo run ... | head -1`) never
/// costs a result. `names` are the file stems (output_names), `io` the argument names.
void emit_outputs(const RunOptions& o, const std::vector<Array>& host,
                  const std::vector<std::string>& names, const IoNames& io) {
  bool npz_out = o.output_dir.size() > 4 && o.output_dir.ends_with(".npz");
  if (npz_out) {
    write_outputs_npz(o.output_dir, host, IoNames{io.args, names});
  } else if (!o.output_dir.empty()) {
    for (std::size_t i = 0; i < host.size(); ++i)
      write_npy((std::filesystem::path(o.output_dir) / (names[i] + ".npy")).string(), host[i]);
  }
  for (std::size_t i = 0; i < host.size(); ++i) {
    std::string label =
        names[i] == fmt::format("out{}", i) ? names[i] : fmt::format("out{} ({})", i, names[i]);
    fmt::print("{}: {} {}\n", label, host[i].type().to_string(), preview(host[i]));
  }
  if (!o.output_dir.empty()) fmt::print("wrote {} output(s) to {}\n", host.size(), o.output_dir);
}

/// The median of sorted, non-empty `us`.
double median_of(const std::vector<double>& us) {
  return us.size() % 2 ? us[us.size() / 2] : (us[us.size() / 2 - 1] + us[us.size() / 2]) / 2;
}

/// The per-call times of `repeat` timed calls of `call` in microseconds, sorted; their minimum
/// and median printed. What a call returns (its outputs) is freed after its time is taken.
template <typename F>
std::vector<double> time_calls(int repeat, F call) {
  std::vector<double> us;
  for (int r = 0; r < repeat; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    auto outputs = call();
    auto t1 = std::chrono::steady_clock::now();
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(us.begin(), us.end());
  fmt::print("latency over {} call(s) (execute + await): min {:.1f} us, median {:.1f} us\n",
             us.size(), us.front(), median_of(us));
  return us;
}

/// An SPMD executable: each global input split by the layout the partitioner chose, one
/// execute over all devices, each global output assembled from its shards.
int run_sharded(const RunOptions& o, const Client& client, const LoadedExecutable& exe,
                const std::vector<Array>& inputs, const PreparedFacts& program,
                Deadline& deadline) {
  std::vector<Device> devices = exe.devices();
  std::vector<ShardedArray> args;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    args.push_back(ShardedArray::from_host(client, inputs[i], (*exe.input_layouts())[i], devices));
  std::vector<const ShardedArray*> ptrs;
  for (const ShardedArray& a : args) ptrs.push_back(&a);
  std::vector<ShardedArray> outputs = exe.execute_sharded(ptrs);
  std::vector<Array> host;
  for (const ShardedArray& a : outputs) host.push_back(a.to_host());
  deadline.disarm();
  emit_outputs(o, host, output_names(program.names.results, host.size()), program.names);
  fmt::print("ran on {} devices (SPMD-partitioned by XLA)\n", devices.size());
  if (o.repeat > 0) time_calls(o.repeat, [&] { return exe.execute_sharded(ptrs); });
  return 0;
}

/// Compiles `program` on `client` through the persistent cache (HHLO_COMPILE_CACHE), remembered
/// under `source` (program_cache.h), the plugin's errors naming the file; on an unregistered
/// custom-call target all of them are named.
LoadedExecutable compile_for_run(const Client& client, const PreparedProgram& program,
                                 const CompileOptions& options, const std::string& path,
                                 CompileCache& cache, const std::string& source) {
  try {
    return compile_remembered(client, program, options, cache, source);
  } catch (const PjrtError& e) {
    std::string message = name_program_in(e.what(), path);
    if (e.error_code() == PjrtErrorCode::not_found) {  // an unregistered custom-call target
      std::vector<std::string> missing = unregistered_targets(client, program.module, message);
      if (missing.size() > 1)
        message += fmt::format(
            "\n{} custom-call targets of the program are not registered with "
            "the plugin: {}",
            missing.size(), fmt::join(missing, ", "));
    }
    throw Error(fmt::format("cannot compile '{}': {}", path, message));
  } catch (const Error& e) {  // inconsistent options
    throw Error(fmt::format("cannot compile '{}': {}", path, name_program_in(e.what(), path)));
  }
}

/// A client and the executable of the program of `in` on it, with what was learned of the
/// program: from the source record of its bytes when the cache has one that loads (the program
/// is not read), else read, prepared and compiled (and remembered). `tuned` is the choice applied.
struct Loaded {
  Client client;
  LoadedExecutable exe;
  PreparedFacts facts;
  std::optional<RememberedChoice> tuned;
};

/// load_for_run with `tuned` applied (when present): its XLA options over `in.options`, its
/// execution mode unless --execution was given (then the choice's mode is set to that one).
/// `source` is the source key of `in` as given (recomputed when `tuned` changes the options).
Loaded load_with(const RunOptions& given, RunInputs& in, CompileCache& cache,
                 std::optional<RememberedChoice> tuned, std::string source) {
  RunOptions o = given;
  if (tuned) {
    in.options = tuned->choice.apply(in.options);
    in.prepare = tuned->choice.with_rewrites(in.prepare);  // its rewrites in the program stage
    o.onednn = in.prepare.onednn;                          // and the oneDNN kernels registered
    if (o.execution_given)  // --execution wins: the choice in use says so
      tuned->choice.synchronous = o.execution == "sync";
    else
      o.execution = tuned->choice.synchronous ? "sync" : "async";
  }
  if (tuned) source = source_key(in.bytes, o.vjp_order, in.prepare, in.options);
  if (std::optional<SourceRecord> record = find_source(cache, source)) {
    Client client = client_for_run(o, record->facts.num_partitions);
    if (std::optional<LoadedExecutable> exe = load_source(cache, client, *record))
      return {std::move(client), std::move(*exe), std::move(record->facts), std::move(tuned)};
  }
  PreparedProgram program = prepare_for_inputs(o, in);
  Client client = client_for_run(o, program.num_partitions);
  LoadedExecutable exe = compile_for_run(client, program, in.options, o.program, cache, source);
  return {std::move(client), std::move(exe), std::move(program), std::move(tuned)};
}

/// The executable of `in` (load_with), with the choice `hhlo tune` remembered for it when there
/// is one for this client; a choice tuned on another client is dropped (the defaults then).
Loaded load_for_run(const RunOptions& o, RunInputs& in, CompileCache& cache) {
  std::string source = source_key(in.bytes, o.vjp_order, in.prepare, in.options);
  std::optional<RememberedChoice> tuned = find_tuned_choice(o.program, cache, source);
  if (!tuned) return load_with(o, in, cache, std::nullopt, source);
  CompileOptions options = in.options;
  PrepareOptions prepare = in.prepare;
  Loaded loaded = load_with(o, in, cache, tuned, source);
  if (cache.client_identity(loaded.client) == tuned->client) return loaded;
  in.options = std::move(options);
  in.prepare = std::move(prepare);
  return load_with(o, in, cache, std::nullopt, source);
}

int run_program(const RunOptions& o) {
  Deadline deadline(o.timeout, o.program);
  if (o.output_dir_given && o.output_dir.empty())
    throw Error("--output-dir is empty: give a folder, or a path ending in .npz");
  CompileCache cache;
  RunInputs in = load_run_inputs(o, &cache);
  const std::vector<Array>& inputs = in.inputs;
  bool npz_out = o.output_dir.size() > 4 && o.output_dir.ends_with(".npz");
  if (!o.output_dir.empty() && !npz_out) prepare_output_dir(o.output_dir);
  auto [client, exe, program, tuned] = load_for_run(o, in, cache);
  if (tuned) fmt::print(stderr, "tuned: {} (remembered by hhlo tune)\n", tuned->choice.describe());
  print_rewrites(program, in.prepare);
  keep_module_inputs(program, in);
  check_inputs(exe, inputs, in.labels, o.entry);
  if (exe.input_layouts()) return run_sharded(o, client, exe, inputs, program, deadline);
  std::vector<Buffer> buffers;
  for (const Array& a : inputs) buffers.push_back(client.buffer_from_host(a));
  std::vector<const Buffer*> args;
  for (const Buffer& b : buffers) args.push_back(&b);

  std::vector<Buffer> outputs = exe.execute(args);
  std::vector<Array> host;
  for (const Buffer& b : outputs) host.push_back(b.to_host());
  deadline.disarm();  // the results are computed: writing them is never cut short
  emit_outputs(o, host, output_names(program.names.results, host.size()), program.names);

  if (o.repeat > 0) {
    std::vector<double> us = time_calls(o.repeat, [&] { return exe.execute(args); });
    if (o.json) {
      double mean = 0;
      for (double u : us) mean += u / static_cast<double>(us.size());
      nlohmann::json j = {{"calls", us.size()},
                          {"latency_us",
                           {{"min", us.front()},
                            {"median", median_of(us)},
                            {"p90", us[(us.size() - 1) * 9 / 10]},
                            {"max", us.back()},
                            {"mean", mean}}},
                          {"samples_us", us}};
      fmt::print("{}\n", j.dump());
    }
  }
  return 0;
}

const bool registered = register_command({
    .name = "run",
    .description =
        "Compile and run a StableHLO program on .npy inputs; print and write its outputs",
    .setup = [](CLI::App& sub) -> Action {
      auto o = std::make_shared<RunOptions>();
      add_run_options(sub, *o);
      return [o] { return run_program(*o); };
    },
});

}  // namespace
}  // namespace hhlo::cli
