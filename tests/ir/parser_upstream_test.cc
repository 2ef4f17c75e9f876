// The upstream StableHLO printer's forms (hand-written in the shape jax.jit(...).lower() and
// jax.export emit): pretty ops, regions, structured and opaque attributes, locations and aliases.
// Each test checks what the parser built, then that our re-printed text parses to the same text.
#include <gtest/gtest.h>

#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"

namespace hhlo {
namespace {

TensorType T(DType d, Dims s) { return {d, std::move(s)}; }

const Op& op_at(const Module& m, std::string_view fn, size_t i) {
  return *m.find(fn)->body().ops().at(i);
}

void reprints(const Module& m) {
  std::string once = to_mlir(m);
  EXPECT_EQ(to_mlir(parse_module(once, {.source_name = "reprint"})), once);
}

TEST(ParserUpstream, JitTextWithPrettyOpsRegionsAndCalls) {
  const char* text =
      R"mlir(module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>, %arg1: tensor<4x4xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<3x4xf32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<[0, 1]> : tensor<2xi32>
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, HIGHEST] : (tensor<3x4xf32>, tensor<4x4xf32>) -> tensor<3x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<3x4xf32>, tensor<f32>) -> tensor<f32>
    %2 = stablehlo.compare  GT, %1, %cst,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %3 = stablehlo.convert %2 : (tensor<i1>) -> tensor<i32>
    %4 = "stablehlo.case"(%3) ({
      %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %12 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<3x4xf32>
      stablehlo.return %12 : tensor<3x4xf32>
    }, {
      %cst_5 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %12 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<3x4xf32>
      %13 = stablehlo.multiply %0, %12 : tensor<3x4xf32>
      stablehlo.return %13 : tensor<3x4xf32>
    }) : (tensor<i32>) -> tensor<3x4xf32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %9:2 = stablehlo.while(%iterArg = %4, %iterArg_5 = %c_3) : tensor<3x4xf32>, tensor<i32>
    cond {
      %c_8 = stablehlo.constant dense<3> : tensor<i32>
      %12 = stablehlo.compare  LT, %iterArg_5, %c_8,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %12 : tensor<i1>
    } do {
      %12 = func.call @closed_call(%iterArg) : (tensor<3x4xf32>) -> tensor<3x4xf32>
      %c_8 = stablehlo.constant dense<1> : tensor<i32>
      %15 = stablehlo.add %iterArg_5, %c_8 : tensor<i32>
      stablehlo.return %12, %15 : tensor<3x4xf32>, tensor<i32>
    }
    %10:2 = stablehlo.reduce(%9#0 init: %cst), (%9#0 init: %cst) across dimensions = [1] : (tensor<3x4xf32>, tensor<3x4xf32>, tensor<f32>, tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>)
     reducer(%arg2: tensor<f32>, %arg4: tensor<f32>) (%arg3: tensor<f32>, %arg5: tensor<f32>)  {
      %20 = stablehlo.maximum %arg2, %arg4 : tensor<f32>
      %21 = stablehlo.minimum %arg3, %arg5 : tensor<f32>
      stablehlo.return %20, %21 : tensor<f32>, tensor<f32>
    }
    %11 = stablehlo.slice %9#0 [0:3:2, 1:4] : (tensor<3x4xf32>) -> tensor<2x3xf32>
    return %1, %9#0 : tensor<f32>, tensor<3x4xf32>
  }
  func.func private @closed_call(%arg0: tensor<3x4xf32>) -> tensor<3x4xf32> {
    %0 = stablehlo.tanh %arg0 : tensor<3x4xf32>
    return %0 : tensor<3x4xf32>
  }
}
)mlir";
  Module m = parse_module(text);
  EXPECT_EQ(m.name(), "jit_f");
  ASSERT_EQ(m.attrs().size(), 2u);
  EXPECT_EQ(m.attrs()[0].name, "mhlo.num_partitions");
  auto sig = signature(entry_function(m));
  EXPECT_EQ(sig.result_names, (std::vector<std::string>{"result[0]", "result[1]"}));
  EXPECT_EQ(sig.arg_types, (std::vector<TensorType>{T(DType::f32, {3, 4}), T(DType::f32, {4, 4})}));
  const Op& dot = op_at(m, "main", 1);
  EXPECT_EQ(dot.name(), "stablehlo.dot_general");
  const auto* dn = dot.attr("dot_dimension_numbers")->get_if<DotDimensionNumbers>();
  ASSERT_NE(dn, nullptr);
  EXPECT_EQ(dn->lhs_contracting_dimensions, std::vector<int64_t>{1});
  EXPECT_EQ(dn->rhs_contracting_dimensions, std::vector<int64_t>{0});
  const auto* pc = dot.attr("precision_config")->get_if<ArrayAttr>();
  ASSERT_EQ(pc->values.size(), 2u);
  EXPECT_EQ(*pc->values[1].get_if<Precision>(), Precision::HIGHEST);
  const Op& red = op_at(m, "main", 3);
  ASSERT_EQ(red.regions().size(), 1u);
  EXPECT_EQ(red.regions()[0]->ops()[0]->name(), "stablehlo.add");
  EXPECT_EQ(red.regions()[0]->args().size(), 2u);
  const Op& cmp = op_at(m, "main", 4);
  EXPECT_EQ(*cmp.attr("comparison_direction")->get_if<ComparisonDirection>(),
            ComparisonDirection::GT);
  EXPECT_EQ(*cmp.attr("compare_type")->get_if<ComparisonType>(), ComparisonType::FLOAT);
  const Op& cs = op_at(m, "main", 6);
  EXPECT_EQ(cs.regions().size(), 2u);
  const Op& wh = op_at(m, "main", 8);
  EXPECT_EQ(wh.name(), "stablehlo.while");
  EXPECT_EQ(wh.results().size(), 2u);
  EXPECT_EQ(wh.regions()[1]->ops()[0]->name(), "func.call");
  const Op& r2 = op_at(m, "main", 9);
  // reducer pairs are (arg i, arg i+N): the maximum reads block args 0 and 2
  const Block& rb = *r2.regions()[0];
  EXPECT_EQ(rb.ops()[0]->operands()[0], rb.arg(0));
  EXPECT_EQ(rb.ops()[0]->operands()[1], rb.arg(2));
  EXPECT_EQ(rb.ops()[1]->operands()[0], rb.arg(1));
  const Op& sl = op_at(m, "main", 10);
  EXPECT_EQ(sl.attr("strides")->get_if<I64ArrayAttr>()->values, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(sl.attr("limit_indices")->get_if<I64ArrayAttr>()->values, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(sl.result().type(), T(DType::f32, {2, 3}));
  const auto& nan = *op_at(m, "main", 6).regions()[1]->ops()[0]->attr("value")->get_if<DenseAttr>();
  EXPECT_TRUE(std::isnan(nan.array->values<float>()[0]));
  reprints(m);
}

TEST(ParserUpstream, ExportWithDynamicShapesAssertionsOpaqueAttributesAndLocationAliases) {
  const char* text = R"mlir(#loc = loc(unknown)
#loc4 = loc("x")
module @jit__lambda attributes {jax.uses_shape_polymorphism = true, mhlo.num_partitions = 1 : i32} {
  sdy.mesh @mesh = <["x"=1]>
}
)mlir";
  EXPECT_THROW(parse_module(text), ParseError);  // module-level non-function ops
  const char* exp = R"mlir(#loc = loc(unknown)
#loc4 = loc("x")
module @jit__lambda attributes {jax.uses_shape_polymorphism = true, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<?x8xf32> {mhlo.sharding = "{replicated}", mhlo.layout_mode = "default"} loc(unknown)) -> (tensor<8xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<1> : tensor<i32> loc(#loc)
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x8xf32>) -> tensor<i32> loc(#loc1)
    %1 = stablehlo.compare  GE, %0, %c,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1> loc(#loc2)
    stablehlo.custom_call @shape_assertion(%1, %0) {api_version = 2 : i32, error_message = "Expected value >= 1 for 'b' = {0}", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> () loc(#loc3)
    %s = stablehlo.reshape %0 : (tensor<i32>) -> tensor<1xi32>
    %c8 = stablehlo.constant dense<8> : tensor<1xi32>
    %shape = stablehlo.concatenate %s, %c8, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %b = stablehlo.dynamic_broadcast_in_dim %arg0, %shape, dims = [0, 1] : (tensor<?x8xf32>, tensor<2xi32>) -> tensor<?x8xf32>
    %io = stablehlo.dynamic_iota %shape, dim = 0 : (tensor<2xi32>) -> tensor<?x8xf32>
    %r = stablehlo.dynamic_reshape %b, %shape : (tensor<?x8xf32>, tensor<2xi32>) -> tensor<?x8xf32>
    %x = stablehlo.custom_call @Sharding(%r) {mhlo.sharding = "{replicated}", sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>, backend_config = "", unit_flag} : (tensor<?x8xf32>) -> tensor<?x8xf32>
    %e = chlo.erf_inv %x : tensor<?x8xf32> -> tensor<?x8xf32>
    %cmp = stablehlo.composite "my.op" %e {composite_attributes = {k = 2 : i64}, decomposition = @_wrapped_jax_export_main, version = 1 : i32} : (tensor<?x8xf32>) -> tensor<?x8xf32>
    %2 = call @_wrapped_jax_export_main(%cmp) : (tensor<?x8xf32>) -> tensor<8xf32> loc(#loc)
    return %2 : tensor<8xf32> loc(#loc)
  } loc(#loc)
  func.func private @_wrapped_jax_export_main(%arg1: tensor<?x8xf32> loc("x")) -> (tensor<8xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc14)
    %0 = stablehlo.sine %arg1 : tensor<?x8xf32> loc(#loc15)
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<?x8xf32>, tensor<f32>) -> tensor<8xf32> loc(#loc14)
    return %1 : tensor<8xf32> loc(#loc13)
  } loc(#loc)
} loc(#loc)
#loc1 = loc("dimension_size")
#loc2 = loc("ge")
#loc3 = loc("shape_assertion")
#loc5 = loc("/tmp/jx.py":12:36 to :53)
#loc6 = loc("/tmp/jx.py":12:4 to :121)
#loc7 = loc("/tmp/jx.py":12:36)
#loc8 = loc("<lambda>"(#loc5))
#loc9 = loc("<module>"(#loc6))
#loc10 = loc("<lambda>"(#loc7))
#loc11 = loc(callsite(#loc8 at #loc9))
#loc12 = loc(fused[#loc10, #loc9])
#loc13 = loc("jit(<lambda>)"(#loc9))
#loc14 = loc("jit(<lambda>)/reduce_sum"(#loc11))
#loc15 = loc(#loc7)
)mlir";
  Module m = parse_module(exp);
  const Func& main = entry_function(m);
  EXPECT_EQ(main.arg_types()[0], T(DType::f32, {kDynamic, 8}));
  EXPECT_EQ(main.arg_attrs(0).size(), 2u);
  EXPECT_EQ(op_at(m, "main", 0).loc().file, "");
  EXPECT_EQ(op_at(m, "main", 1).loc().text, "\"dimension_size\"");
  const Op& assertion = op_at(m, "main", 3);
  EXPECT_EQ(assertion.attr("call_target_name")->get_if<StringAttr>()->value, "shape_assertion");
  EXPECT_EQ(assertion.attr("api_version")->get_if<IntAttr>()->value, 2);
  EXPECT_EQ(assertion.results().size(), 0u);
  const Op& dyn = op_at(m, "main", 7);
  EXPECT_EQ(dyn.name(), "stablehlo.dynamic_broadcast_in_dim");
  EXPECT_EQ(dyn.attr("broadcast_dimensions")->get_if<I64ArrayAttr>()->values,
            (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(op_at(m, "main", 8).attr("iota_dimension")->get_if<IntAttr>()->value, 0);
  const Op& sh = op_at(m, "main", 10);
  ASSERT_NE(sh.attr("sdy.sharding")->get_if<ShardingPerValueAttr>(), nullptr);
  EXPECT_EQ(to_string(*sh.attr("sdy.sharding")), "#sdy.sharding_per_value<[<@mesh, [{}, {}]>]>");
  EXPECT_NE(sh.attr("unit_flag")->get_if<UnitAttr>(), nullptr);
  EXPECT_EQ(op_at(m, "main", 11).name(), "chlo.erf_inv");
  EXPECT_EQ(op_at(m, "main", 11).result().type(), T(DType::f32, {kDynamic, 8}));
  EXPECT_EQ(op_at(m, "main", 12).attr("name")->get_if<StringAttr>()->value, "my.op");
  const Func& w = *m.find("_wrapped_jax_export_main");
  EXPECT_EQ(w.body().ops()[0]->loc().text,
            "\"jit(<lambda>)/reduce_sum\"(callsite(\"<lambda>\"(\"/tmp/jx.py\":12:36 to :53) at "
            "\"<module>\"(\"/tmp/jx.py\":12:4 to :121)))");
  EXPECT_EQ(w.body().ops()[1]->loc().file, "/tmp/jx.py");
  EXPECT_EQ(w.body().ops()[1]->loc().line, 12u);
  std::string printed = to_mlir(m);
  EXPECT_NE(printed.find("sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {}]>]>"),
            std::string::npos);
  EXPECT_NE(printed.find("module @jit__lambda attributes {jax.uses_shape_polymorphism = true"),
            std::string::npos);
  reprints(m);
}

TEST(ParserUpstream, GenericFormsLiteralsAndStructuredAttributes) {
  const char* text =
      R"mlir(func.func @main(%arg0: tensor<2x3xf32>, %i: tensor<1x1xi32>, %u: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<1x3xf32>) {
  %0 = "stablehlo.gather"(%arg0, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 3>}> : (tensor<2x3xf32>, tensor<1x1xi32>) -> tensor<1x3xf32>
  %1 = "stablehlo.scatter"(%arg0, %i, %0) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = true}> ({
  ^bb0(%a: tensor<f32> loc(unknown), %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) : (tensor<2x3xf32>, tensor<1x1xi32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %h = stablehlo.constant dense<[[0x3F800000, -2.5], [1.000000e+00, 0x7F800000]]> : tensor<2x2xf32>
  %bf = stablehlo.constant dense<[0x3F80, 1.5]> : tensor<2xbf16>
  %cx = stablehlo.constant dense<[(1.0, -2.0), (0.5, 3.25)]> : tensor<2xcomplex<f64>>
  %b1 = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
  %b2 = stablehlo.constant dense<"0x010001"> : tensor<3xi1>
  %u8 = stablehlo.constant dense<[255, 0]> : tensor<2xui8>
  %hs = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>
  %sp = stablehlo.constant dense<"0x0000C03F"> : tensor<2x2xf32>
  %cv = stablehlo.convolution(%arg0, %u) dim_numbers = [b, f]x[o, i]->[b, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
  %cr = "stablehlo.convolution"(%arg0, %u) {dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 1, input_spatial_dimensions = [], kernel_input_feature_dimension = 1, kernel_output_feature_dimension = 0, kernel_spatial_dimensions = [], output_batch_dimension = 0, output_feature_dimension = 1, output_spatial_dimensions = []>, batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
  return %1, %0 : tensor<2x3xf32>, tensor<1x3xf32>
}
)mlir";
  Module m = parse_module(text);
  const Op& g = op_at(m, "main", 0);
  const auto* gd = g.attr("dimension_numbers")->get_if<GatherDimensionNumbers>();
  ASSERT_NE(gd, nullptr);
  EXPECT_EQ(gd->offset_dims, std::vector<int64_t>{1});
  EXPECT_EQ(gd->index_vector_dim, 1);
  const Op& s = op_at(m, "main", 1);
  EXPECT_TRUE(s.attr("scatter_dimension_numbers")->get_if<ScatterDimensionNumbers>());
  auto dense = [&](size_t i) {
    return op_at(m, "main", i).attr("value")->get_if<DenseAttr>()->array;
  };
  EXPECT_EQ(dense(2)->to_vector<float>(), (std::vector<float>{1.0f, -2.5f, 1.0f, INFINITY}));
  EXPECT_EQ(dense(3)->to_vector<bf16_t>()[0].bits, 0x3F80);
  EXPECT_EQ(static_cast<float>(dense(3)->to_vector<bf16_t>()[1]), 1.5f);
  EXPECT_EQ(dense(4)->to_vector<std::complex<double>>()[0], std::complex<double>(1.0, -2.0));
  EXPECT_EQ(dense(5)->to_vector<bool>(), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(dense(6)->to_vector<bool>(), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(dense(7)->to_vector<uint8_t>(), (std::vector<uint8_t>{255, 0}));
  EXPECT_EQ(dense(8)->to_vector<float>(), (std::vector<float>{1.0f, 2.0f}));
  EXPECT_EQ(dense(9)->to_vector<float>(), (std::vector<float>(4, 1.5f)));
  const auto* cd = op_at(m, "main", 10).attr("dimension_numbers")->get_if<ConvDimensionNumbers>();
  ASSERT_NE(cd, nullptr);
  EXPECT_EQ(cd->kernel_output_feature_dimension, 0);
  EXPECT_EQ(cd->kernel_input_feature_dimension, 1);
  EXPECT_TRUE(op_at(m, "main", 11).attr("dimension_numbers")->get_if<ConvDimensionNumbers>());
  reprints(m);
}

}  // namespace
}  // namespace hhlo
