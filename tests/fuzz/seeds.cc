// Seed corpora of the fuzz targets (seeds.h). Paths come from the build (HHLO_SOURCE_DIR,
// HHLO_GENERATED_DIR, HHLO_EXPORTS_DIR, HHLO_CONFORMANCE_DIR).
#include "seeds.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "fuzz.h"
#include "hhlo/core/array.h"
#include "hhlo/core/safetensors.h"
#include "hhlo/nn/checkpoint.h"

namespace hhlo::fuzz {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Regular files under `dir` (recursively when `recursive`) whose name ends in one of `exts` (any
/// when empty), sorted by path; every `step`-th one when `limit` caps the count.
void add_files(std::vector<Seed>& out, const fs::path& dir, std::vector<std::string> exts,
               bool recursive, size_t limit = 0) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  std::vector<fs::path> found;
  auto take = [&](const fs::directory_entry& e) {
    if (!e.is_regular_file()) return;
    std::string name = e.path().filename().string();
    if (exts.empty() || std::any_of(exts.begin(), exts.end(), [&](const std::string& x) {
          return name.size() >= x.size() && name.compare(name.size() - x.size(), x.size(), x) == 0;
        }))
      found.push_back(e.path());
  };
  if (recursive)
    for (const auto& e : fs::recursive_directory_iterator(dir, ec)) take(e);
  else
    for (const auto& e : fs::directory_iterator(dir, ec)) take(e);
  std::sort(found.begin(), found.end());
  size_t step = limit && found.size() > limit ? found.size() / limit : 1;
  for (size_t i = 0; i < found.size(); i += step)
    out.push_back({found[i].string(), read(found[i])});
}

/// save_npz's bytes for `arrays` (through a temporary file: save_npz writes paths).
std::string npz_bytes(const ad::ParamArrays& arrays) {
  std::string path =
      (fs::temp_directory_path() / ("hhlo-fuzz-seed-" + std::to_string(getpid()) + ".npz"))
          .string();
  nn::save_npz(path, arrays);
  std::string bytes = read(path);
  fs::remove(path);
  return bytes;
}

constexpr std::string_view kSeparator{"\0--file--\0", 10};

const char* kAddProgram = R"mlir(module @add {
  func.func public @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.add %a, %b : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
)mlir";

const char* kTwoPublic = R"mlir(module @two {
  func.func public @first(%a: tensor<3xi32>) -> tensor<3xi32> {
    return %a : tensor<3xi32>
  }
  func.func public @second(%a: tensor<f64>) -> tensor<f64> {
    %0 = stablehlo.negate %a : tensor<f64>
    return %0 : tensor<f64>
  }
}
)mlir";

/// A cli() input: tokens, then the program and the input files.
std::string cli_input(std::vector<std::string> tokens, const std::string& program,
                      const std::vector<std::string>& files) {
  std::string s;
  for (size_t i = 0; i < tokens.size(); ++i) s += (i ? std::string(1, '\0') : "") + tokens[i];
  s += kSeparator;
  s += program;
  for (const std::string& f : files) {
    s += kSeparator;
    s += f;
  }
  return s;
}

std::vector<Seed> cli_seeds() {
  std::string a = serialize_npy(Array::from<float>({2}, {1.5f, -2.0f}));
  std::string b = serialize_npy(Array::from<float>({2}, {0.25f, 4.0f}));
  std::string i3 = serialize_npy(Array::from<int32_t>({3}, {1, 2, 3}));
  std::string d0 = serialize_npy(Array::from<double>({}, {2.0}));
  return {
      {"cli:add",
       cli_input({"run", "PROGRAM", "-i", "INPUT0", "--input", "INPUT1"}, kAddProgram, {a, b})},
      {"cli:add-options",
       cli_input({"run", "PROGRAM", "-i", "INPUT0", "-i", "INPUT1", "--repeat", "3", "--xla-option",
                  "xla_cpu_enable_fast_min_max=true", "--xla-option",
                  "xla_cpu_fast_math_honor_nans=1", "--platform", "cpu"},
                 kAddProgram, {a, b})},
      {"cli:entry",
       cli_input({"run", "PROGRAM", "--entry", "second", "-i", "INPUT0"}, kTwoPublic, {d0})},
      {"cli:no-entry", cli_input({"run", "PROGRAM", "-i", "INPUT0"}, kTwoPublic, {i3})},
      {"cli:entry-first",
       cli_input({"run", "PROGRAM", "--entry=first", "-i", "INPUT0"}, kTwoPublic, {i3})},
      {"cli:bytecode", cli_input({"run", "PROGRAM"}, std::string("ML\xefR\0\x01", 6), {})},
      {"cli:missing-input", cli_input({"run", "PROGRAM", "-i", "INPUT2"}, kAddProgram, {})},
  };
}

