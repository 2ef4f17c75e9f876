// StableHLO 1.16+'s mesh-axes replica groups (`#stablehlo.replica_group_mesh_axes<mesh = @m,
// axes = [...]>`, JAX 0.12.1's shard_map collectives) read from text into the explicit groups
// StableHLO's own fallback gives (stablehlo/dialect/ReplicaGroupUtils.cpp,
// flattenReplicaGroupMeshAxes: the axes not named first, then the named ones in their order; each
// group the devices of one position of the others). Groups below are derived by hand from that
// rule for the mesh ["a"=2, "b"=2], where position (a, b) is device 2a + b. The bytecode form
// (attribute code 23) is read into the same text first (tests/cli/run_exported_test.cc runs JAX
// 0.12.1's with JAX's values).
#include <gtest/gtest.h>

#include <string>

#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"

namespace hhlo {
namespace {

/// A module with mesh @m (`mesh`) and one all_reduce whose replica groups are `groups` (text).
std::string program(const std::string& mesh, const std::string& groups) {
  return R"(module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @m = )" +
         mesh + R"(
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = "stablehlo.all_reduce"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = )" +
         groups + R"(, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
})";
}

std::string axes(std::initializer_list<const char*> names, const char* mesh = "@m") {
  std::string s = std::string("#stablehlo.replica_group_mesh_axes<mesh = ") + mesh + ", axes = [";
  bool first = true;
  for (const char* n : names) {
    s += (first ? "" : ", ") + std::string("#stablehlo.axis_ref<name = \"") + n + "\">";
    first = false;
  }
  return s + "]>";
}

ReplicaGroups groups_of(const std::string& text) {
  Module m = parse_module(text);
  const Op& op = *m.funcs()[0]->body().ops()[0];
  std::optional<ReplicaGroups> g = replica_groups_of(*op.attr("replica_groups"));
  return g ? *g : ReplicaGroups{};
}

const char* kMesh = R"(<["a"=2, "b"=2]>)";

TEST(MeshReplicaGroups, EachAxisOrBothGiveTheGroupsOfStablehlosFlattening) {
  EXPECT_EQ(groups_of(program(kMesh, axes({"b"}))), (ReplicaGroups{{{0, 1}, {2, 3}}}));
  EXPECT_EQ(groups_of(program(kMesh, axes({"a"}))), (ReplicaGroups{{{0, 2}, {1, 3}}}));
  EXPECT_EQ(groups_of(program(kMesh, axes({"a", "b"}))), (ReplicaGroups{{{0, 1, 2, 3}}}));
  // The first axis named is the major one within a group.
  EXPECT_EQ(groups_of(program(kMesh, axes({"b", "a"}))), (ReplicaGroups{{{0, 2, 1, 3}}}));
  // No axis: each device alone.
  EXPECT_EQ(groups_of(program(kMesh, axes({}))), (ReplicaGroups{{{0}, {1}, {2}, {3}}}));
}

TEST(MeshReplicaGroups, TheTextIsReadWhateverItsSpacing) {
  EXPECT_EQ(groups_of(program(kMesh, R"(#stablehlo.replica_group_mesh_axes<
      mesh=@m,
      axes = [ #stablehlo.axis_ref<name="b">,#stablehlo.axis_ref< name = "a" > ]
    >)")),
            (ReplicaGroups{{{0, 2, 1, 3}}}));
}

TEST(MeshReplicaGroups, TheMeshsDeviceIdsAreTheGroupsIds) {
  // Position (a, b) holds device_ids[2a + b].
  EXPECT_EQ(groups_of(program(R"(<["a"=2, "b"=2], device_ids=[3, 2, 1, 0]>)", axes({"a"}))),
            (ReplicaGroups{{{3, 1}, {2, 0}}}));
}

TEST(MeshReplicaGroups, ThePrintedModuleHasTheExplicitGroups) {
  std::string printed = to_mlir(parse_module(program(kMesh, axes({"a"}))));
  EXPECT_EQ(printed.find("replica_group_mesh_axes"), std::string::npos) << printed;
  EXPECT_NE(printed.find("replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>"),
            std::string::npos)
      << printed;
}

/// The error of parsing `text`, or "(no error)".
std::string error_of(const std::string& text) {
  try {
    parse_module(text);
  } catch (const ParseError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(MeshReplicaGroups, AnUnknownMeshOrAxisASubAxisOrAnInlineMeshIsAnError) {
  std::string e = error_of(program(kMesh, axes({"a"}, "@nope")));
  EXPECT_NE(e.find("expected a mesh @nope in the module (its replica_groups name it), found none"),
            std::string::npos)
      << e;
  e = error_of(program(kMesh, axes({"c"})));
  EXPECT_NE(
      e.find("expected an axis of the mesh <[\"a\"=2, \"b\"=2]> in replica_groups, found \"c\""),
      std::string::npos)
      << e;
  e = error_of(program(kMesh, axes({"a", "a"})));
  EXPECT_NE(e.find("found \"a\" twice"), std::string::npos) << e;
  e = error_of(program(
      kMesh,
      R"(#stablehlo.replica_group_mesh_axes<mesh = @m, axes = [#stablehlo.axis_ref<name = "a", sub_axis_info = (1)2>]>)"));
  EXPECT_NE(e.find("found a sub-axis of \"a\""), std::string::npos) << e;
  e = error_of(program(
      kMesh,
      R"(#stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "a", size = 2>]>, axes = [#stablehlo.axis_ref<name = "a">]>)"));
  EXPECT_NE(e.find("found an inline mesh (not read yet)"), std::string::npos) << e;
}

}  // namespace
}  // namespace hhlo
