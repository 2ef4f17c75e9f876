// Shardy ops in the builder (hhlo/ir/spmd.h): sdy.sharding_constraint and sdy.manual_computation
// printed (golden), their errors, the verifier on them, and the parser reading sdy.mesh,
// #sdy.sharding, #sdy.sharding_per_value and #sdy<manual_axes> into the typed forms (round
// trip), other Shardy forms kept opaque. Executed on 4 devices by tests/ops_exec/spmd_test.cc.
#include "hhlo/ir/spmd.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "hhlo/ir/ops.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/ir/verifier.h"
#include "shape_error_util.h"

namespace hhlo {
namespace {

const DType F = DType::f32;
const ReplicaGroups kAll4{{{0, 1, 2, 3}}};
const CollectiveOptions kGlobal{ChannelHandle{1, 1}, true};

/// JAX's shard_map(lambda a: (psum(a), all_gather(a, tiled=True)), in_specs=P("x"),
/// out_specs=(P(), P())) over a mesh x=4, with a sharding constraint before it.
Module shard_map_module() {
  Module m;
  m.add_mesh("mesh", Mesh{{{"x", 4}}, {}});
  m.set_attr({"mhlo.num_partitions", i32_attr(4)});
  Func& f = m.add_func("main", {{F, {8, 3}}});
  f.set_arg_attr(0, sdy_sharding("mesh", {{{"x"}, {}}}));
  Value c = sharding_constraint(m, f.arg(0), "mesh", {{{"x"}, {}}});
  auto r = manual_computation(
      m, {c}, "mesh", {Sharding{{{"x"}, {}}}}, {Sharding::replicated(2), Sharding::replicated(2)},
      {"x"}, [](const std::vector<Value>& a) {
        return std::vector<Value>{
            all_reduce(
                a[0], kAll4, [](Value x, Value y) { return add(x, y); }, kGlobal),
            all_gather(a[0], 0, kAll4, kGlobal)};
      });
  f.ret(r);
  return m;
}

TEST(Spmd, ShardingConstraintAndManualComputationPrintAsShardy) {
  Module m = shard_map_module();
  verify(m);
  EXPECT_EQ(to_mlir(m, {.locations = false}),
            R"mlir(module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=4]>
  func.func @main(%arg0: tensor<8x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<2x3xf32>, tensor<8x3xf32>) {
    %0 = "sdy.sharding_constraint"(%arg0) {sharding = #sdy.sharding<@mesh, [{"x"}, {}]>} : (tensor<8x3xf32>) -> tensor<8x3xf32>
    %1:2 = "sdy.manual_computation"(%0) ({
      ^bb0(%arg1: tensor<2x3xf32>):
        %2 = "stablehlo.all_reduce"(%arg1) ({
          ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
            %3 = "stablehlo.add"(%arg2, %arg3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
            "stablehlo.return"(%3) : (tensor<f32>) -> ()
        }) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids = unit} : (tensor<2x3xf32>) -> tensor<2x3xf32>
        %4 = "stablehlo.all_gather"(%arg1) {all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids = unit} : (tensor<2x3xf32>) -> tensor<8x3xf32>
        "sdy.return"(%2, %4) : (tensor<2x3xf32>, tensor<8x3xf32>) -> ()
    }) {in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>, manual_axes = #sdy<manual_axes{"x"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>, <@mesh, [{}, {}]>]>} : (tensor<8x3xf32>) -> (tensor<2x3xf32>, tensor<8x3xf32>)
    "func.return"(%1#0, %1#1) : (tensor<2x3xf32>, tensor<8x3xf32>) -> ()
  }
}
)mlir");
}

TEST(Spmd, ParserReadsMeshAndShardingsIntoTypedFormsAndRoundTrips) {
  Module m = shard_map_module();
  for (bool locs : {true, false}) {
    std::string text = to_mlir(m, {.locations = locs});
    Module back = parse_module(text);
    EXPECT_EQ(to_mlir(back, {.locations = locs}), text);
    ASSERT_EQ(back.meshes().size(), 1u);
    EXPECT_EQ(back.meshes()[0].first, "mesh");
    EXPECT_EQ(back.meshes()[0].second, (Mesh{{{"x", 4}}, {}}));
    const Func& f = *back.funcs()[0];
    const Op& c = *f.body().ops()[0];
    ASSERT_NE(c.attr("sharding")->get_if<ShardingAttr>(), nullptr);
    EXPECT_EQ(c.attr("sharding")->get_if<ShardingAttr>()->sharding, (Sharding{{{"x"}, {}}}));
    const Op& mc = *f.body().ops()[1];
    ASSERT_NE(mc.attr("in_shardings")->get_if<ShardingPerValueAttr>(), nullptr);
    EXPECT_EQ(mc.attr("out_shardings")->get_if<ShardingPerValueAttr>()->shardings.size(), 2u);
    EXPECT_EQ(mc.attr("manual_axes")->get_if<ManualAxesAttr>()->axes,
              std::vector<std::string>{"x"});
  }
}

TEST(Spmd, ParserReadsJaxsMeshAndKeepsOtherShardyFormsOpaque) {
  // JAX's mesh line carries its stablehlo.mesh dictionary (the same mesh again): dropped. A
  // mesh with device ids; an open dimension (`?`) and a priority are no form we print: opaque.
  Module m = parse_module(R"(
module @jit_f attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 2 : i64}]}}
  sdy.mesh @ids = <["z"=4], device_ids=[3, 2, 1, 0]>
  func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", "y"}, {}]>}, %arg1: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", ?}p1]>}) -> (tensor<8x4xf32>) {
    return %arg0 : tensor<8x4xf32>
  }
}
)");
  ASSERT_EQ(m.meshes().size(), 2u);
  EXPECT_EQ(m.meshes()[0].second, (Mesh{{{"x", 2}, {"y", 2}}, {}}));
  EXPECT_EQ(m.meshes()[1].second, (Mesh{{{"z", 4}}, {3, 2, 1, 0}}));
  const Func& f = *m.funcs()[0];
  auto sharding_of = [&](size_t i) -> const Attribute* {
    for (const NamedAttr& a : f.arg_attrs(i))
      if (a.name == "sdy.sharding") return &a.value;
    return nullptr;
  };
  const Attribute *a0 = sharding_of(0), *a1 = sharding_of(1);
  ASSERT_TRUE(a0 && a1);
  ASSERT_NE(a0->get_if<ShardingAttr>(), nullptr);
  EXPECT_EQ(a0->get_if<ShardingAttr>()->sharding, (Sharding{{{"x", "y"}, {}}}));
  ASSERT_NE(a1->get_if<OpaqueAttr>(), nullptr);
  std::string text = to_mlir(m);
  EXPECT_NE(text.find("#sdy.sharding<@mesh, [{\"x\", ?}p1]>"), std::string::npos) << text;
  EXPECT_NE(text.find("sdy.mesh @ids = <[\"z\"=4], device_ids=[3, 2, 1, 0]>"), std::string::npos);
  EXPECT_EQ(to_mlir(parse_module(text)), text);
  // A mesh the parser cannot read is an error naming the expected form.
  EXPECT_THROW(parse_module("module {\n  sdy.mesh @m = <[\"x\"=4]\n}"), ParseError);
  EXPECT_THROW(parse_module("module {\n  sdy.mesh @m = <[\"x\"=0]>\n  func.func @main() {\n    "
                            "return\n  }\n}"),
               ParseError);
}

