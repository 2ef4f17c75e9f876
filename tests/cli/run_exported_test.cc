// `hhlo run MODEL.jax`: serialized jax.export artifacts (tests/program/gen_exported.py) run
// through the program stage, their inputs by position or by JAX's names (`-i NAME=FILE`), the
// unused ones dropped, a symbolic batch refined, the platform index bound from the artifact's own
// platforms, SPMD over the artifact's devices, the VJP with --vjp-order; every output equal to
// what JAX computes from the same artifact (exp.call). The refusals name their cause.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "cli_util.h"
#include "hhlo/core/array.h"

namespace hhlo::test {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

const fs::path kDir = fs::path(HHLO_GENERATED_DIR) / "exported";

std::string file(const std::string& name) { return (kDir / name).string(); }

/// `hhlo run STEM.jax` with `inputs` and `extra` arguments, outputs written to a fresh folder.
struct ArtifactRun {
  ProcessResult result;
  std::string out_dir;
};
ArtifactRun run_artifact(const std::string& artifact, const std::vector<std::string>& inputs,
                         const std::vector<std::string>& extra = {}) {
  ArtifactRun r{.out_dir = temp_dir("run_exported_" + artifact) + "/out"};
  std::vector<std::string> args = {"run", file(artifact + ".jax"), "-o", r.out_dir};
  for (const std::string& i : inputs) args.insert(args.end(), {"-i", i});
  args.insert(args.end(), extra.begin(), extra.end());
  r.result = run_hhlo(args);
  return r;
}

/// The files STEM.in<k>.npy for each k.
std::vector<std::string> inputs_of(const std::string& stem, int count) {
  std::vector<std::string> files;
  for (int k = 0; k < count; ++k) files.push_back(file(stem + ".in" + std::to_string(k) + ".npy"));
  return files;
}

/// `got` equals JAX's `want` (f32 within 1e-5 relative; other dtypes exactly).
void expect_matches(const Array& got, const Array& want, const std::string& what) {
  ASSERT_EQ(got.type(), want.type()) << what;
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    double w = want.element_as_double(i), g = got.element_as_double(i);
    if (want.dtype() == DType::f32)
      EXPECT_NEAR(g, w, 1e-5 * (1 + std::abs(w))) << what << " [" << i << "]";
    else
      EXPECT_EQ(g, w) << what << " [" << i << "]";
  }
}

/// Each written output OUT_DIR/STEMS[j].npy equals JAX's `jax_stem`.out<j>.npy.
void expect_outputs(const ArtifactRun& r, const std::string& jax_stem,
                    const std::vector<std::string>& stems) {
  ASSERT_EQ(r.result.exit_code, 0) << r.result.output;
  for (std::size_t j = 0; j < stems.size(); ++j)
    expect_matches(read_npy(r.out_dir + "/" + stems[j] + ".npy"),
                   read_npy(file(jax_stem + ".out" + std::to_string(j) + ".npy")), stems[j]);
}

TEST(RunExported, PytreeInputsByPositionGiveJaxsOutputsNamedByTheirPaths) {
  ArtifactRun r = run_artifact("pytree", inputs_of("pytree", 4));
  expect_outputs(r, "pytree", {"h", "stats_0", "stats_1_0"});
  EXPECT_THAT(r.result.output, HasSubstr("out0 (h): tensor<2x4xf32>"));
}

TEST(RunExported, InputsByJaxsNamesInAnyOrder) {
  std::vector<std::string> in = inputs_of("pytree", 4);
  ArtifactRun r = run_artifact("pytree", {"kwargs['scale']=" + in[3], "args[1]=" + in[2],
                                          "args[0]['w']=" + in[1], "args[0]['b']=" + in[0]});
  expect_outputs(r, "pytree", {"h", "stats_0", "stats_1_0"});
}

