// `hhlo check MODEL.jax`: the signature of a serialized jax.export artifact (names, avals with
// symbolic dimensions, platforms, shardings, the VJP) over the artifacts tests/program/
// gen_exported.py makes, and a damaged artifact as an error naming the file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "../program/jax_worlds.h"
#include "cli_util.h"

namespace hhlo::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

const fs::path kDir = fs::path(HHLO_GENERATED_DIR) / "exported";

ProcessResult check(const std::string& name) {
  return run_hhlo({"check", (kDir / (name + ".jax")).string()});
}

TEST(CheckExported, PrintsNamesAvalsAndTheModule) {
  ProcessResult r = check("pytree");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("pytree.jax: jax.export artifact, serialization version 3"));
  EXPECT_THAT(r.output, HasSubstr("function pytree_fn: platforms cpu; 1 device(s)"));
  EXPECT_THAT(r.output, HasSubstr("args[0]['w']     f32[3,4]"));
  EXPECT_THAT(r.output, HasSubstr("kwargs['scale']  f32[]"));
  EXPECT_THAT(r.output, HasSubstr("result['stats'][1][0]  f32[4]"));
  EXPECT_THAT(r.output, HasSubstr("entry @main("));
}

TEST(CheckExported, SymbolicDimensionsAndPlatforms) {
  ProcessResult r = check("symbolic");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("args[0]  f32[b,3]"));
  EXPECT_THAT(r.output, HasSubstr("result[0]  f32[2*b,3]"));
  EXPECT_THAT(r.output, HasSubstr("dimension variables: b"));
  r = check("multi_platform");
  EXPECT_THAT(r.output, HasSubstr("platforms cpu, cuda"));
}

TEST(CheckExported, ShardingsAndDevices) {
  ProcessResult r = check("sharded");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("2 device(s)"));
  EXPECT_THAT(
      r.output,
      HasSubstr("args[0]  f32[4,3]  {devices=[2,1]<=[2]} (mesh <[\"x\"=2]>, spec [{\"x\"}, {}])"));
  EXPECT_THAT(r.output, HasSubstr("result[1]  f32[]  unspecified"));
}

TEST(CheckExported, VjpAndUnusedInputs) {
  ProcessResult r = check("vjp");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("vjp (order 1):\n  function fun_vjp_jax"));
  r = check("unused_input");
  EXPECT_THAT(r.output, HasSubstr("unused inputs (not in the module): args[1]"));
}

TEST(CheckExported, DamagedArtifactIsAnErrorNamingTheFile) {
  std::ifstream f(kDir / "pytree.jax", std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  std::string dir = temp_dir("check_exported");
  std::string path = dir + "/cut.jax";
  write_text(path, s.str().substr(0, s.str().size() / 2));
  ProcessResult r = run_hhlo({"check", path});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr(path + " (jax.export artifact):0:0: expected a serialized "
                                         "jax.export artifact"));
  r = check("future_field_aval");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("serialization version 99 sets a field hhlo does not know"));
  r = check("future_version");  // 99, but no field beyond version 13's
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("future_version.jax: jax.export artifact, serialization version 99"));
}

TEST(CheckExportedJaxNew, PrintsTheWritersJaxVersionAndWeakTypes) {
  HHLO_SKIP_WITHOUT_JAX_NEW();
  ProcessResult r = run_hhlo({"check", (kJaxNewDir / "weak_type.jax").string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("weak_type.jax: jax.export artifact, serialization version 13, "
                                  "JAX 0.12.1"));
  EXPECT_THAT(r.output, HasSubstr("args[1]  f32[] (weak type)"));
  EXPECT_THAT(r.output, HasSubstr("result[1]  f32[] (weak type)"));
  EXPECT_THAT(r.output, Not(HasSubstr("args[0]  f32[3] (weak type)")));
}

}  // namespace
}  // namespace hhlo::test
