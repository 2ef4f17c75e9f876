// The jax.export artifact reader (hhlo/program/exported.h) over JAX's own artifacts, made at
// build time by tests/program/gen_exported.py with the project's JAX (0.10.2: serialization
// version 3) and the newest (0.12.1: version 13; the *JaxNew suites, skipped where the set-up
// made no venv for it): the metadata read equals JAX's view of each artifact (manifest.json,
// from export.deserialize), the module equals read_bytecode of the inner bytecode, a later
// version is read unless it sets a field we do not know, and malformed bytes are clean errors.
#include "hhlo/program/exported.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "hhlo/ir/bytecode.h"
#include "hhlo/ir/printer.h"
#include "jax_worlds.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

json manifest(const fs::path& dir) { return json::parse(slurp(dir / "manifest.json")); }

Exported read(const fs::path& dir, const std::string& name) {
  return read_exported(slurp(dir / (name + ".jax")), {.source_name = name + ".jax"});
}

std::vector<std::string> strings(const json& j) { return j.get<std::vector<std::string>>(); }

std::vector<std::string> sharding_texts(const std::vector<std::optional<ExportedSharding>>& s) {
  std::vector<std::string> out;
  for (const auto& x : s) out.push_back(x ? x->hlo.to_string() : "None");
  return out;
}

std::vector<std::string> expected_shardings(const json& j) {
  std::vector<std::string> out;
  for (const auto& x : j) out.push_back(x.is_null() ? "None" : x.get<std::string>());
  return out;
}

/// Every field JAX's view has, compared with ours.
void expect_matches(const Exported& x, const json& want, const std::string& name) {
  SCOPED_TRACE(name);
  EXPECT_EQ(x.function_name, want["function_name"]);
  EXPECT_EQ(x.in_names, strings(want["in_names"]));
  EXPECT_EQ(x.out_names, strings(want["out_names"]));
  ASSERT_EQ(x.in_avals.size(), want["in_avals"].size());
  for (size_t i = 0; i < x.in_avals.size(); ++i) {
    EXPECT_EQ(x.in_avals[i].dtype_name, want["in_avals"][i]["dtype"]) << i;
    EXPECT_EQ(x.in_avals[i].shape, strings(want["in_avals"][i]["shape"])) << i;
    EXPECT_EQ(x.in_avals[i].weak_type, want["in_avals"][i]["weak_type"].get<bool>()) << i;
    EXPECT_EQ(x.in_avals[i].to_string(), want["in_avals"][i]["short"]) << i;  // str_short
  }
  ASSERT_EQ(x.out_avals.size(), want["out_avals"].size());
  for (size_t i = 0; i < x.out_avals.size(); ++i) {
    EXPECT_EQ(x.out_avals[i].dtype_name, want["out_avals"][i]["dtype"]) << i;
    EXPECT_EQ(x.out_avals[i].shape, strings(want["out_avals"][i]["shape"])) << i;
    EXPECT_EQ(x.out_avals[i].weak_type, want["out_avals"][i]["weak_type"].get<bool>()) << i;
    EXPECT_EQ(x.out_avals[i].to_string(), want["out_avals"][i]["short"]) << i;  // str_short
  }
  EXPECT_EQ(x.platforms, strings(want["platforms"]));
  EXPECT_EQ(x.nr_devices, want["nr_devices"].get<int64_t>());
  // JAX lists None for every input and output an artifact gives no sharding.
  auto in = sharding_texts(x.in_shardings), out = sharding_texts(x.out_shardings);
  if (in.empty()) in.assign(x.in_avals.size(), "None");
  if (out.empty()) out.assign(x.out_avals.size(), "None");
  EXPECT_EQ(in, expected_shardings(want["in_shardings"]));
  EXPECT_EQ(out, expected_shardings(want["out_shardings"]));
  EXPECT_EQ(x.ordered_effects, strings(want["ordered_effects"]));
  EXPECT_EQ(x.unordered_effects, strings(want["unordered_effects"]));
  EXPECT_EQ(x.calling_convention_version, want["calling_convention_version"].get<int>());
  EXPECT_EQ(x.module_kept_var_idx, want["module_kept_var_idx"].get<std::vector<int64_t>>());
  EXPECT_EQ(x.uses_global_constants, want["uses_global_constants"].get<bool>());
  EXPECT_EQ(x.has_vjp(), want["has_vjp"].get<bool>());
  if (want.contains("serialization_version")) {  // the VJP's level records none
    EXPECT_EQ(x.serialization_version, want["serialization_version"].get<int>());
    EXPECT_EQ(x.jax_version, want["jax_version"].get<std::string>());
  }
}