// Issue 44: a dict key holding '=' (which `hhlo check` lists as args[0]['a=b']) could not be
// given by name: the spec was split at its first '='. It is split after the whole path.
TEST(RunExported, ADictKeyHoldingAnEqualsSignOrABracketIsGivenByName) {
  std::vector<std::string> in = inputs_of("odd_keys", 2);
  ArtifactRun r = run_artifact("odd_keys", {"args[0]['c]d']=" + in[1], "args[0]['a=b']=" + in[0]});
  expect_outputs(r, "odd_keys", {"out0"});
  ProcessResult check = run_hhlo({"check", file("odd_keys.jax")});
  EXPECT_THAT(check.output, HasSubstr("args[0]['a=b']"));
}

// Issue 41, item 5: a registered namedtuple's leaves are named by their fields as JAX names
// them ("args[1].h"): given by those names, listed so by `hhlo check`, and the outputs named by
// field ("result.h" -> h.npy).
TEST(RunExported, NamedtupleFieldsAreNamedAsJaxNamesThem) {
  std::vector<std::string> in = inputs_of("namedtuple", 3);
  ArtifactRun r =
      run_artifact("namedtuple", {"args[1].c=" + in[2], "args[0]=" + in[0], "args[1].h=" + in[1]});
  expect_outputs(r, "namedtuple", {"h", "c"});
  ProcessResult check = run_hhlo({"check", file("namedtuple.jax")});
  EXPECT_THAT(check.output, HasSubstr("args[1].h"));
  EXPECT_THAT(check.output, HasSubstr("result.c"));
}

// Issue 41, item 5: a typed PRNG key input (jax.random.key: key<fry>[], key<rbg>[]) takes its
// key data (uint32[2], uint32[4]) from the .npy, and a key output is written as its key data;
// the values are JAX's (the random normal drawn from the split key, and the other half).
TEST(RunExported, TypedPrngKeysTakeAndGiveTheirKeyData) {
  for (const std::string stem : {"prng_key", "prng_key_rbg"}) {
    SCOPED_TRACE(stem);
    ArtifactRun r = run_artifact(stem, inputs_of(stem, 2));
    expect_outputs(r, stem, {"out0", "out1"});
    // Key data printed exactly, as NumPy prints uint32 (not rounded to 6 digits).
    Array key = read_npy(r.out_dir + "/out1.npy");
    EXPECT_THAT(r.result.output, HasSubstr(fmt::format("out1: {} [{}", key.type().to_string(),
                                                       key.values<uint32_t>()[0])));
    ProcessResult check = run_hhlo({"check", file(stem + ".jax")});
    EXPECT_THAT(check.output, HasSubstr(stem == "prng_key" ? "key<fry>[]" : "key<rbg>[]"));
    EXPECT_THAT(check.output, HasSubstr(stem == "prng_key" ? "its key data tensor<2xui32>"
                                                           : "its key data tensor<4xui32>"));
  }
}

// A key's data of the wrong width (a threefry key given where an rbg key is taken) is refused
// naming the key type and the key data expected.
TEST(RunExported, AKeyOfTheWrongImplementationIsRefusedNamingBoth) {
  ArtifactRun r = run_artifact("prng_key_rbg", inputs_of("prng_key", 2));
  EXPECT_NE(r.result.exit_code, 0);
  EXPECT_THAT(r.result.output, HasSubstr("key<rbg>[] (tensor<4xui32>)"));
  EXPECT_THAT(r.result.output, HasSubstr("tensor<2xui32> given"));
}

TEST(RunExported, AnUnusedInputIsGivenAndDropped) {
  expect_outputs(run_artifact("unused_input", inputs_of("unused_input", 3)), "unused_input",
                 {"out0"});
}

TEST(RunExported, ASymbolicBatchIsRefinedAtTwoSizes) {
  expect_outputs(run_artifact("symbolic", inputs_of("symbolic", 1)), "symbolic", {"out0", "out1"});
  expect_outputs(run_artifact("symbolic", {file("symbolic.b2.in0.npy")}), "symbolic.b2",
                 {"out0", "out1"});
}

