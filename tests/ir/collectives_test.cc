// Collectives in the builder (spec "all_reduce", "all_gather", "reduce_scatter", "all_to_all",
// "collective_permute", "collective_broadcast", "replica_id", "partition_id"): one violation per
// checked constraint, the inferred result types, the printed text (golden), the parser's round
// trip of channel handles, replica groups and unit attributes, and the verifier re-running the
// rules on text. Compared with what JAX prints for the same ops in collectives_jax_test.cc.
#include <gtest/gtest.h>

#include "golden_util.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/verifier.h"
#include "shape_error_util.h"

namespace hhlo {
namespace {

using test::body_of;
TensorType T(DType d, Dims s) { return {d, std::move(s)}; }
const DType F = DType::f32, I = DType::i32;
const ReplicaGroups kAll4{{{0, 1, 2, 3}}};
const ReplicaGroups kPairs{{{0, 1}, {2, 3}}};
const ChannelHandle kChan{1, 1};

TEST(ShapeErrors, AllReduce) {
  TensorType t = T(F, {4, 2});
  EXPECT_EQ(infer_all_reduce(std::vector{t, T(F, {3})}, kAll4, {}, false),
            (std::vector{t, T(F, {3})}));
  EXPECT_EQ(infer_all_reduce(std::vector{t}, ReplicaGroups{}, {}, false), std::vector{t});
  EXPECT_SHAPE_ERROR("all_reduce", "C1",
                     infer_all_reduce(std::vector{t}, ReplicaGroups{{{0, 1}, {1, 2}}}, {}, false));
  EXPECT_SHAPE_ERROR("all_reduce", "C3",
                     infer_all_reduce(std::vector{t}, ReplicaGroups{{{0, -1}}}, {}, false));
  EXPECT_SHAPE_ERROR("all_reduce", "C4", infer_all_reduce(std::vector{t}, kAll4, {}, true));
  EXPECT_SHAPE_ERROR("all_reduce", "C4",
                     infer_all_reduce(std::vector{t}, kAll4, ChannelHandle{0, 1}, true));
  EXPECT_SHAPE_ERROR("all_reduce", "C5",
                     infer_all_reduce(std::vector{t, T(I, {2})}, kAll4, {}, false));
  EXPECT_SHAPE_ERROR("all_reduce", "",
                     infer_all_reduce(std::vector{t}, ReplicaGroups{{{0, 1}, {2}}}, {}, false));
  // (C5) the computation: two tensor<E> scalars to one.
  Module m;
  Func& f = m.add_func("main", {t});
  EXPECT_SHAPE_ERROR("all_reduce", "C5", all_reduce(f.arg(0), kAll4, [&](Value a, Value) {
                       return convert(a, DType::f64);
                     }));
  EXPECT_NO_THROW(
      all_reduce(f.arg(0), kAll4, [](Value a, Value b) { return add(a, b); }, {kChan, true}));
}

TEST(ShapeErrors, AllGather) {
  EXPECT_EQ(infer_all_gather(std::vector{T(F, {2, 3})}, 1, kAll4, {}, false),
            std::vector{T(F, {2, 12})});
  EXPECT_EQ(
      infer_all_gather(std::vector{T(F, {2, kDynamic}), T(I, {5, 1})}, 1, kPairs, kChan, true),
      (std::vector{T(F, {2, kDynamic}), T(I, {5, 2})}));
  EXPECT_SHAPE_ERROR("all_gather", "C1",
                     infer_all_gather(std::vector{T(F, {2})}, 1, kAll4, {}, false));
  EXPECT_SHAPE_ERROR("all_gather", "C1",
                     infer_all_gather(std::vector{T(F, {2})}, -1, kAll4, {}, false));
  EXPECT_SHAPE_ERROR(
      "all_gather", "C2",
      infer_all_gather(std::vector{T(F, {2})}, 0, ReplicaGroups{{{0, 0}}}, {}, false));
  EXPECT_SHAPE_ERROR(
      "all_gather", "C4",
      infer_all_gather(std::vector{T(F, {2})}, 0, ReplicaGroups{{{-2, 0}}}, {}, false));
  EXPECT_SHAPE_ERROR("all_gather", "C4",
                     infer_all_gather(std::vector{T(F, {2})}, 0, ReplicaGroups{}, {}, false));
  EXPECT_SHAPE_ERROR("all_gather", "C5",
                     infer_all_gather(std::vector{T(F, {2})}, 0, kAll4, {}, true));
}

TEST(ShapeErrors, ReduceScatter) {
  EXPECT_EQ(infer_reduce_scatter(T(F, {8, 3}), 0, kAll4, {}, false), T(F, {2, 3}));
  EXPECT_EQ(infer_reduce_scatter(T(F, {3, 4}), 1, kPairs, kChan, true), T(F, {3, 2}));
  EXPECT_SHAPE_ERROR("reduce_scatter", "C1", infer_reduce_scatter(T(F, {6}), 0, kAll4, {}, false));
  EXPECT_SHAPE_ERROR("reduce_scatter", "C2", infer_reduce_scatter(T(F, {8}), 1, kAll4, {}, false));
  EXPECT_SHAPE_ERROR("reduce_scatter", "C3",
                     infer_reduce_scatter(T(F, {8}), 0, ReplicaGroups{{{1, 1}}}, {}, false));
  EXPECT_SHAPE_ERROR("reduce_scatter", "C5",
                     infer_reduce_scatter(T(F, {8}), 0, ReplicaGroups{{{1, -1}}}, {}, false));
  EXPECT_SHAPE_ERROR("reduce_scatter", "C6", infer_reduce_scatter(T(F, {8}), 0, kAll4, {}, true));
  Module m;
  Func& f = m.add_func("main", {T(F, {8})});
  EXPECT_SHAPE_ERROR("reduce_scatter", "C7",
                     reduce_scatter(f.arg(0), 0, kAll4, [&](Value a, Value) {
                       return compare(a, a, ComparisonDirection::LT);
                     }));
}

TEST(ShapeErrors, AllToAll) {
  EXPECT_EQ(infer_all_to_all(std::vector{T(F, {2, 4})}, 1, 0, 2, kPairs),
            std::vector{T(F, {4, 2})});
  EXPECT_EQ(infer_all_to_all(std::vector{T(F, {8, 3}), T(I, {4, 1})}, 0, 0, 4, kAll4),
            (std::vector{T(F, {8, 3}), T(I, {4, 1})}));
  EXPECT_SHAPE_ERROR("all_to_all", "C1", infer_all_to_all(std::vector{T(F, {4})}, 1, 0, 2, kPairs));
  EXPECT_SHAPE_ERROR("all_to_all", "C2", infer_all_to_all(std::vector{T(F, {3})}, 0, 0, 2, kPairs));
  EXPECT_SHAPE_ERROR("all_to_all", "C3", infer_all_to_all(std::vector{T(F, {4})}, 0, 2, 2, kPairs));
  EXPECT_SHAPE_ERROR("all_to_all", "C4", infer_all_to_all(std::vector{T(F, {4})}, 0, 0, 0, kPairs));
  EXPECT_SHAPE_ERROR(
      "all_to_all", "C5",
      infer_all_to_all(std::vector{T(F, {4})}, 0, 0, 2, ReplicaGroups{{{0, 1}, {1, 2}}}));
  EXPECT_SHAPE_ERROR("all_to_all", "C7",
                     infer_all_to_all(std::vector{T(F, {4})}, 0, 0, 2, ReplicaGroups{{{0, -3}}}));
  EXPECT_SHAPE_ERROR("all_to_all", "C8", infer_all_to_all(std::vector{T(F, {4})}, 0, 0, 2, kAll4));
}

TEST(ShapeErrors, CollectivePermuteBroadcastAndIds) {
  EXPECT_EQ(infer_collective_permute(T(F, {2}), ReplicaGroups{{{0, 1}, {1, 0}}}), T(F, {2}));
  EXPECT_SHAPE_ERROR("collective_permute", "C1",
                     infer_collective_permute(T(F, {2}), ReplicaGroups{{{0, 1, 2}}}));
  EXPECT_SHAPE_ERROR("collective_permute", "C2",
                     infer_collective_permute(T(F, {2}), ReplicaGroups{{{0, 1}, {0, 2}}}));
  EXPECT_SHAPE_ERROR("collective_permute", "C3",
                     infer_collective_permute(T(F, {2}), ReplicaGroups{{{0, 1}, {2, 1}}}));
  EXPECT_SHAPE_ERROR("collective_permute", "C4",
                     infer_collective_permute(T(F, {2}), ReplicaGroups{{{0, -1}}}));
  EXPECT_EQ(infer_collective_broadcast(T(I, {1, 2}), ReplicaGroups{{{2, 1}}}), T(I, {1, 2}));
  EXPECT_SHAPE_ERROR("collective_broadcast", "C1",
                     infer_collective_broadcast(T(F, {2}), ReplicaGroups{{{2, 2}}}));
  EXPECT_SHAPE_ERROR("collective_broadcast", "C2",
                     infer_collective_broadcast(T(F, {2}), ReplicaGroups{{{-1, 2}}}));
  Module m;
  Func& f = m.add_func("main", {});
  EXPECT_EQ(replica_id(f).type(), T(DType::ui32, {}));
  EXPECT_EQ(partition_id(f).type(), T(DType::ui32, {}));
}

TEST(Golden, Collectives) {
  EXPECT_EQ(body_of({T(F, {4, 2})},
                    [](Func& f) {
                      auto sum = [](Value a, Value b) { return add(a, b); };
                      Value r = all_reduce(f.arg(0), kAll4, sum, {kChan, true});
                      Value g = all_gather(f.arg(0), 1, kPairs);
                      Value s = reduce_scatter(f.arg(0), 0, kAll4, sum);
                      Value t = all_to_all(f.arg(0), 0, 1, 2, kPairs, kChan);
                      Value p = collective_permute(f.arg(0), {{0, 1}, {1, 2}, {2, 3}, {3, 0}});
                      Value b = collective_broadcast(f.arg(0), ReplicaGroups{{{2, 1}}});
                      return std::vector<Value>{r, g, s, t, p, b, replica_id(f), partition_id(f)};
                    }),
            R"mlir(%0 = "stablehlo.all_reduce"(%arg0) ({
^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
%1 = "stablehlo.add"(%arg1, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
"stablehlo.return"(%1) : (tensor<f32>) -> ()
}) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids = unit} : (tensor<4x2xf32>) -> tensor<4x2xf32>
%2 = "stablehlo.all_gather"(%arg0) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>} : (tensor<4x2xf32>) -> tensor<4x4xf32>
%3 = "stablehlo.reduce_scatter"(%arg0) ({
^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
%4 = "stablehlo.add"(%arg3, %arg4) : (tensor<f32>, tensor<f32>) -> tensor<f32>
"stablehlo.return"(%4) : (tensor<f32>) -> ()
}) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, scatter_dimension = 0 : i64} : (tensor<4x2xf32>) -> tensor<1x2xf32>
%5 = "stablehlo.all_to_all"(%arg0) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 1 : i64, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, split_count = 2 : i64, split_dimension = 0 : i64} : (tensor<4x2xf32>) -> tensor<2x4xf32>
%6 = "stablehlo.collective_permute"(%arg0) {source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>} : (tensor<4x2xf32>) -> tensor<4x2xf32>
%7 = "stablehlo.collective_broadcast"(%arg0) {replica_groups = dense<[[2, 1]]> : tensor<1x2xi64>} : (tensor<4x2xf32>) -> tensor<4x2xf32>
%8 = "stablehlo.replica_id"() : () -> tensor<ui32>
%9 = "stablehlo.partition_id"() : () -> tensor<ui32>
)mlir");
}

