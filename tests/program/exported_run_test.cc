// The module of a jax.export artifact, read by read_exported, run on the CPU plugin with the flat
// inputs in the order of `in_names` (the inputs `module_kept_var_idx` keeps) gives the outputs in
// the order of `out_names` that JAX computes from the same artifact (tests/program/
// gen_exported.py: exp.call on the deserialized artifact; the VJP's with a fixed cotangent), for
// the artifacts of the project's JAX and of the newest (the *JaxNew suites, jax_worlds.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "hhlo/core/array.h"
#include "hhlo/exported_function.h"
#include "hhlo/ir/bytecode.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/program/exported.h"
#include "hhlo/program/program.h"
#include "hhlo/session.h"
#include "jax_worlds.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;
std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

/// JAX's inputs STEM.in<k>.npy for each flat input of `x`.
std::vector<Array> jax_inputs(const fs::path& dir, const Exported& x, const std::string& stem) {
  std::vector<Array> args;
  for (size_t k = 0; k < x.in_avals.size(); ++k)
    args.push_back(read_npy((dir / (stem + ".in" + std::to_string(k) + ".npy")).string()));
  return args;
}

/// `got` (in the order of x.out_names) equals JAX's STEM.out<j>.npy.
void expect_jax_outputs(const fs::path& dir, const Exported& x, const std::vector<Array>& got,
                        const std::string& stem) {
  ASSERT_EQ(got.size(), x.out_avals.size());
  for (size_t j = 0; j < got.size(); ++j) {
    Array want = read_npy((dir / (stem + ".out" + std::to_string(j) + ".npy")).string());
    ASSERT_EQ(got[j].type(), want.type()) << x.out_names[j];
    if (x.out_avals[j].is_static()) {
      EXPECT_EQ(got[j].type(), x.out_avals[j].type()) << x.out_names[j];
    }
    if (want.dtype() != DType::f32) {
      EXPECT_EQ(got[j].to_vector<int32_t>(), want.to_vector<int32_t>()) << x.out_names[j];
      continue;
    }
    auto g = got[j].to_vector<float>(), w = want.to_vector<float>();
    for (size_t i = 0; i < w.size(); ++i)
      EXPECT_NEAR(g[i], w[i], 1e-5f * (1 + std::abs(w[i]))) << x.out_names[j] << " [" << i << "]";
  }
}

void expect_runs_as_jax(const fs::path& dir, const Exported& x, const std::string& stem) {
  SCOPED_TRACE(stem);
  std::vector<Array> args;
  for (int64_t k : x.module_kept_var_idx)
    args.push_back(read_npy((dir / (stem + ".in" + std::to_string(k) + ".npy")).string()));
  expect_jax_outputs(dir, x, run(x.module, args), stem);
}

HHLO_TEST_BOTH_JAX(ExportedRun, ModulesComputeWhatJaxComputes) {
  for (const char* name : {"pytree", "unused_input", "weak_type"}) {
    Exported x = read_exported(slurp(dir / (std::string(name) + ".jax")));
    expect_runs_as_jax(dir, x, name);
  }
}

// Issue 41, item 2: result_accuracy (StableHLO 1.9+), which the newest JAX writes on log_ndtr's
// exp/log/log1p (HIGHEST) and on lax.exp given a tolerance, read and run with JAX's values;
// JAX 0.10.2's export of the same function too. (JAX 0.12.1's mesh-axes replica groups, over
// 2 devices: tests/cli/run_exported_test.cc, RunExported.MeshAxesCollectives*.)
HHLO_TEST_BOTH_JAX(ExportedRun, ResultAccuracyComputesWhatJaxComputes) {
  Exported x = read_exported(slurp(dir / "result_accuracy.jax"));
  expect_runs_as_jax(dir, x, "result_accuracy");
}

// The same two modules' bytecode (JAX 0.12.1: StableHLO 1.22, attribute codes 20 and 23) reads
// into what their text reads into: print(read_bytecode(b)) == print(parse_module(t)), locations
// included.
HHLO_TEST_BOTH_JAX(ExportedRun, ResultAccuracyAndMeshAxesBytecodePrintsAsItsText) {
  for (std::string name : {"result_accuracy", "mesh_axes"}) {
    std::string from_bc = to_mlir(read_bytecode(slurp(dir / (name + ".mlirbc"))));
    std::string from_text = to_mlir(parse_module(slurp(dir / (name + ".mlir"))));
    EXPECT_EQ(from_bc, from_text) << name;
    EXPECT_EQ(from_bc.find("replica_group_mesh_axes"), std::string::npos) << name;
  }
}

HHLO_TEST_BOTH_JAX(ExportedRun, TheVjpExportComputesJaxsCotangents) {
  Exported x = read_exported(slurp(dir / "vjp.jax"));
  ASSERT_TRUE(x.has_vjp());
  expect_runs_as_jax(dir, x, "vjp");
  expect_runs_as_jax(dir, *x.vjp, "vjp.vjp");
}