TEST(RunExported, AMultiPlatformArtifactBindsItsPlatformIndexFromItsOwnList) {
  expect_outputs(run_artifact("multi_platform", inputs_of("multi_platform", 2)), "multi_platform",
                 {"out0", "out1"});
}

TEST(RunExported, AShardedArtifactRunsSpmdOverItsDevices) {
  ArtifactRun r = run_artifact("sharded", inputs_of("sharded", 2));
  expect_outputs(r, "sharded", {"out0", "out1"});
  EXPECT_THAT(r.result.output, HasSubstr("ran on 2 devices"));
}

// Issue 41, item 2: shard_map's psum, all_gather, psum_scatter, all_to_all and ppermute over 2
// devices. JAX 0.12.1 writes their replica groups as StableHLO 1.16+'s
// `#stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [..]>` (bytecode attribute code 23),
// which the plugin (StableHLO up to 1.20) is given as the explicit groups of the mesh; JAX 0.10.2
// writes the explicit groups itself. Both run SPMD with JAX's values.
TEST(RunExported, MeshAxesCollectivesOfBothJaxVersionsRunWithJaxsValues) {
  std::vector<std::string> outs = {"out0", "out1", "out2", "out3", "out4"};
  expect_outputs(run_artifact("mesh_axes", inputs_of("mesh_axes", 1)), "mesh_axes", outs);
  const fs::path jax_new = fs::path(HHLO_GENERATED_DIR) / "exported_jax_new";
  if (!fs::exists(jax_new / "mesh_axes.jax"))
    GTEST_SKIP() << "no artifacts of the newest JAX in " << jax_new
                 << " (scripts/setup.sh makes .venv-jax-new where a Python 3.12+ exists)";
  ArtifactRun r{.out_dir = temp_dir("run_exported_mesh_axes_new") + "/out"};
  r.result = run_hhlo({"run", (jax_new / "mesh_axes.jax").string(), "-i",
                       (jax_new / "mesh_axes.in0.npy").string(), "-o", r.out_dir});
  ASSERT_EQ(r.result.exit_code, 0) << r.result.output;
  EXPECT_THAT(r.result.output, HasSubstr("ran on 2 devices"));
  for (std::size_t j = 0; j < outs.size(); ++j)
    expect_matches(read_npy(r.out_dir + "/" + outs[j] + ".npy"),
                   read_npy((jax_new / ("mesh_axes.out" + std::to_string(j) + ".npy")).string()),
                   outs[j]);
}

// The same over a 2x2 mesh of 4 devices (tests/program/gen_mesh_axes.py): psum over one axis,
// all_gather over each axis and over both in the mesh's reverse order (JAX 0.12.1: `axes =
// [b, a]`, groups [[0, 2, 1, 3]]), psum_scatter, all_to_all and a psum over both.
TEST(RunExported, MeshAxesCollectivesOverA2x2MeshRunWithJaxsValues) {
  std::vector<std::string> outs = {"out0", "out1", "out2", "out3", "out4", "out5"};
  for (const fs::path& dir : {kDir, fs::path(HHLO_GENERATED_DIR) / "exported_jax_new"}) {
    if (!fs::exists(dir / "mesh2d.jax")) {
      ASSERT_NE(dir, kDir) << "gen_mesh_axes.py wrote nothing into " << dir;
      GTEST_SKIP() << "no artifacts of the newest JAX in " << dir
                   << " (scripts/setup.sh makes .venv-jax-new where a Python 3.12+ exists)";
    }
    SCOPED_TRACE(dir.string());
    ArtifactRun r{.out_dir = temp_dir("run_exported_mesh2d") + "/out"};
    r.result = run_hhlo({"run", (dir / "mesh2d.jax").string(), "-i",
                         (dir / "mesh2d.in0.npy").string(), "-o", r.out_dir});
    ASSERT_EQ(r.result.exit_code, 0) << r.result.output;
    EXPECT_THAT(r.result.output, HasSubstr("ran on 4 devices"));
    for (std::size_t j = 0; j < outs.size(); ++j)
      expect_matches(read_npy(r.out_dir + "/" + outs[j] + ".npy"),
                     read_npy((dir / ("mesh2d.out" + std::to_string(j) + ".npy")).string()),
                     outs[j]);
  }
}