TEST(ParserRoundTrip, CollectiveAttributesParseIntoTypedForms) {
  // JAX's pretty form of the attribute dictionary: properties, a bare unit attribute.
  Module m = parse_module(R"(
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.all_reduce"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
)");
  verify(m);
  const Op& op = *m.funcs()[0]->body().ops()[0];
  ASSERT_EQ(op.name(), "stablehlo.all_reduce");
  ASSERT_NE(op.attr("channel_handle")->get_if<ChannelHandle>(), nullptr);
  EXPECT_EQ(*op.attr("channel_handle")->get_if<ChannelHandle>(), (ChannelHandle{1, 1}));
  EXPECT_NE(op.attr("use_global_device_ids")->get_if<UnitAttr>(), nullptr);
  EXPECT_EQ(replica_groups_of(*op.attr("replica_groups")), kAll4);
  std::string text = to_mlir(m);
  EXPECT_EQ(to_mlir(parse_module(text)), text);
  // A channel handle with an unknown field stays opaque and prints back verbatim (the verifier,
  // which needs the typed handle, refuses it).
  Module o = parse_module(R"(
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.collective_permute"(%a) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 1, extra = 3>, source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
)",
                          {.verify = false});
  const Op& p = *o.funcs()[0]->body().ops()[0];
  ASSERT_NE(p.attr("channel_handle")->get_if<OpaqueAttr>(), nullptr);
  EXPECT_THROW(verify(o), Error);
  EXPECT_NE(to_mlir(o).find("#stablehlo.channel_handle<handle = 2, type = 1, extra = 3>"),
            std::string::npos);
}