TEST(Spmd, JaxsShardedProgramsParseVerifyAndReprint) {
  // JAX's texts of tests/cli/gen_spmd_programs.py (NamedShardings and a shard_map with psum and
  // all_gather, generated at build time): the pretty sdy.manual_computation, sdy.return and the
  // collectives' properties are read into the typed forms, and the reprint parses back equal.
  int n = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(HHLO_GENERATED_DIR) + "/spmd")) {
    if (e.path().extension() != ".mlir") continue;
    SCOPED_TRACE(e.path().string());
    Module m = parse_module_file(e.path().string());
    std::string text = to_mlir(m);
    EXPECT_EQ(to_mlir(parse_module(text)), text);
    // GSPMD lowerings (gspmd_*) carry mhlo.sharding strings instead of a mesh.
    bool gspmd = e.path().stem().string().rfind("gspmd_", 0) == 0;
    EXPECT_EQ(m.meshes().empty(), gspmd);
    ++n;
    if (e.path().stem() != "shard_map_psum_all_gather") continue;
    const Op& mc = *m.funcs()[0]->body().ops()[0];
    ASSERT_EQ(mc.name(), "sdy.manual_computation");
    ASSERT_NE(mc.attr("in_shardings")->get_if<ShardingPerValueAttr>(), nullptr);
    EXPECT_EQ(mc.attr("in_shardings")->get_if<ShardingPerValueAttr>()->shardings[0].sharding,
              (Sharding{{{"x"}, {}}}));
    EXPECT_EQ(mc.attr("manual_axes")->get_if<ManualAxesAttr>()->axes,
              std::vector<std::string>{"x"});
    EXPECT_EQ(mc.regions()[0]->ops().back()->name(), "sdy.return");
    // JAX's program and our builder's (shard_map_module without the constraint) agree op by op.
    EXPECT_EQ(mc.regions()[0]->ops()[0]->name(), "stablehlo.all_reduce");
    EXPECT_NE(mc.regions()[0]->ops()[0]->attr("use_global_device_ids")->get_if<UnitAttr>(),
              nullptr);
  }
  EXPECT_GE(n, 6);
}

