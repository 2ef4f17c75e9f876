// Round trip of the parser against our printer: to_mlir(parse(text)) == text for modules built
// with every op in supported_ops(), regions, multi-result ops, all dtypes, every attribute kind,
// argument/result/function/module attributes and locations.
#include <gtest/gtest.h>

#include <complex>
#include <limits>
#include <set>

#include "hhlo/ir/ops.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/ir/verifier.h"

namespace hhlo {
namespace {

TensorType T(DType d, Dims s) { return {d, std::move(s)}; }
const DType F = DType::f32, I = DType::i32;

using Build = std::function<std::vector<Value>(Func&)>;

struct Case {
  std::string name;
  std::vector<TensorType> args;
  Build build;
};

void collect_ops(const Block& b, std::set<std::string>& out) {
  for (const auto& op : b.ops()) {
    out.insert(op->name());
    for (const auto& r : op->regions()) collect_ops(*r, out);
  }
}

// Builds, checks the round trip with and without locations, records op names.
void round_trip(const Case& c, std::set<std::string>* ops) {
  SCOPED_TRACE(c.name);
  Module m;
  Func& f = m.add_func("main", c.args);
  f.ret(c.build(f));
  verify(m);
  for (bool locs : {true, false}) {
    std::string text = to_mlir(m, {.locations = locs});
    Module back = parse_module(text, {.source_name = c.name});
    EXPECT_EQ(to_mlir(back, {.locations = locs}), text);
  }
  if (ops)
    for (const auto& fn : m.funcs()) collect_ops(fn->body(), *ops);
}

std::vector<Case> cases() {
  std::vector<Case> v;
  v.push_back({"elementwise", {T(F, {2}), T(F, {2}), T(I, {2}), T(DType::c64, {2})}, [](Func& f) {
                 std::vector<Value> out;
                 for (auto n : elementwise_op_names(1)) {
                   Value x = f.arg(0);
                   if (n == "not" || n == "popcnt" || n == "count_leading_zeros") x = f.arg(2);
                   if (n == "real" || n == "imag") x = f.arg(3);
                   out.push_back(unary(n, x));
                 }
                 for (auto n : elementwise_op_names(2)) {
                   bool ints = n == "and" || n == "or" || n == "xor" || n.starts_with("shift");
                   Value a = ints ? f.arg(2) : f.arg(0), b = ints ? f.arg(2) : f.arg(1);
                   out.push_back(binary(n, a, b));
                 }
                 out.push_back(fma(f.arg(0), f.arg(1), f.arg(0)));
                 out.push_back(fma(f.arg(3), f.arg(3), f.arg(3)));
                 return out;
               }});
  v.push_back({"compare_select", {T(F, {2}), T(F, {2}), T(DType::ui32, {2})}, [](Func& f) {
                 Value lt = compare(f.arg(0), f.arg(1), ComparisonDirection::LT);
                 Value eq = compare(f.arg(0), f.arg(1), ComparisonDirection::EQ,
                                    ComparisonType::TOTALORDER);
                 Value u = compare(f.arg(2), f.arg(2), ComparisonDirection::GE);
                 return std::vector<Value>{lt,
                                           u,
                                           select(eq, f.arg(0), f.arg(1)),
                                           convert(f.arg(0), DType::bf16),
                                           clamp(f.arg(0), f.arg(1), f.arg(0)),
                                           bitcast_convert(f.arg(0), DType::ui8),
                                           reduce_precision(f.arg(0), 5, 10)};
               }});
  v.push_back(
      {"constants", {}, [](Func& f) {
         float nan = std::numeric_limits<float>::quiet_NaN();
         double inf = std::numeric_limits<double>::infinity();
         std::vector<Value> out = {
             constant(f, Array::from<float>({3}, {1.5f, nan, -0.0f})),
             constant(f, Array::from<double>({2}, {inf, 1e-300})),
             constant(f, 7, DType::i8, {2, 2}),
             constant(f, Array::from<int64_t>({2}, {std::numeric_limits<int64_t>::min(), 5})),
             constant(f, Array::from<uint64_t>({2}, {~uint64_t{0}, 1})),
             constant(f, Array::from<uint8_t>({3}, {255, 0, 7})),
             constant(f, Array::from<uint16_t>({2}, {65535, 1})),
             constant(f, Array::from<uint32_t>({2}, {4000000000u, 3})),
             constant(f, Array::from<int16_t>({2}, {-32768, 32767})),
             constant(f, Array::from<bool>({4}, std::vector<bool>{true, false, false, true})),
             constant(f, true, DType::pred, {3}),
             constant(f, Array::from<f16_t>({2}, {f16_t(1.5f), f16_t(-2.0f)})),
             constant(f, Array::from<bf16_t>({2}, {bf16_t(3.0f), bf16_t(nan)})),
             constant(f, Array::from<std::complex<float>>({2}, {{1, 2}, {-3, 0.5f}})),
             constant(f, Array::from<std::complex<double>>({}, {{1e10, -2}})),
             constant(f, Array(DType::f32, {0, 3})),
             constant(f, Array::from<int32_t>({20}, std::vector<int32_t>(20, 0))),
             iota(f, T(I, {2, 3}), 1)};
         std::vector<int32_t> big(20);
         for (int i = 0; i < 20; ++i) big[static_cast<size_t>(i)] = i * 7 - 50;
         out.push_back(constant(f, Array::from<int32_t>({4, 5}, big)));
         return out;
       }});
  v.push_back({"shapes", {T(F, {2, 3}), T(I, {})}, [](Func& f) {
                 Value x = f.arg(0);
                 return std::vector<Value>{
                     broadcast_in_dim(x, {4, 2, 3}, {1, 2}),
                     reshape(x, {3, 2}),
                     transpose(x, {1, 0}),
                     slice(x, {0, 1}, {2, 3}, {1, 2}),
                     concatenate({x, x}, 0),
                     pad(x, constant(f, 0.0f, F), {1, 0}, {-1, 2}, {0, 1}),
                     reverse(x, {0, 1}),
                     get_dimension_size(x, 1),
                     dynamic_slice(x, {f.arg(1), f.arg(1)}, {1, 2}),
                     dynamic_update_slice(x, slice(x, {0, 0}, {1, 1}), {f.arg(1), f.arg(1)})};
               }});
  v.push_back({"dot_conv",
               {T(F, {2, 3, 4}), T(F, {2, 4, 5}), T(F, {1, 4, 5, 5}), T(F, {6, 2, 3, 3})},
               [](Func& f) {
                 DotDimensionNumbers d{{0}, {0}, {2}, {1}};
                 ConvDimensionNumbers c{0, 1, {2, 3}, 1, 0, {2, 3}, 0, 1, {2, 3}};
                 return std::vector<Value>{
                     dot_general(f.arg(0), f.arg(1), d,
                                 {.precision_config = {Precision::HIGH, Precision::HIGHEST},
                                  .preferred_element_type = DType::f64}),
                     convolution(f.arg(2), f.arg(3), c,
                                 {.window_strides = {2, 1},
                                  .padding = {{1, 1}, {0, 2}},
                                  .rhs_dilation = {2, 1},
                                  .window_reversal = {false, true},
                                  .feature_group_count = 2,
                                  .precision_config = {Precision::DEFAULT, Precision::DEFAULT}})};
               }});
  v.push_back(
      {"reduce_sort", {T(F, {4, 6}), T(I, {4, 6})}, [](Func& f) {
         Value z = constant(f, 0.0f, F), zi = constant(f, 0, I);
         auto r = reduce({f.arg(0), f.arg(1)}, {z, zi}, {1}, [](const std::vector<Value>& a) {
           return std::vector<Value>{add(a[0], a[2]), maximum(a[1], a[3])};
         });
         auto s = sort(
             {f.arg(0), f.arg(1)}, 1,
             [](const std::vector<Value>& a) {
               return std::vector<Value>{compare(a[0], a[1], ComparisonDirection::GT)};
             },
             true);
         auto w = reduce_window(
             {f.arg(0)}, {z}, {2, 2}, {.window_strides = {2, 2}, .padding = {{0, 0}, {1, 1}}},
             [](const std::vector<Value>& a) { return std::vector<Value>{add(a[0], a[1])}; });
         Value sas = select_and_scatter(
             f.arg(0), constant(f, 1.0f, F, {2, 3}), z, {2, 2}, {2, 2}, {},
             [](Value a, Value b) { return compare(a, b, ComparisonDirection::GE); },
             [](Value a, Value b) { return add(a, b); });
         Value mp = map({f.arg(0), sas}, [](const std::vector<Value>& a) {
           return std::vector<Value>{maximum(a[0], a[1])};
         });
         return std::vector<Value>{r[0], r[1], s[0], s[1], w[0], mp};
       }});
  v.push_back(
      {"gather_scatter", {T(F, {2, 3, 4}), T(I, {2, 2}), T(F, {2, 3, 2})}, [](Func& f) {
         GatherDimensionNumbers g{{1}, {2}, {0}, {0}, {2}, 2};
         ScatterDimensionNumbers s{{1}, {2}, {0}, {0}, {2}, 2};
         Value ga = gather(f.arg(0), f.arg(1), g, {1, 3, 1}, true);
         auto sc = scatter(
             {f.arg(0)}, f.arg(1), {f.arg(2)}, s,
             [](const std::vector<Value>& a) { return std::vector<Value>{add(a[0], a[1])}; }, false,
             true);
         return std::vector<Value>{ga, sc[0]};
       }});
  v.push_back(
      {"control_flow", {T(F, {3}), T(DType::pred, {}), T(I, {})}, [](Func& f) {
         Value one = constant(f, 1.0f, F, {3});
         auto w = while_loop(
             {f.arg(0), f.arg(2)},
             [](const std::vector<Value>& a) {
               return std::vector<Value>{
                   compare(a[1], constant(a[1].func(), 3, I), ComparisonDirection::LT)};
             },
             [&](const std::vector<Value>& a) {
               return std::vector<Value>{add(a[0], one), add(a[1], constant(a[1].func(), 1, I))};
             });
         auto i = if_(
             f.arg(1), [&] { return std::vector<Value>{negate(f.arg(0))}; },
             [&] { return std::vector<Value>{f.arg(0)}; });
         auto c = case_(f.arg(2), {[&] { return std::vector<Value>{one}; },
                                   [&] { return std::vector<Value>{exponential(f.arg(0))}; }});
         auto ob = optimization_barrier({f.arg(0), f.arg(2)});
         return std::vector<Value>{w[0], w[1], i[0], c[0], ob[0], ob[1]};
       }});
  v.push_back(
      {"linalg_fft_bn_rng",
       {T(DType::f64, {3, 3}), T(DType::c64, {8}), T(F, {4, 2}), T(F, {2}), T(DType::ui64, {2})},
       [](Func& f) {
         Value c = cholesky(f.arg(0), false);
         auto t = batch_norm_training(f.arg(2), f.arg(3), f.arg(3), 1e-5f, 1);
         Value bi = batch_norm_inference(f.arg(2), f.arg(3), f.arg(3), t[1], t[2], 0.001f, 1);
         auto g = batch_norm_grad(f.arg(2), f.arg(3), t[1], t[2], bi, 1e-5f, 1);
         auto rb = rng_bit_generator(f.arg(4), RngAlgorithm::PHILOX, T(DType::ui32, {2, 2}));
         Value r = rng(constant(f, 0.0f, F), constant(f, 1.0f, F), {2, 3}, RngDistribution::NORMAL);
         return std::vector<Value>{triangular_solve(c, f.arg(0),
                                                    {.left_side = false,
                                                     .lower = false,
                                                     .unit_diagonal = true,
                                                     .transpose_a = Transpose::ADJOINT}),
                                   fft(f.arg(1), FftType::IFFT, {8}),
                                   g[0],
                                   g[1],
                                   rb[0],
                                   rb[1],
                                   r};
       }});
  v.push_back({"collectives", {T(F, {4, 2}), T(I, {4})}, [](Func& f) {
                 ReplicaGroups all{{{0, 1, 2, 3}}}, pairs{{{0, 1}, {2, 3}}};
                 auto sum = [](Value a, Value b) { return add(a, b); };
                 auto r = all_reduce({f.arg(0), slice(f.arg(0), {0, 0}, {1, 2})}, all,
                                     [](const std::vector<Value>& a) {
                                       return std::vector<Value>{maximum(a[0], a[1])};
                                     });
                 return std::vector<Value>{
                     r[0],
                     r[1],
                     all_reduce(f.arg(1), ReplicaGroups{}, sum, {ChannelHandle{1, 1}, false}),
                     all_gather({f.arg(0), f.arg(1)}, 0, pairs, {ChannelHandle{2, 1}, true})[1],
                     reduce_scatter(f.arg(0), 0, all, sum, {ChannelHandle{3, 1}, true}),
                     all_to_all(f.arg(0), 0, 1, 2, pairs),
                     collective_permute(f.arg(0), {{0, 1}, {1, 0}}, ChannelHandle{4, 1}),
                     collective_permute(f.arg(1), {}),
                     collective_broadcast(f.arg(0), pairs, ChannelHandle{5, 1}),
                     replica_id(f),
                     partition_id(f)};
               }});
  v.push_back({"custom_calls", {T(F, {2, 3})}, [](Func& f) {
                 DictAttr cfg;
                 cfg.entries.push_back({"eps", FloatAttr{1e-6, F}});
                 cfg.entries.push_back({"name", StringAttr{"a \"quoted\"\n name"}});
                 cfg.entries.push_back({"n", IntAttr{-3, DType::i64}});
                 cfg.entries.push_back({"flags", ArrayAttr{{BoolAttr{true}, i32_attr(2)}}});
                 auto a = custom_call(f, "my_kernel", {f.arg(0)}, {T(F, {2, 3}), T(I, {})},
                                      {.api_version = 4,
                                       .backend_config = cfg,
                                       .has_side_effect = true,
                                       .operand_layouts = {{0, 1}},
                                       .result_layouts = {{1, 0}, {}}});
                 auto b =
                     custom_call(f, "legacy", {a[0]}, {T(F, {2, 3})},
                                 {.api_version = 2, .backend_config = std::string("opaque\x01")});
                 return std::vector<Value>{a[1], b[0]};
               }});
  // Tokens: no builders (hhlo/ir/ops.h); appended as the parser records them.
  v.push_back({"tokens", {T(F, {2}), T(DType::token, {})}, [](Func& f) {
                 const TensorType token{DType::token, {}};
                 Value t = f.append({"stablehlo.create_token", {}, {token}, {}, {}, {}})[0];
                 Value u = f.append({"stablehlo.after_all", {t, f.arg(1)}, {token}, {}, {}, {}})[0];
                 return std::vector<Value>{f.arg(0), u};
               }});
  return v;
}

TEST(ParserRoundTrip, EveryBuilderOpPrintsAndParsesBackIdentically) {
  std::set<std::string> ops;
  for (const auto& c : cases()) round_trip(c, &ops);
  // func.call and composite need two functions: built separately below.
  ops.insert("func.call");
  ops.insert("stablehlo.composite");
  for (std::string_view n : supported_ops())
    EXPECT_TRUE(ops.count(std::string(n))) << "no round-trip case covers " << n;
}

TEST(ParserRoundTrip, FunctionsCallsAndAttributesOfArgumentsResultsFunctionsAndModule) {
  Module m;
  m.set_name("jit_f");
  m.set_attr({"mhlo.num_partitions", i32_attr(1)});
  m.set_attr({"mhlo.frontend", DictAttr{{{"k", StringAttr{"v"}}}}});
  Func& helper = m.add_func("helper", {T(F, {2}), T(DType::bf16, {})}, Visibility::private_);
  helper.ret({helper.arg(0), helper.arg(1)});
  Func& f = m.add_func("main", {T(F, {2}), T(DType::bf16, {})});
  f.set_arg_attr(0, {"tf.aliasing_output", i32_attr(0)});
  f.set_arg_attr(1, {"mhlo.sharding", StringAttr{"{replicated}"}});
  auto r = call(helper, {f.arg(0), f.arg(1)});
  f.ret({r[0], r[1]});
  f.set_result_attr(0, {"jax.result_info", StringAttr{"result[0]"}});
  f.set_attr({"jax.uses_shape_polymorphism", BoolAttr{false}});
  std::string text = to_mlir(m);
  Module back = parse_module(text);
  EXPECT_EQ(to_mlir(back), text);
  EXPECT_EQ(back.name(), "jit_f");
  ASSERT_EQ(back.funcs().size(), 2u);
  EXPECT_EQ(back.funcs()[0]->visibility(), Visibility::private_);
  auto pub = public_functions(back);
  ASSERT_EQ(pub.size(), 1u);
  EXPECT_EQ(pub[0].name, "main");
  EXPECT_EQ(pub[0].arg_types, (std::vector<TensorType>{T(F, {2}), T(DType::bf16, {})}));
  EXPECT_EQ(pub[0].result_names, (std::vector<std::string>{"result[0]", ""}));
  ASSERT_NE(pub[0].arg_attr(0, "tf.aliasing_output"), nullptr);
  EXPECT_EQ(pub[0].arg_attr(0, "tf.aliasing_output")->get_if<IntAttr>()->value, 0);
  EXPECT_EQ(&entry_function(back), back.find("main"));
  EXPECT_THROW(entry_function(back, "nope"), Error);
}

TEST(ParserRoundTrip, CompositeAndItsDecomposition) {
  Module m;
  Func& d = m.add_func("hhlo_dec", {T(F, {2})}, Visibility::private_);
  d.ret({negate(d.arg(0))});
  Func& f = m.add_func("main", {T(F, {2})});
  DictAttr attrs;
  attrs.entries.emplace_back("full_matrices", BoolAttr{true});
  f.ret(composite("hhlo.neg", {f.arg(0)}, d, attrs, 3));
  std::string text = to_mlir(m);
  Module back = parse_module(text);
  EXPECT_EQ(to_mlir(back), text);
  const Op& op = *back.find("main")->body().ops()[0];
  EXPECT_EQ(op.name(), "stablehlo.composite");
  EXPECT_EQ(op.attr("decomposition")->get_if<SymbolRefAttr>()->name, "hhlo_dec");
  EXPECT_EQ(op.attr("version")->get_if<IntAttr>()->value, 3);
  // JAX's pretty form reads into the same op.
  Module pretty = parse_module(R"mlir(
module {
  func.func private @hhlo_dec(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.negate %arg0 : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
  func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.composite "hhlo.neg" %arg0 {composite_attributes = {full_matrices = true}, decomposition = @hhlo_dec, version = 3 : i32} : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
)mlir");
  EXPECT_EQ(to_mlir(pretty, {.locations = false}), to_mlir(back, {.locations = false}));
}

TEST(ParserRoundTrip, LocationsAreKept) {
  Module m;
  Func& f = m.add_func("main", {T(F, {2})});
  Value y = negate(f.arg(0));  // this line
  f.ret({y});
  Module back = parse_module(to_mlir(m));
  const Op& op = *back.find("main")->body().ops()[0];
  EXPECT_EQ(op.loc().file, std::string(__FILE__));
  EXPECT_EQ(op.loc().line, static_cast<uint32_t>(__LINE__ - 5));
  EXPECT_GT(op.loc().column, 0u);
}

}  // namespace
}  // namespace hhlo