TEST(Verifier, CollectiveRulesRunOnParsedText) {
  auto check = [](const std::string& op, const std::string& result, const std::string& c) {
    std::string text = "func.func @main(%a: tensor<4x2xf32>) -> " + result + " {\n  %0 = " + op +
                       "\n  return %0 : " + result + "\n}\n";
    Module m = parse_module(text, {.verify = false});
    EXPECT_SHAPE_ERROR(op.substr(11, op.find('"', 11) - 11), c, verify(m));
  };
  // Recorded result type differs from the rule's.
  check(
      R"("stablehlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4x2xf32>) -> tensor<4x2xf32>)",
      "tensor<4x2xf32>", "");
  check(
      R"("stablehlo.all_to_all"(%a) {concat_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>, split_count = 2 : i64, split_dimension = 1 : i64} : (tensor<4x2xf32>) -> tensor<8x1xf32>)",
      "tensor<8x1xf32>", "C8");
  check(
      R"("stablehlo.collective_permute"(%a) {source_target_pairs = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<4x2xf32>) -> tensor<4x2xf32>)",
      "tensor<4x2xf32>", "C1");
  check(
      R"("stablehlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids} : (tensor<4x2xf32>) -> tensor<8x2xf32>)",
      "tensor<8x2xf32>", "C5");
}

}  // namespace
}  // namespace hhlo