HHLO_TEST_BOTH_JAX(Exported, MetadataMatchesJaxForEveryArtifact) {
  json m = manifest(dir);
  ASSERT_FALSE(m.empty());
  for (const auto& [name, want] : m.items()) {
    Exported x = read(dir, name);
    expect_matches(x, want, name);
    if (want.contains("vjp")) {
      ASSERT_TRUE(x.has_vjp()) << name;
      expect_matches(*x.vjp, want["vjp"], name + " (vjp)");
    }
  }
}

HHLO_TEST_BOTH_JAX(Exported, ModuleIsTheInnerBytecodeRead) {
  json m = manifest(dir);
  for (const auto& [name, want] : m.items()) {
    if (name == "legacy_hlo_sharding") continue;  // made from the sharded case's bytecode
    SCOPED_TRACE(name);
    Exported x = read(dir, name);
    std::string bc = slurp(dir / (name + ".mlirbc"));
    EXPECT_EQ(x.mlir_bytecode, bc);
    PrintOptions po{.locations = true};
    EXPECT_EQ(to_mlir(x.module, po), to_mlir(read_bytecode(bc), po));
    if (x.has_vjp()) {
      std::string vbc = slurp(dir / (name + ".vjp.mlirbc"));
      EXPECT_EQ(to_mlir(x.vjp->module, po), to_mlir(read_bytecode(vbc), po));
    }
  }
}