std::vector<Seed> shape_rule_seeds() {
  // Byte strings from a fixed generator: any bytes are a valid shape_rules input.
  std::vector<Seed> out;
  std::mt19937_64 gen(14);
  for (int i = 0; i < 256; ++i) {
    std::string s(16 + gen() % 48, '\0');
    for (char& c : s) c = static_cast<char>(gen());
    out.push_back({"shape_rules:random-" + std::to_string(i), s});
  }
  // The collectives and sharding_constraint (targets/shape_rules.cc, build_spmd): one operand
  // f32[4,4] (count 0 -> 1; flag 1, kPick[2] = f32; rank 2; dims 4, 4), op 36, flag 1, then the
  // case k and random bytes for its attributes.
  for (int k = 0; k < 9; ++k)
    for (int j = 0; j < 8; ++j) {
      std::string s = {0, 1, 2, 2, 3, 4, 3, 4, 36, 1, static_cast<char>(k)};
      for (size_t n = 8 + gen() % 24; n > 0; --n) s.push_back(static_cast<char>(gen() % 8));
      out.push_back({"shape_rules:spmd-" + std::to_string(k) + "-" + std::to_string(j), s});
    }
  return out;
}

}  // namespace

std::vector<Seed> seeds(std::string_view target, size_t limit) {
  std::vector<Seed> out;
  fs::path source = HHLO_SOURCE_DIR, generated = HHLO_GENERATED_DIR;
  if (target == "npy") {
    add_files(out, generated, {".npy"}, false);
    add_files(out, source / "tests", {".npy"}, true, limit);
  } else if (target == "npz") {
    // NumPy's (tests/core/gen_npy_files.py): mixed.npz, and streamed.npz / streamed_deflated.npz,
    // written to an unseekable stream, whose members have data descriptors (flag bit 3).
    add_files(out, generated, {".npz"}, false);
    add_files(out, source / "tests", {".npz"}, true, limit);
    ad::ParamArrays two{{"w", Array::from<float>({2, 2}, {1, 2, 3, 4})},
                        {"b", Array::from<int64_t>({3}, {-1, 0, 1})}};
    out.push_back({"npz:save_npz", npz_bytes(two)});
    out.push_back({"npz:save_npz-scalar", npz_bytes({{"s", Array::from<double>({}, {0.5})}})});
  } else if (target == "safetensors") {
    add_files(out, generated / "safetensors", {".safetensors"}, false);
    out.push_back({"safetensors:written",
                   serialize_safetensors({{"w", Array::from<float>({2, 2}, {1, 2, 3, 4})},
                                          {"b", Array::from<int64_t>({3}, {-1, 0, 1})},
                                          {"e", Array(DType::bf16, {0, 2})},
                                          {"s", Array::from<double>({}, {0.5})}},
                                         {{"format", "np"}})});
  } else if (target == "parser") {
    add_files(out, generated / "jax_texts", {}, false);
    add_files(out, HHLO_EXPORTS_DIR, {".mlir"}, false);
    add_files(out, HHLO_CONFORMANCE_DIR, {".mlir"}, false, limit);
    // The texts that crashed the plugin (issue 22): a call cycle, nesting past our limit.
    out.push_back({"parser:call-cycle",
                   "func.func @main(%x: tensor<f32>) -> tensor<f32> {\n"
                   "  %0 = func.call @f(%x) : (tensor<f32>) -> tensor<f32>\n"
                   "  return %0 : tensor<f32>\n}\n"
                   "func.func private @f(%x: tensor<f32>) -> tensor<f32> {\n"
                   "  %0 = func.call @main(%x) : (tensor<f32>) -> tensor<f32>\n"
                   "  return %0 : tensor<f32>\n}\n"});
    out.push_back({"parser:deep-nesting",
                   "func.func @main(%x: tensor<f32>) -> tensor<f32> {\n"
                   "  %0 = stablehlo.custom_call @t(%x) {x = " +
                       std::string(300, '[') + std::string(300, ']') +
                       "} : (tensor<f32>) -> tensor<f32>\n"
                       "  return %0 : tensor<f32>\n}\n"});
  } else if (target == "bytecode") {
    add_files(out, generated / "bytecode/jax", {".mlirbc"}, false);
    add_files(out, generated, {".mlirbc"}, false);
    // Plain MLIR bytecode of StableHLO (not VHLO) from both JAX releases, where made; among them
    // `resources`, dense_resource constants with their blobs in the resource sections.
    add_files(out, generated / "plain_bytecode", {".mlirbc"}, false);
    add_files(out, generated / "plain_bytecode_jax_new", {".mlirbc"}, false);
    add_files(out, generated / "bytecode/corpus", {".mlirbc"}, false, limit);
  } else if (target == "exported") {
    add_files(out, generated / "exported", {".jax"}, false);
    add_files(out, generated / "exported_jax_new", {".jax"}, false);  // JAX 0.12.1's, where made
  } else if (target == "shape_rules") {
    out = shape_rule_seeds();
  } else if (target == "cli") {
    out = cli_seeds();
  } else if (target == "input_spec") {
    // Argument names, an empty token, then specs (fuzz.h): JAX's paths with keys holding '=',
    // ']' and quotes, positional names, and specs that are no NAME=FILE.
    auto tokens = [](std::vector<std::string> t) {
      std::string s;
      for (const std::string& x : t) s += (s.empty() ? "" : std::string(1, '\0')) + x;
      return s;
    };
    out.push_back(
        {"input_spec:odd-keys",
         tokens({"args[0]['a=b']", "args[0]['c]d']", "args[0][\"it's\"]", "",
                 "args[0]['c]d']=c.npy", "args[0]['a=b']=a=b.npy", "args[0][\"it's\"]=q.npy"})});
    out.push_back({"input_spec:safetensors-tree",
                   tokens({"args[0]['dense']['kernel']", "args[0]['dense']['bias']",
                           "args[0]['layers'][1]['w']", "args[1]", "", "args[0]=p.safetensors",
                           "args[1]=x.npy"})});
    out.push_back({"input_spec:positional",
                   tokens({"x", "kwargs['scale']", "", "arg0=x.npy", "kwargs['scale']=s.npy"})});
    out.push_back({"input_spec:unmatched",
                   tokens({"x", "", "y=1.npy", "x=2.npy", "x=3.npy", "plain.npy", "=e.npy",
                           "args[0]['open=x.npy", "args[0]['a\\'=b']=f.npy"})});
    out.push_back({"input_spec:no-names", tokens({"", "arg1=b.npy", "arg0=a.npy"})});
  } else if (target == "infer_request") {
    // JSON bodies (flag byte 0) and a JSON + binary body (flag 1, the JSON's length after it).
    auto json = [](std::string body) { return std::string("\0\0\0", 3) + body; };
    out.push_back({"infer_request:json",
                   json(R"({"id":"1","inputs":[{"name":"x","shape":[2,2],"datatype":"FP32",)"
                        R"("data":[[1,2],[3,4]]},{"name":"m","shape":[2],"datatype":"BOOL",)"
                        R"("data":[true,false]}],"outputs":[{"name":"y","parameters":)"
                        R"({"binary_data":true}}],"parameters":{"timeout":100,"priority":1}})")});
    out.push_back({"infer_request:ints",
                   json(R"({"inputs":[{"name":"k","shape":[3],"datatype":"INT8",)"
                        R"("data":[-128,0,127]},{"name":"u","shape":[1],"datatype":"UINT64",)"
                        R"("data":[18446744073709551615]}]})")});
    std::string head = R"({"inputs":[{"name":"a","shape":[2],"datatype":"FP32",)"
                       R"("parameters":{"binary_data_size":8}}]})";
    std::string binary(1, '\1');
    binary += char(head.size() & 0xff);
    binary += char(head.size() >> 8);
    binary += head + std::string("\0\0\x80\x3f\0\0\0\x40", 8);
    out.push_back({"infer_request:binary", binary});
  }
  return out;
}

std::vector<Seed> regressions(std::string_view target) {
  std::vector<Seed> out;
  add_files(out, fs::path(HHLO_SOURCE_DIR) / "tests/fuzz/regressions" / target, {}, false);
  return out;
}

}  // namespace hhlo::fuzz