TEST(Spmd, BuilderErrors) {
  Module m;
  m.add_mesh("mesh", Mesh{{{"x", 4}, {"y", 2}}, {}});
  Func& f = m.add_func("main", {{F, {8, 3}}});
  Value x = f.arg(0);
  EXPECT_THROW(sharding_constraint(m, x, "mesh", {{{"x"}}}), ShardingError);         // rank
  EXPECT_THROW(sharding_constraint(m, x, "nope", {{{"x"}, {}}}), ShardingError);     // mesh
  EXPECT_THROW(sharding_constraint(m, x, "mesh", {{{"x"}, {"y"}}}), ShardingError);  // 3 % 2
  EXPECT_THROW(sharding_constraint(m, x, "mesh", {{{"w"}, {}}}), ShardingError);     // axis
  auto id = [](const std::vector<Value>& a) { return a; };
  try {
    manual_computation(m, {x}, "mesh", {Sharding{{{"x", "y"}, {}}}}, {Sharding{{{"x"}, {}}}}, {"x"},
                       id);
    FAIL() << "a non-manual axis was accepted";
  } catch (const ShardingError& e) {
    EXPECT_EQ(e.axis(), "y");
    EXPECT_EQ(e.dimension(), 0);
  }
  EXPECT_THROW(manual_computation(m, {x}, "mesh", {}, {}, {"x"}, id), Error);  // counts
  EXPECT_THROW(manual_computation(m, {x}, "mesh", {Sharding{{{"x"}, {}}}}, {}, {"x"}, id), Error);
  EXPECT_THROW(
      manual_computation(m, {x}, "mesh", {Sharding{{{"x"}, {}}}}, {Sharding{{{}, {}}}}, {}, id),
      ShardingError);  // no manual axis
  EXPECT_THROW(manual_computation(m, {x}, "mesh", {Sharding{{{"x"}, {}}}}, {Sharding{{{}, {}}}},
                                  {"x", "x"}, id),
               ShardingError);
  // The body sees the per-shard type: f32[2, 3].
  auto r = manual_computation(m, {x}, "mesh", {Sharding{{{"x"}, {}}}}, {Sharding{{{"x"}, {}}}},
                              {"x"}, [](const std::vector<Value>& a) {
                                EXPECT_EQ(a[0].type(), (TensorType{DType::f32, {2, 3}}));
                                return std::vector<Value>{negate(a[0])};
                              });
  EXPECT_EQ(r[0].type(), (TensorType{DType::f32, {8, 3}}));
}

TEST(Spmd, VerifierChecksManualComputationTypes) {
  std::string good = to_mlir(shard_map_module(), {.locations = false});
  std::string bad = good;
  std::string in = "in_shardings = #sdy.sharding_per_value<[<@mesh, [{\"x\"}, {}]>]>";
  ASSERT_NE(bad.find(in), std::string::npos);
  bad.replace(bad.find(in), in.size(),
              "in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>");
  EXPECT_NO_THROW(parse_module(good));
  EXPECT_SHAPE_ERROR("manual_computation", "", parse_module(bad));
}

}  // namespace
}  // namespace hhlo
