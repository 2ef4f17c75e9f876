// torch_xla's saved StableHLO bundle read as one program (hhlo/program/torch_xla_bundle.h): the
// meta's input locations decide which argument of the function's @main is a user input, a
// state-dict parameter (data/KEY) or a lifted constant (constants/I); the weights are bound as
// constants of a new @main that takes the user inputs in torch's order. torch_xla's own reader
// of the same folder: torch_xla/stablehlo.py (_load_program_bundle, _extract_call_parameters).
#include "hhlo/program/torch_xla_bundle.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "hhlo/core/array.h"
#include "hhlo/core/error.h"
#include "hhlo/core/file_io.h"
#include "hhlo/ir/ops.h"
#include "hhlo/program/program.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

[[noreturn]] void bad_meta(const std::string& file, const std::string& what) {
  throw IoError(fmt::format("torch_xla bundle meta '{}': {}", file, what));
}

// torch's dtype names as torch_xla writes them (str(tensor.dtype) without "torch.").
DType torch_dtype(const std::string& name, const std::string& file) {
  static const std::map<std::string, DType> kNames = {
      {"bool", DType::pred},   {"int8", DType::i8},       {"int16", DType::i16},
      {"int32", DType::i32},   {"int64", DType::i64},     {"uint8", DType::ui8},
      {"uint16", DType::ui16}, {"uint32", DType::ui32},   {"uint64", DType::ui64},
      {"float16", DType::f16}, {"bfloat16", DType::bf16}, {"float32", DType::f32},
      {"float64", DType::f64}, {"complex64", DType::c64}, {"complex128", DType::c128}};
  auto it = kNames.find(name);
  if (it == kNames.end()) bad_meta(file, fmt::format("dtype '{}' is not one hhlo has", name));
  return it->second;
}

// A VariableSignature: {"shape": [..], "dtype": "float32", "dynamic_dims": [..]}.
TensorType signature_type(const json& s, const std::string& file) {
  Dims dims = s.at("shape").get<Dims>();
  for (int64_t d : dims)
    if (d < 0) bad_meta(file, fmt::format("a negative dimension {}", d));
  if (s.contains("dynamic_dims"))
    for (int64_t d : s.at("dynamic_dims").get<std::vector<int64_t>>()) {
      if (d < 0 || d >= static_cast<int64_t>(dims.size()))
        bad_meta(file, fmt::format("dynamic dimension {} of a rank-{} input", d, dims.size()));
      dims[static_cast<size_t>(d)] = kDynamic;
    }
  return {torch_dtype(s.at("dtype").get<std::string>(), file), std::move(dims)};
}

TorchXlaInput::Kind location_kind(const std::string& type, const std::string& file) {
  if (type == "input_arg") return TorchXlaInput::Kind::input_arg;
  if (type == "parameter") return TorchXlaInput::Kind::parameter;
  if (type == "constant") return TorchXlaInput::Kind::constant;
  bad_meta(file, fmt::format("input location type '{}' (expected input_arg, parameter or constant)",
                             type));
}

// The function's name: `name`, else "forward", else the only one.
std::string function_name(const std::string& dir, const std::string& name) {
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(fs::path(dir) / "functions"))
    if (e.path().extension() == ".meta") found.push_back(e.path().stem().string());
  std::sort(found.begin(), found.end());
  std::string want = !name.empty() ? name : found.size() == 1 ? found[0] : "forward";
  if (std::find(found.begin(), found.end(), want) == found.end())
    throw IoError(fmt::format("torch_xla bundle '{}' has no function '{}' (it has: {})", dir, want,
                              fmt::join(found, ", ")));
  return want;
}

void read_locations(const json& meta, const std::string& file, TorchXlaFunction& f) {
  const json& sigs = meta.at("input_signature");
  const json& locs = meta.at("input_locations");
  if (sigs.size() != locs.size())
    bad_meta(file,
             fmt::format("{} input signatures for {} input locations", sigs.size(), locs.size()));
  for (size_t i = 0; i < locs.size(); ++i) {
    TorchXlaInput in;
    in.kind = location_kind(locs[i].at("type_").get<std::string>(), file);
    in.position = locs[i].value("position", int64_t{-1});
    in.name = locs[i].value("name", std::string());
    in.type = signature_type(sigs[i], file);
    if (in.kind != TorchXlaInput::Kind::parameter && in.position < 0)
      bad_meta(file, fmt::format("input location {} has no position", i));
    f.inputs.push_back(std::move(in));
  }
}

// The user's inputs by position: the used ones' types from their locations, the unused ones'
// from unused_inputs (a non-tensor argument there, "<class 'int'>", is no input of @main).
void read_user_inputs(const json& meta, const std::string& file, TorchXlaFunction& f) {
  std::map<int64_t, TensorType> by_position;
  auto add = [&](int64_t p, const TensorType& t) {
    if (p < 0 || p > (1 << 20) || !by_position.emplace(p, t).second)
      bad_meta(file, fmt::format("user input position {} given twice or out of range", p));
  };
  for (const TorchXlaInput& in : f.inputs)
    if (in.kind == TorchXlaInput::Kind::input_arg) add(in.position, in.type);
  if (meta.contains("unused_inputs"))
    for (const json& u : meta.at("unused_inputs")) {
      const json& sig = u.at(1);
      if (sig.at("dtype").get<std::string>().starts_with("<class")) continue;
      add(u.at(0).at("position").get<int64_t>(), signature_type(sig, file));
    }
  int64_t next = 0;
  for (const auto& [p, t] : by_position) {
    if (p != next)
      bad_meta(file,
               fmt::format("user input position {} is missing (the next given is {})", next, p));
    f.user_inputs.push_back(t);
    ++next;
  }
}