HHLO_TEST_BOTH_JAX(Exported, PytreeNamesAndStructure) {
  Exported x = read(dir, "pytree");
  EXPECT_EQ(x.in_names, (std::vector<std::string>{"args[0]['b']", "args[0]['w']", "args[1]",
                                                  "kwargs['scale']"}));
  EXPECT_EQ(x.out_names, (std::vector<std::string>{"result['h']", "result['stats'][0]",
                                                   "result['stats'][1][0]"}));
  ASSERT_EQ(x.in_tree.kind, ExportedTree::Kind::tuple);
  ASSERT_EQ(x.in_tree.children.size(), 2u);
  EXPECT_EQ(x.in_tree.children[1].kind, ExportedTree::Kind::dict);
  EXPECT_EQ(x.in_tree.children[1].keys, std::vector<std::string>{"scale"});
  EXPECT_EQ(x.in_tree.children[0].children[0].keys, (std::vector<std::string>{"b", "w"}));
  EXPECT_EQ(x.out_tree.children[1].children[1].kind, ExportedTree::Kind::list);
  EXPECT_EQ(x.in_avals[1].type(), (TensorType{DType::f32, {3, 4}}));
  EXPECT_EQ(x.in_avals[3].to_string(), "f32[]");
  // @main takes the four inputs with the avals' types.
  const Func* main = x.module.find("main");
  ASSERT_NE(main, nullptr);
  ASSERT_EQ(main->arg_types().size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(main->arg_types()[i], x.in_avals[i].type()) << i;
}

HHLO_TEST_BOTH_JAX(Exported, SymbolicDimensionsKeptAsJaxWritesThem) {
  Exported x = read(dir, "symbolic");
  EXPECT_EQ(x.in_avals[0].to_string(), "f32[b,3]");
  EXPECT_FALSE(x.in_avals[0].is_static());
  EXPECT_EQ(x.in_avals[0].dims(), (Dims{kDynamic, 3}));
  EXPECT_EQ(x.in_avals[0].type().to_string(), "tensor<?x3xf32>");
  EXPECT_EQ(x.out_avals[0].shape, (std::vector<std::string>{"2*b", "3"}));
  EXPECT_EQ(x.module.find("main")->arg_types().back(), x.in_avals[0].type());
}

HHLO_TEST_BOTH_JAX(Exported, MultiPlatformModuleTakesThePlatformIndexFirst) {
  Exported x = read(dir, "multi_platform");
  EXPECT_EQ(x.platforms, (std::vector<std::string>{"cpu", "cuda"}));
  const auto& args = x.module.find("main")->arg_types();
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(args[0], (TensorType{DType::i32, {}}));
  EXPECT_EQ(args[2], x.in_avals[1].type());
}

HHLO_TEST_BOTH_JAX(Exported, NamedShardingsGiveMeshSpecAndHloSharding) {
  Exported x = read(dir, "sharded");
  EXPECT_EQ(x.nr_devices, 2);
  ASSERT_EQ(x.in_shardings.size(), 2u);
  ASSERT_TRUE(x.in_shardings[0] && x.in_shardings[1]);
  const ExportedSharding& s = *x.in_shardings[0];
  ASSERT_TRUE(s.mesh);
  EXPECT_EQ(s.mesh->axes, (std::vector<MeshAxis>{{"x", 2}}));
  EXPECT_EQ(s.axis_types, std::vector<std::string>{"Auto"});
  EXPECT_EQ(s.spec.to_string(), "[{\"x\"}, {}]");
  EXPECT_EQ(s.hlo.to_string(), "{devices=[2,1]<=[2]}");
  EXPECT_FALSE(s.replicated());
  EXPECT_TRUE(x.in_shardings[1]->replicated());
  EXPECT_EQ(s.device_platform, "cpu");
  EXPECT_FALSE(x.out_shardings[1].has_value());  // unspecified
  // The placement XLA gets: rows split over the two devices.
  ShardLayout layout = shard_layout(s.hlo, x.in_avals[0].dims(), x.nr_devices);
  EXPECT_EQ(layout.shard, (Dims{2, 3}));
}

HHLO_TEST_BOTH_JAX(Exported, LegacyHloShardingProtosAreDecoded) {
  Exported x = read(dir, "legacy_hlo_sharding");
  ASSERT_TRUE(x.in_shardings[0]);
  EXPECT_FALSE(x.in_shardings[0]->mesh.has_value());
  EXPECT_EQ(x.in_shardings[0]->hlo.to_string(), "{devices=[2,1]<=[2]}");
  EXPECT_TRUE(x.in_shardings[1]->replicated());
  EXPECT_EQ(x.nr_devices, 2);  // from nr_devices_short
}

HHLO_TEST_BOTH_JAX(Exported, VjpExportIsReadRecursively) {
  Exported x = read(dir, "vjp");
  ASSERT_TRUE(x.has_vjp());
  EXPECT_FALSE(x.vjp->has_vjp());
  EXPECT_EQ(x.vjp->in_avals.size(), 3u);  // the primals, then the output cotangent
  EXPECT_EQ(x.vjp->out_avals[0].shape, x.in_avals[0].shape);
  EXPECT_EQ(x.vjp->module.find("main")->arg_types().size(), 3u);
}

HHLO_TEST_BOTH_JAX(Exported, UnusedInputsAreNotInTheModule) {
  Exported x = read(dir, "unused_input");
  EXPECT_EQ(x.module_kept_var_idx, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(x.in_avals.size(), 3u);
  EXPECT_EQ(x.module.find("main")->arg_types().size(), 2u);
}

HHLO_TEST_BOTH_JAX(Exported, DetectionTellsArtifactsFromBytecodeTextAndNpy) {
  json m = manifest(dir);
  for (const auto& [name, want] : m.items())
    EXPECT_TRUE(is_exported_artifact(slurp(dir / (name + ".jax")))) << name;
  EXPECT_FALSE(is_exported_artifact(slurp(dir / "pytree.mlirbc")));
  EXPECT_FALSE(is_exported_artifact(slurp(dir / "pytree.in0.npy")));
  EXPECT_FALSE(is_exported_artifact(std::string_view("module {\n}\n")));
  EXPECT_FALSE(is_exported_artifact(std::string_view()));
  std::string blob = slurp(dir / "pytree.jax");
  EXPECT_FALSE(is_exported_artifact(std::string_view(blob).substr(0, blob.size() / 2)));
}

TEST(Exported, JaxBefore0111WritesVersion3NoJaxVersionNoWeakTypes) {
  Exported x = read(test::kJaxDir, "weak_type");
  EXPECT_EQ(x.serialization_version, 3);
  EXPECT_EQ(x.jax_version, "");
  EXPECT_FALSE(x.in_avals[1].weak_type);  // a Python scalar's, but not recorded
}

TEST(ExportedJaxNew, TheNewestJaxWritesVersion13ItsVersionAndWeakTypes) {
  HHLO_SKIP_WITHOUT_JAX_NEW();
  Exported x = read(test::kJaxNewDir, "weak_type");
  EXPECT_EQ(x.serialization_version, 13);
  EXPECT_EQ(x.jax_version, manifest(test::kJaxNewDir)["weak_type"]["generator_jax"]);
  EXPECT_FALSE(x.in_avals[0].weak_type);
  EXPECT_TRUE(x.in_avals[1].weak_type);  // the Python scalar: f32[], weak
  EXPECT_FALSE(x.out_avals[0].weak_type);
  EXPECT_TRUE(x.out_avals[1].weak_type);
  EXPECT_EQ(x.in_avals[1].type(), (TensorType{DType::f32, {}}));
}

HHLO_TEST_BOTH_JAX(Exported, ALaterVersionThatSetsNoNewFieldIsRead) {
  Exported x = read(dir, "future_version");  // the pytree artifact, version field 99
  EXPECT_EQ(x.serialization_version, 99);
  Exported same = read(dir, "pytree");
  EXPECT_EQ(x.in_names, same.in_names);
  EXPECT_EQ(x.out_names, same.out_names);
  EXPECT_EQ(x.mlir_bytecode, same.mlir_bytecode);
}

HHLO_TEST_BOTH_JAX(Exported, AFieldBeyondOurSchemaNamesBothVersionsAndWhere) {
  // One field past JAX's schema in every AbstractValue (below unique_avals, or inline in in_avals
  // where the writer has no unique tables), and one in the root table.
  for (const auto& [name, where] :
       {std::pair<std::string, std::string>{"future_field_aval", "avals"},
        std::pair<std::string, std::string>{"future_field_root", "field slot 40 of Exported,"}}) {
    SCOPED_TRACE(name);
    try {
      read(dir, name);
      ADD_FAILURE() << "no error";
    } catch (const ParseError& e) {
      ADD_FAILURE() << "a ParseError, not the version error: " << e.what();
    } catch (const Error& e) {
      std::string what = e.what();
      EXPECT_NE(what.find(name + ".jax: jax.export serialization version 99 sets a field hhlo "
                                 "does not know"),
                std::string::npos)
          << what;
      EXPECT_NE(what.find("versions 1 to 13"), std::string::npos) << what;
      EXPECT_NE(what.find(where), std::string::npos) << what;
    }
    EXPECT_TRUE(is_exported_artifact(slurp(dir / (name + ".jax"))));
  }
}

void expect_parse_error(std::string_view bytes, const std::string& found_part) {
  try {
    read_exported(bytes, {.source_name = "bad.jax"});
    FAIL() << "no error";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.source(), "bad.jax (jax.export artifact)");
    EXPECT_NE(e.found().find(found_part), std::string::npos) << e.what();
  }
}

HHLO_TEST_BOTH_JAX(Exported, NonArtifactsAreParseErrorsSayingWhatTheyAre) {
  expect_parse_error("", "an empty input");
  expect_parse_error(slurp(dir / "pytree.mlirbc"), "MLIR bytecode");
  expect_parse_error("module @m {\n}\n", "MLIR text");
  std::string blob = slurp(dir / "pytree.jax");
  // (The last bytes can be padding: a flatbuffer is written back to front, its first object last.)
  for (size_t n : {size_t{4}, size_t{9}, blob.size() / 3, blob.size() * 2 / 3, blob.size() - 100}) {
    SCOPED_TRACE(n);
    expect_parse_error(std::string_view(blob).substr(0, n), "fail flatbuffers' verification");
  }
}

HHLO_TEST_BOTH_JAX(Exported, CorruptedBytesAreErrorsNeverCrashes) {
  for (const char* name : {"pytree", "sharded", "vjp", "legacy_hlo_sharding"}) {
    std::string blob = slurp(dir / (std::string(name) + ".jax"));
    int errors = 0, reads = 0;
    for (size_t k = 0; k < blob.size(); k += 3) {
      std::string bad = blob;
      bad[k] = static_cast<char>(bad[k] ^ (0x5a + k % 7));
      try {
        read_exported(bad, {.source_name = "corrupt.jax"});
        ++reads;
        EXPECT_TRUE(is_exported_artifact(bad)) << "read, but not detected: byte " << k;
      } catch (const Error&) {
        ++errors;
      }
    }
    EXPECT_GT(errors, 0) << name;
    SCOPED_TRACE(::testing::Message() << name << ": " << reads << " corrupted copies read");
  }
}

}  // namespace
}  // namespace hhlo