TEST(RunExported, TheVjpOfOrderOneGivesJaxsCotangents) {
  ArtifactRun r = run_artifact("vjp", inputs_of("vjp.vjp", 3), {"--vjp-order", "1"});
  expect_outputs(r, "vjp.vjp", {"out0", "out1"});
}

TEST(RunExported, AVjpOrderTheArtifactLacksIsAnError) {
  ArtifactRun r = run_artifact("vjp", inputs_of("vjp.vjp", 3), {"--vjp-order", "2"});
  EXPECT_EQ(r.result.exit_code, 1);
  EXPECT_THAT(r.result.output, HasSubstr("no VJP of order 2"));
  EXPECT_THAT(r.result.output, HasSubstr("serialized with vjp_order=1"));
}

TEST(RunExported, AnArtifactForAnotherPlatformIsRefusedNamingIt) {
  ArtifactRun r = run_artifact("cuda_only", {file("unused_input.in0.npy")});
  EXPECT_EQ(r.result.exit_code, 1);
  EXPECT_THAT(r.result.output,
              HasSubstr("was exported for platforms [cuda], not for this client's platform 'cpu'"));
}

TEST(RunExported, OrderedEffectsAreRefusedNamingThem) {
  ArtifactRun r = run_artifact("ordered_effect", {file("unused_input.in0.npy")});
  EXPECT_EQ(r.result.exit_code, 1);
  EXPECT_THAT(r.result.output, HasSubstr("has ordered effects"));
  EXPECT_THAT(r.result.output, HasSubstr("HhloTestOrderedEffect"));
}

// Issue 44: an artifact holding the module of another program (foreign_module*.jax, made by
// gen_exported.py) was "ok" for `hhlo check`, and `hhlo run` contradicted the artifact. Both now
// name the disagreement.
TEST(RunExported, AModuleThatDisagreesWithTheArtifactsAvalsIsRefusedByRunAndCheck) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"foreign_module",
       "the module disagrees with the artifact's input list: input 0 'args[0]' is f32[3] "
       "(tensor<3xf32>), @main's argument 0 is tensor<4xf32>"},
      {"foreign_module_outputs",
       "the module disagrees with the artifact's output list: @main has 2 result(s) "
       "(tensor<3xf32>, tensor<3xf32>), the artifact lists 1 output(s) for it ('result' f32[3] "
       "(tensor<3xf32>))"}};
  for (const auto& [stem, message] : cases) {
    ArtifactRun r = run_artifact(stem, {file("unused_input.in0.npy")});
    EXPECT_EQ(r.result.exit_code, 1) << stem << ": " << r.result.output;
    EXPECT_THAT(r.result.output, HasSubstr(message)) << stem;
    ProcessResult c = run_hhlo({"check", file(stem + ".jax")});
    EXPECT_EQ(c.exit_code, 1) << stem << ": " << c.output;
    EXPECT_THAT(c.output, HasSubstr(message)) << stem;
  }
}

TEST(RunExported, AnInputOfTheWrongDtypeOrShapeIsNamedWithItsAval) {
  std::vector<std::string> in = inputs_of("unused_input", 3);
  std::swap(in[0], in[2]);  // i32[] where f32[3] goes
  ArtifactRun r = run_artifact("unused_input", in);
  EXPECT_EQ(r.result.exit_code, 1);
  EXPECT_THAT(r.result.output, HasSubstr("does not accept these inputs: input 0 'args[0]'"));
  EXPECT_THAT(r.result.output, HasSubstr("is f32[3] (tensor<3xf32>); tensor<i32> given"));
}

