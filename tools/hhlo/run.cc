// `hhlo run PROGRAM.mlir [--input a.npy ...] [--output-dir DIR] [--platform cpu|cuda] [--repeat
// N] [--xla-option NAME=VALUE ...]`: compiles a StableHLO program, checks the inputs against
// @main, executes, prints and writes outputs.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "commands.h"
#include "hhlo/core/array.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/runtime/client.h"
#include "run_input.h"

namespace hhlo::cli {
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

/// Checks the inputs against the compiled program's parameter types; refuses to run when they
/// could not be read.
void check_inputs(const LoadedExecutable& exe, const std::vector<Array>& inputs,
                  const std::vector<std::string>& names) {
  const auto& want = exe.input_types();
  if (!want)
    throw Error(
        fmt::format("the parameter types of the program could not be read ({}); "
                    "refusing to run it on unchecked inputs",
                    exe.signature_error()));
  if (want->size() != inputs.size()) {
    std::string types;
    for (const TensorType& t : *want) types += (types.empty() ? "" : ", ") + t.to_string();
    throw Error(fmt::format("@main takes {} input(s) ({}), {} given with --input", want->size(),
                            types.empty() ? "none" : types, inputs.size()));
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const TensorType& w = (*want)[i];
    const TensorType& got = inputs[i].type();
    if (w.dtype != got.dtype)
      throw Error(fmt::format("input {} ('{}') has dtype {}, @main parameter {} expects {} ({})", i,
                              names[i], dtype_name(got.dtype), i, dtype_name(w.dtype),
                              w.to_string()));
    bool dims_ok = w.rank() == got.rank();
    for (std::size_t d = 0; dims_ok && d < w.dims.size(); ++d)
      dims_ok = w.dims[d] == kDynamic || w.dims[d] == got.dims[d];
    if (!dims_ok)
      throw Error(fmt::format("input {} ('{}') has shape [{}], @main parameter {} expects {}", i,
                              names[i], dims_to_string(got.dims), i, w.to_string()));
  }
}

/// Every custom_call target named in `block` (and its regions) with its api_version, in order.
void collect_targets(const Block& block, std::vector<std::pair<std::string, int64_t>>& out) {
  for (const auto& op : block.ops()) {
    if (op->name() == "stablehlo.custom_call") {
      const Attribute* t = op->attr("call_target_name");
      const Attribute* v = op->attr("api_version");
      const StringAttr* name = t ? t->get_if<StringAttr>() : nullptr;
      const IntAttr* version = v ? v->get_if<IntAttr>() : nullptr;
      if (name && std::none_of(out.begin(), out.end(),
                               [&](const auto& e) { return e.first == name->value; }))
        out.emplace_back(name->value, version ? version->value : 0);
    }
    for (const auto& region : op->regions()) collect_targets(*region, out);
  }
}

/// After the plugin reported one unregistered custom-call target (NOT_FOUND), the others: each
/// target of the parsed program is compiled alone in a one-op probe and kept when the plugin
/// cannot resolve it either. Empty when the text does not parse (the plugin's message stands).
std::vector<std::string> unregistered_targets(const Client& client, const std::string& text) {
  std::vector<std::pair<std::string, int64_t>> targets;
  try {
    Module m = parse_module(text, {.verify = false});
    for (const auto& f : m.funcs()) collect_targets(f->body(), targets);
  } catch (const Error&) {
    return {};
  }
  std::vector<std::string> missing;
  for (const auto& [target, version] : targets) {
    std::string probe = fmt::format(
        "module @probe {{\n  func.func public @main(%a: tensor<f32>) -> tensor<f32> {{\n"
        "    %0 = stablehlo.custom_call @\"{}\"(%a) {{api_version = {} : i32}} : (tensor<f32>) -> "
        "tensor<f32>\n    return %0 : tensor<f32>\n  }}\n}}\n",
        target, version ? version : 1);
    try {
      client.compile(probe);
    } catch (const PjrtError& e) {
      if (e.code() == 5) missing.push_back(target);
    } catch (const Error&) {
    }
  }
  return missing;
}

std::string preview(const Array& a) {
  constexpr int64_t kMax = 8;
  std::string s;
  int64_t n = std::min(a.num_elements(), kMax);
  for (int64_t i = 0; i < n; ++i) s += fmt::format("{}{:g}", i ? ", " : "", a.element_as_double(i));
  if (a.num_elements() > kMax) s += ", ...";
  return "[" + s + "]";
}

int run_program(const RunOptions& o) {
  RunInputs in = load_run_inputs(o);
  const std::string& text = in.text;
  const CompileOptions& options = in.options;
  const std::vector<Array>& inputs = in.inputs;
  if (!o.output_dir.empty()) prepare_output_dir(o.output_dir);

  Client client = Client::create(o.platform);
  LoadedExecutable exe;
  try {
    exe = client.compile(text, options);
  } catch (const PjrtError& e) {
    // The plugin names the program "-" in its diagnostics ("-:2:25: error: ..."): name the file.
    std::string message = e.what();
    for (std::size_t at = 0; (at = message.find("-:", at)) != std::string::npos;) {
      bool starts_line = at == 0 || message[at - 1] == '\n' || message[at - 1] == ' ';
      bool has_position =
          at + 2 < message.size() && std::isdigit(static_cast<unsigned char>(message[at + 2]));
      if (starts_line && has_position) {
        message.replace(at, 1, o.program);
        at += o.program.size() + 1;
      } else {
        at += 2;
      }
    }
    if (e.code() == 5) {  // NOT_FOUND: an unregistered custom-call target; name all of them
      std::vector<std::string> missing = unregistered_targets(client, text);
      if (missing.size() > 1)
        message += fmt::format(
            "\n{} custom-call targets of the program are not registered with "
            "the plugin: {}",
            missing.size(), fmt::join(missing, ", "));
    }
    throw Error(fmt::format("cannot compile '{}': {}", o.program, message));
  }
  check_inputs(exe, inputs, o.inputs);
  std::vector<Buffer> buffers;
  for (const Array& a : inputs) buffers.push_back(client.buffer_from_host(a));
  std::vector<const Buffer*> args;
  for (const Buffer& b : buffers) args.push_back(&b);

  std::vector<Buffer> outputs = exe.execute(args);
  std::vector<Array> host;
  for (const Buffer& b : outputs) host.push_back(b.to_host());
  for (std::size_t i = 0; i < host.size(); ++i) {
    fmt::print("out{}: {} {}\n", i, host[i].type().to_string(), preview(host[i]));
    if (!o.output_dir.empty()) {
      std::string path =
          (std::filesystem::path(o.output_dir) / fmt::format("out{}.npy", i)).string();
      write_npy(path, host[i]);
    }
  }
  if (!o.output_dir.empty()) fmt::print("wrote {} output(s) to {}\n", host.size(), o.output_dir);

  if (o.repeat > 0) {
    std::vector<double> us;
    for (int r = 0; r < o.repeat; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      std::vector<Buffer> out = exe.execute(args);
      auto t1 = std::chrono::steady_clock::now();
      us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    std::sort(us.begin(), us.end());
    double median =
        us.size() % 2 ? us[us.size() / 2] : (us[us.size() / 2 - 1] + us[us.size() / 2]) / 2;
    fmt::print("latency over {} call(s) (execute + await): min {:.1f} us, median {:.1f} us\n",
               us.size(), us.front(), median);
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
