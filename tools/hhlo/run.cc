// `hhlo run PROGRAM.mlir [--input a.npy ...] [--output-dir DIR] [--platform cpu|cuda] [--repeat
// N] [--xla-option NAME=VALUE ...] [--custom-call-library lib.so ...]`: registers JAX's LAPACK
// targets (CPU) and the given kernel libraries, compiles a StableHLO program, checks the inputs
// against @main, executes, prints and writes outputs.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "commands.h"
#include "deadline.h"
#include "hhlo/core/array.h"
#include "hhlo/core/file_io.h"
#include "hhlo/core/percentile.h"
#include "hhlo/program/load.h"
#include "hhlo/program/placed_call.h"
#include "hhlo/runtime/compile_cache.h"
#include "input_check.h"
#include "load_flags.h"
#include "rewrite_report.h"
#include "run_input.h"
#include "run_npz.h"

namespace hhlo::cli {
namespace {

/// Creates `dir` if needed and checks that files can be created in it, before anything runs; the
/// temporaries a killed writer left there (remove_stale_temporaries) are removed.
void prepare_output_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw IoError(fmt::format("output directory '{}' cannot be created: {}", dir,
                              ec ? ec.message() : "a file of that name exists"));
  remove_stale_temporaries(dir);
  std::string probe = (std::filesystem::path(dir) / ".hhlo-write-probe").string();
  {
    std::ofstream out(probe);
    if (!out) throw IoError(fmt::format("output directory '{}' is not writable", dir));
  }
  std::filesystem::remove(probe, ec);
}

/// File stems for the outputs: each result's name (`results`: PreparedProgram::names, JAX's
/// pytree path from `jax.result_info` or a jax.export artifact, e.g. "result['loss']"), without
/// JAX's leading "result", reduced to letters, digits, '-' and '.' (a '.' only inside a word: a
/// namedtuple field's leading '.' separates as a bracket does), other runs of characters
/// becoming one '_' ("loss", "[0]['w']" -> "0_w", "[1].count" -> "1_count", ".h" -> "h"), when
/// every result has one that is not only digits and they are distinct; else out0, out1, ...
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
      bool in_word = !stem.empty() && stem.back() != '_';
      bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || (c == '.' && in_word);
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

/// Element `i` of `a` as NumPy prints it: an integer exactly, a float in 6 significant digits, or
/// for a complex dtype "RE+IMj" ("1-0.5j").
std::string element_text(const Array& a, int64_t i) {
  // Integers exactly, as NumPy prints them (a double rounds past 2^53).
  if (is_integer(a.dtype()) && byte_size(a.dtype()) * 8 == std::size_t(bit_width(a.dtype())))
    return visit_dtype(a.dtype(), [&](auto t) {
      using T = decltype(t);
      if constexpr (std::is_integral_v<T>) return fmt::format("{}", a.values<T>()[i]);
      return std::string();  // not reached: the test above takes the C++ integer types only
    });
  if (!is_complex(a.dtype())) return fmt::format("{:g}", a.element_as_double(i));
  std::complex<double> z = a.dtype() == DType::c64
                               ? std::complex<double>(a.values<std::complex<float>>()[i])
                               : a.values<std::complex<double>>()[i];
  return fmt::format("{:g}{:+g}j", z.real(), z.imag());
}

std::string preview(const Array& a) {
  constexpr int64_t kMax = 8;
  std::string s;
  int64_t n = std::min(a.num_elements(), kMax);
  for (int64_t i = 0; i < n; ++i) s += fmt::format("{}{}", i ? ", " : "", element_text(a, i));
  if (a.num_elements() > kMax) s += ", ...";
  return "[" + s + "]";
}

/// True when `out` (--output-dir) names the `.npy` file of the only output.
bool npy_output(const std::string& out) { return out.size() > 4 && out.ends_with(".npy"); }

/// True when `out` (--output-dir) names one file, not a folder: an `.npz` archive or a
/// safetensors file of every output, or the `.npy` file of the only one.
bool one_file_output(const std::string& out) {
  return (out.size() > 4 && out.ends_with(".npz")) ||
         (out.size() > 12 && out.ends_with(".safetensors")) || npy_output(out);
}

/// Refuses `-o FILE.npy` for a program of other than one output, before it runs (nothing is
/// written). Throws hhlo::Error.
void check_npy_output(const std::string& out, std::size_t outputs) {
  if (npy_output(out) && outputs != 1)
    throw Error(fmt::format(
        "-o {}: a .npy file holds one array and the program has {} outputs: give a folder or "
        "a path ending in .npz",
        out, outputs));
}

/// Writes every output to disk first (the `.npz` archive, safetensors file or `.npy` file at
/// `o.output_dir`, or NAMES[i].npy in that folder), then prints each with a preview: a closed
/// stdout (`hhlo run ... | head -1`) never costs a result. `names` are the file stems
/// (output_names), `io` the argument names.
void emit_outputs(const RunOptions& o, const std::vector<Array>& host,
                  const std::vector<std::string>& names, const IoNames& io) {
  bool npz_out = o.output_dir.size() > 4 && o.output_dir.ends_with(".npz");
  if (npy_output(o.output_dir)) {
    write_npy(o.output_dir, host.at(0));
  } else if (npz_out) {
    write_outputs_npz(o.output_dir, host, IoNames{io.args, names});
  } else if (one_file_output(o.output_dir)) {
    write_outputs_safetensors(o.output_dir, host, output_keys(io.results, names));
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

/// The per-call times of `repeat` timed calls of `call` in microseconds, sorted; their minimum
/// and median printed.
template <typename F>
std::vector<double> time_calls(int repeat, F call) {
  std::vector<double> us;
  for (int r = 0; r < repeat; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    call();
    auto t1 = std::chrono::steady_clock::now();
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(us.begin(), us.end());
  fmt::print("latency over {} call(s) (execute + await): min {:.1f} us, median {:.1f} us\n",
             us.size(), us.front(), percentile(us, 50));
  return us;
}

/// The latencies `us` (sorted) as one JSON line (--json).
void print_latency_json(const std::vector<double>& us) {
  double mean = 0;
  for (double u : us) mean += u / static_cast<double>(us.size());
  nlohmann::json j = {{"calls", us.size()},
                      {"latency_us",
                       {{"min", us.front()},
                        {"median", percentile(us, 50)},
                        {"p90", percentile(us, 90)},
                        {"max", us.back()},
                        {"mean", mean}}},
                      {"samples_us", us}};
  fmt::print("{}\n", j.dump());
}

int run_program(const RunOptions& o) {
  Deadline deadline(o.timeout, o.program);
  if (o.output_dir_given && o.output_dir.empty())
    throw Error("--output-dir is empty: give a folder, or a path ending in .npz or .safetensors");
  CompileCache cache;
  RunInputs in = load_run_inputs(o, &cache);
  if (!o.output_dir.empty() && !one_file_output(o.output_dir)) prepare_output_dir(o.output_dir);
  if (one_file_output(o.output_dir)) {  // a killed writer's temporaries of that file
    std::filesystem::path out(o.output_dir);
    remove_stale_temporaries(out.has_parent_path() ? out.parent_path().string() : ".",
                             out.filename().string());
  }
  Loaded loaded = load_program(o.program, in.bytes, in.load, cache, &in.program);
  release_program(in);  // compiled: the file's bytes and the module are not needed to run it
  if (loaded.tuned)
    fmt::print(stderr, "tuned: {} (remembered by hhlo tune)\n", loaded.tuned->choice.describe());
  print_rewrites(loaded.facts, loaded.options.prepare);
  keep_module_inputs(loaded.facts, in);
  check_inputs(loaded.executable, in.inputs, in.labels, o.entry);
  check_npy_output(o.output_dir, loaded.executable.num_outputs());
  PlacedCall placed(loaded.client, loaded.executable, in.inputs);
  std::vector<Array> host = placed.to_host();
  deadline.disarm();  // the results are computed: writing them is never cut short
  emit_outputs(o, host, output_names(loaded.facts.names.results, host.size()), loaded.facts.names);
  if (placed.sharded())
    fmt::print("ran on {} devices (SPMD-partitioned by XLA)\n", placed.devices());
  if (o.repeat > 0) {
    std::vector<double> us = time_calls(o.repeat, [&] { placed.call(); });
    if (o.json) print_latency_json(us);
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