TEST(RunExported, TheWrongNumberOfInputsListsThemAll) {
  ArtifactRun r = run_artifact("unused_input", {file("unused_input.in0.npy")});
  EXPECT_EQ(r.result.exit_code, 1);
  EXPECT_THAT(r.result.output,
              HasSubstr("takes 3 input(s) (args[0] f32[3], args[1] f32[2], args[2] i32[]), 1 "
                        "given"));
}

TEST(RunExported, UnknownMissingAndRepeatedNamesAreListed) {
  std::vector<std::string> in = inputs_of("unused_input", 3);
  ArtifactRun r =
      run_artifact("unused_input", {"args[0]=" + in[0], "args[0]=" + in[0], "w=" + in[1]});
  EXPECT_EQ(r.result.exit_code, 1);
  EXPECT_THAT(r.result.output, HasSubstr("unknown [w]; given twice [args[0]]; missing [args[1], "
                                         "args[2]]"));
  ArtifactRun one =
      run_artifact("unused_input", {"args[0]=" + in[0], "args[1]=" + in[1], "args[3]=" + in[2]});
  EXPECT_THAT(one.result.output, HasSubstr("(args[0], args[1], args[2]); unknown [args[3]]; "
                                           "missing [args[2]]"));
}

TEST(RunExported, EachInputFlagTakesOneFileSoATypodFlagIsNotAnInput) {
  std::vector<std::string> in = inputs_of("unused_input", 3);
  ProcessResult r = run_hhlo(
      {"run", file("unused_input.jax"), "-i", in[0], "-i", in[1], "-i", in[2], "-0", "out/"});
  EXPECT_EQ(r.exit_code, 1) << r.output;  // a usage error, not "'-0' does not exist"
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("does not exist")));
}

TEST(RunExported, NamedAndPositionalInputsDoNotMix) {
  std::vector<std::string> in = inputs_of("unused_input", 3);
  ArtifactRun r = run_artifact("unused_input", {"args[0]=" + in[0], in[1], in[2]});
  EXPECT_EQ(r.result.exit_code, 1);
  EXPECT_THAT(r.result.output, HasSubstr("give every input by name, or none"));
}

TEST(RunExported, ExportPlatformsOtherThanTheArtifactsAreRefused) {
  ArtifactRun r = run_artifact("multi_platform", inputs_of("multi_platform", 2),
                               {"--export-platforms", "cuda,cpu"});
  EXPECT_EQ(r.result.exit_code, 1);
  EXPECT_THAT(r.result.output, HasSubstr("differ (an artifact names its own: give none)"));
}

TEST(RunExported, AVjpOrderOfATextProgramIsAnError) {
  std::string dir = temp_dir("run_exported_text");
  write_text(dir + "/p.mlir",
             "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32>\n}\n");
  ProcessResult r = run_hhlo({"run", dir + "/p.mlir", "--vjp-order", "1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("a VJP order (1) is read from a jax.export artifact"));
}

TEST(RunExported, NamedInputsWorkForTextProgramsToo) {
  std::string dir = temp_dir("run_exported_named_text");
  write_text(dir + "/p.mlir",
             "func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {\n"
             "  %0 = stablehlo.subtract %a, %b : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n");
  write_npy(dir + "/a.npy", Array::from<float>({2}, {5, 7}));
  write_npy(dir + "/b.npy", Array::from<float>({2}, {1, 2}));
  ProcessResult r = run_hhlo(
      {"run", dir + "/p.mlir", "-i", "arg1=" + dir + "/b.npy", "-i", "arg0=" + dir + "/a.npy"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("out0: tensor<2xf32> [4, 5]"));
}

}  // namespace
}  // namespace hhlo::test