HHLO_TEST_BOTH_JAX(LoadExported, CallGivesJaxsOutputsForEveryFlatInputTheUnusedToo) {
  for (const char* name : {"pytree", "unused_input", "multi_platform", "symbolic", "weak_type"}) {
    SCOPED_TRACE(name);
    ExportedFunction f = load_exported_file((dir / (std::string(name) + ".jax")).string());
    expect_jax_outputs(dir, f.signature(), f.call(jax_inputs(dir, f.signature(), name)), name);
  }
}

HHLO_TEST_BOTH_JAX(LoadExported, ASymbolicBatchCompilesOncePerSize) {
  Session session(Client::create("cpu"), {.enabled = false});
  ExportedFunction f = load_exported_file((dir / "symbolic.jax").string(), session);
  expect_jax_outputs(dir, f.signature(), f.call(jax_inputs(dir, f.signature(), "symbolic")),
                     "symbolic");
  expect_jax_outputs(dir, f.signature(), f.call(jax_inputs(dir, f.signature(), "symbolic.b2")),
                     "symbolic.b2");
  f.call(jax_inputs(dir, f.signature(), "symbolic"));
  EXPECT_EQ(session.cache_size(), 2u);
}

HHLO_TEST_BOTH_JAX(LoadExported, CallByNameGivesOutputsByName) {
  ExportedFunction f = load_exported_file((dir / "pytree.jax").string());
  std::vector<Array> flat = jax_inputs(dir, f.signature(), "pytree");
  std::map<std::string, Array> named;
  for (size_t i = 0; i < flat.size(); ++i) named.emplace(f.signature().in_names[i], flat[i]);
  std::map<std::string, Array> out = f.call(named);
  ASSERT_EQ(out.size(), 3u);
  std::vector<Array> got;
  for (const std::string& n : f.signature().out_names) got.push_back(out.at(n));
  expect_jax_outputs(dir, f.signature(), got, "pytree");
  named.erase("args[1]");
  named.emplace("args[9]", flat[2]);
  try {
    f.call(named);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("missing [args[1]], unknown [args[9]]"));
  }
}

HHLO_TEST_BOTH_JAX(LoadExported, TheVjpGivesJaxsCotangents) {
  ExportedFunction f = load_exported_file((dir / "vjp.jax").string());
  ExportedFunction vjp = f.vjp();
  EXPECT_EQ(vjp.vjp_order(), 1);
  expect_jax_outputs(dir, vjp.signature(), vjp.call(jax_inputs(dir, vjp.signature(), "vjp.vjp")),
                     "vjp.vjp");
  EXPECT_THROW(vjp.vjp(), Error);
}

HHLO_TEST_BOTH_JAX(LoadExported, RefusalsNameTheirCause) {
  ExportedFunction f = load_exported_file((dir / "unused_input.jax").string());
  std::vector<Array> args = jax_inputs(dir, f.signature(), "unused_input");
  args[1] = Array(DType::f32, {5});
  try {
    f.call(args);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("input 1 'args[1]'"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("is f32[2] (tensor<2xf32>); tensor<5xf32> given"));
  }
  ExportedFunction cuda = load_exported_file((dir / "cuda_only.jax").string());
  EXPECT_THROW(cuda.call({Array(DType::f32, {3})}), Error);
  EXPECT_THROW(load_exported("not an artifact"), ParseError);
}

HHLO_TEST_BOTH_JAX(PrepareExported, KeptInputsNamesAndPlatformsComeFromTheArtifact) {
  Program p = read_program_file((dir / "unused_input.jax").string());
  EXPECT_EQ(p.format, ProgramFormat::exported);
  IoNames names = io_names(p);
  EXPECT_EQ(names.args, (std::vector<std::string>{"args[0]", "args[1]", "args[2]"}));
  PreparedProgram prepared =
      prepare_program(std::move(p), {.arg_types = std::vector<TensorType>{
                                         {DType::f32, {3}}, {DType::f32, {2}}, {DType::i32, {}}}});
  EXPECT_EQ(prepared.kept_inputs, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(prepared.names.results, (std::vector<std::string>{"result"}));
  EXPECT_EQ(select_kept(prepared.kept_inputs, names.args),
            (std::vector<std::string>{"args[0]", "args[2]"}));
}

HHLO_TEST_BOTH_JAX(ReadExportedProgram, OrderedEffectsAreRefusedNamingThem) {
  try {
    read_program_file((dir / "ordered_effect.jax").string());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("has ordered effects"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("HhloTestOrderedEffect"));
  }
}

HHLO_TEST_BOTH_JAX(PrepareExported, TheVjpLevelIsReadAndAMissingOneNamed) {
  Program p = read_program_file((dir / "vjp.jax").string(), true, 1);
  EXPECT_EQ(p.vjp_order, 1);
  ASSERT_NE(p.exported(), nullptr);
  EXPECT_EQ(p.exported()->in_avals.size(), 3u);
  EXPECT_THROW(read_program_file((dir / "vjp.jax").string(), true, 2), Error);
  EXPECT_THROW(read_program_file((dir / "pytree.mlirbc").string(), true, 1), Error);
}

}  // namespace
}  // namespace hhlo