// The weight file of a parameter or constant, read and checked against its signature.
Array bound_array(const TorchXlaFunction& f, const TorchXlaInput& in) {
  fs::path file = in.kind == TorchXlaInput::Kind::parameter
                      ? fs::path(f.dir) / "data" / in.name
                      : fs::path(f.dir) / "constants" / std::to_string(in.position);
  if (in.kind == TorchXlaInput::Kind::parameter &&
      (in.name.empty() || in.name.find('/') != std::string::npos || in.name == "." ||
       in.name == ".."))
    throw IoError(
        fmt::format("torch_xla bundle '{}': parameter name '{}' is not a file name of "
                    "data/",
                    f.dir, in.name));
  Array a;
  try {
    a = read_npy(file.string());
  } catch (const IoError& e) {
    throw IoError(fmt::format("torch_xla bundle '{}': {} of functions/{}.meta: {}", f.dir,
                              in.kind == TorchXlaInput::Kind::parameter
                                  ? "parameter '" + in.name + "'"
                                  : "constant " + std::to_string(in.position),
                              f.name, e.what()));
  }
  if (a.type() != in.type)
    throw IoError(
        fmt::format("torch_xla bundle weight '{}' is {}; the function's signature says {}",
                    file.string(), a.type().to_string(), in.type.to_string()));
  return a;
}

// The module's bytes: functions/NAME.bytecode, else functions/NAME.mlir.
std::pair<std::string, std::string> module_file(const TorchXlaFunction& f) {
  fs::path base = fs::path(f.dir) / "functions" / f.name;
  for (const char* ext : {".bytecode", ".mlir"}) {
    fs::path p = base;
    p += ext;
    if (fs::exists(p)) return {p.string(), read_program_file_bytes(p.string())};
  }
  throw IoError(
      fmt::format("torch_xla bundle '{}' has neither functions/{}.bytecode nor "
                  "functions/{}.mlir",
                  f.dir, f.name, f.name));
}

std::string types_text(const std::vector<TensorType>& types) {
  std::string s;
  for (const TensorType& t : types) s += (s.empty() ? "" : ", ") + t.to_string();
  return s;
}

}  // namespace

bool is_torch_xla_bundle(const std::string& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec) || !fs::is_directory(fs::path(path) / "functions", ec))
    return false;
  for (const auto& e : fs::directory_iterator(fs::path(path) / "functions", ec))
    if (e.path().extension() == ".meta") return true;
  return false;
}

TorchXlaFunction read_torch_xla_meta(const std::string& dir, const std::string& name) {
  TorchXlaFunction f;
  f.dir = dir;
  f.name = function_name(dir, name);
  std::string file = (fs::path(dir) / "functions" / (f.name + ".meta")).string();
  json meta = json::parse(read_regular_file(file, "torch_xla meta"), nullptr, false);
  if (meta.is_discarded() || !meta.is_object()) bad_meta(file, "not a JSON object");
  try {
    read_locations(meta, file, f);
    read_user_inputs(meta, file, f);
    for (const json& s : meta.at("output_signature")) f.outputs.push_back(signature_type(s, file));
  } catch (const json::exception& e) {
    bad_meta(file, std::string("not torch_xla's StableHLOFunctionMeta (") + e.what() + ")");
  }
  return f;
}

Module read_torch_xla_bundle(const std::string& dir, const std::string& name) {
  TorchXlaFunction f = read_torch_xla_meta(dir, name);
  auto [path, bytes] = module_file(f);
  Module m = std::move(read_program(bytes, {.source_name = path}).module);
  const Func* callee = m.find("main");
  if (!callee) throw Error(fmt::format("'{}' has no @main", path));
  std::vector<TensorType> want;
  for (const TorchXlaInput& in : f.inputs) want.push_back(in.type);
  if (callee->arg_types() != want)
    throw Error(fmt::format("'{}': @main takes ({}); the meta's input signature says ({})", path,
                            types_text(callee->arg_types()), types_text(want)));
  std::string moved = "torch_xla_" + f.name;
  while (m.find(moved)) moved += "_";
  m.find("main")->set_visibility(Visibility::private_);
  m.rename_func("main", moved);
  Func& main = m.add_func("main", f.user_inputs);
  for (size_t p = 0; p < f.user_inputs.size(); ++p)
    main.set_arg_attr(p, {"jax.arg_info", StringAttr{fmt::format("args[{}]", p)}});
  std::vector<Value> args;
  for (const TorchXlaInput& in : f.inputs)
    args.push_back(in.kind == TorchXlaInput::Kind::input_arg
                       ? main.arg(static_cast<size_t>(in.position))
                       : constant(main, bound_array(f, in)));
  main.ret(call(*m.find(moved), args));
  return m;
}

}  // namespace hhlo
