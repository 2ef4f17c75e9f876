// IR core: building functions, value scoping, printing (golden text).
#include <gtest/gtest.h>

#include "hhlo/ir/inline.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/ir/verifier.h"

namespace hhlo {
namespace {

TensorType f32(Dims d) { return {DType::f32, std::move(d)}; }
std::string text(const Module& m) { return to_mlir(m, {.locations = false}); }

TEST(Builder, AddFunction) {
  Module m;
  Func& f = m.add_func("main", {f32({2}), f32({2})});
  f.ret({add(f.arg(0), f.arg(1))});
  EXPECT_EQ(text(m),
            "module {\n"
            "  func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> tensor<2xf32> {\n"
            "    %0 = \"stablehlo.add\"(%arg0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> "
            "tensor<2xf32>\n"
            "    \"func.return\"(%0) : (tensor<2xf32>) -> ()\n"
            "  }\n"
            "}\n");
}

TEST(Builder, LocationsAreCallSites) {
  Module m;
  Func& f = m.add_func("main", {f32({})});
  Value v = negate(f.arg(0));
  int line = __LINE__ - 1;
  f.ret({v});
  std::string t = to_mlir(m);
  EXPECT_NE(t.find("builder_test.cc\":" + std::to_string(line) + ":"), std::string::npos) << t;
}

TEST(Builder, PrivateFunctionAndCall) {
  Module m;
  Func& g = m.add_func("twice", {f32({3})}, Visibility::private_);
  g.ret({add(g.arg(0), g.arg(0)), g.arg(0)});
  Func& f = m.add_func("main", {f32({3})});
  auto r = call(g, {f.arg(0)});
  ASSERT_EQ(r.size(), 2u);
  f.ret({r[0], r[1]});
  std::string t = text(m);
  EXPECT_NE(t.find("func.func private @twice(%arg0: tensor<3xf32>) -> (tensor<3xf32>, "
                   "tensor<3xf32>)"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("%0:2 = \"func.call\"(%arg0) {callee = @twice} : (tensor<3xf32>) -> "
                   "(tensor<3xf32>, tensor<3xf32>)"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("\"func.return\"(%0#0, %0#1)"), std::string::npos) << t;
}

TEST(Builder, CallArgumentMismatch) {
  Module m;
  Func& g = m.add_func("g", {f32({3})}, Visibility::private_);
  g.ret({g.arg(0)});
  Func& f = m.add_func("main", {f32({4})});
  EXPECT_THROW(call(g, {f.arg(0)}), ShapeError);
}

TEST(Builder, CompositeOfAPrivateDecomposition) {
  Module m;
  Func& d = m.add_func("my_double", {f32({3})}, Visibility::private_);
  d.ret({add(d.arg(0), d.arg(0)), d.arg(0)});
  Func& f = m.add_func("main", {f32({3})});
  DictAttr attrs;
  attrs.entries.emplace_back("k", i64_attr(2));
  auto r = composite("my.double", {f.arg(0)}, d, attrs, 1);
  ASSERT_EQ(r.size(), 2u);  // (C4): the decomposition's results
  EXPECT_EQ(r[0].type(), f32({3}));
  f.ret(r);
  verify(m);
  EXPECT_EQ(&f.module(), &m);
  std::string t = text(m);
  EXPECT_NE(t.find("%0:2 = \"stablehlo.composite\"(%arg0) {composite_attributes = {k = 2 : i64}, "
                   "decomposition = @my_double, name = \"my.double\", version = 1 : i32} : "
                   "(tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)"),
            std::string::npos)
      << t;
  Module moved = std::move(m);  // the functions follow their Module
  EXPECT_EQ(&moved.find("main")->module(), &moved);
}

TEST(Builder, CompositeConstraints) {
  Module m;
  Func& d = m.add_func("dec", {f32({3})}, Visibility::private_);
  d.ret({negate(d.arg(0))});
  Func& open = m.add_func("open", {f32({3})}, Visibility::private_);
  Func& f = m.add_func("main", {f32({3}), f32({4})});
  auto constraint = [](const std::function<void()>& fn) -> std::string {
    try {
      fn();
    } catch (const ShapeError& e) {
      return e.constraint();
    }
    return "no ShapeError";
  };
  EXPECT_EQ(constraint([&] { composite("negate", {f.arg(0)}, d); }), "C1");  // not namespaced
  EXPECT_EQ(constraint([&] { composite("my.", {f.arg(0)}, d); }), "C1");
  EXPECT_EQ(constraint([&] { composite("my.neg", {f.arg(1)}, d); }), "C3");  // input types
  EXPECT_THROW(composite("my.neg", {f.arg(0)}, open), Error);                // not returned
  Module other;
  Func& od = other.add_func("dec", {f32({3})}, Visibility::private_);
  od.ret({od.arg(0)});
  EXPECT_THROW(composite("my.neg", {f.arg(0)}, od), Error);  // (C2): another module
  EXPECT_TRUE(f.body().ops().empty());                       // nothing appended
}

TEST(Builder, VerifierChecksACompositeAgainstItsDecomposition) {
  Module m;
  Func& d = m.add_func("dec", {f32({3})}, Visibility::private_);
  d.ret({negate(d.arg(0))});
  Func& f = m.add_func("main", {f32({3})});
  // Recorded result type f32[4] where the decomposition returns f32[3].
  std::vector<Value> r = f.append({"stablehlo.composite",
                                   {f.arg(0)},
                                   {f32({4})},
                                   {{"name", StringAttr{"my.neg"}},
                                    {"decomposition", SymbolRefAttr{"dec"}},
                                    {"version", i32_attr(0)}},
                                   {},
                                   {}});
  f.ret(r);
  EXPECT_THROW(verify(m), ShapeError);
  Module n;
  Func& g = n.add_func("main", {f32({3})});
  g.ret(g.append({"stablehlo.composite",
                  {g.arg(0)},
                  {f32({3})},
                  {{"name", StringAttr{"my.neg"}}, {"decomposition", SymbolRefAttr{"gone"}}},
                  {},
                  {}}));
  EXPECT_THROW(verify(n), Error);  // unknown decomposition
}

TEST(Builder, InliningACompositeIntoAnotherModuleCopiesItsDecomposition) {
  Module src;
  Func& d = src.add_func("dec", {f32({3})}, Visibility::private_);
  d.ret({negate(d.arg(0))});
  Func& h = src.add_func("helper", {f32({3})});
  h.ret(composite("my.neg", {h.arg(0)}, d));
  Module dst;
  dst.add_func("dec", {f32({2})}, Visibility::private_).ret({});  // the name is taken
  Func& f = dst.add_func("main", {f32({3})});
  f.ret(inline_call(f, src, "helper", {f.arg(0)}));
  verify(dst);
  const Func* copy = dst.find("dec_1");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->visibility(), Visibility::private_);
  EXPECT_EQ(copy->result_types(), std::vector<TensorType>{f32({3})});
  EXPECT_NE(text(dst).find("decomposition = @dec_1"), std::string::npos) << text(dst);
}

TEST(Builder, MixingFunctionsNamesBoth) {
  Module m;
  Func& f = m.add_func("f", {f32({2})});
  Func& g = m.add_func("g", {f32({2})});
  try {
    add(f.arg(0), g.arg(0));
    FAIL();
  } catch (const Error& e) {
    std::string w = e.what();
    EXPECT_NE(w.find("@f"), std::string::npos) << w;
    EXPECT_NE(w.find("@g"), std::string::npos) << w;
  }
}

TEST(Builder, FailedCallLeavesFunctionUnchanged) {
  Module m;
  Func& f = m.add_func("main", {f32({2}), f32({3})});
  EXPECT_THROW(add(f.arg(0), f.arg(1)), ShapeError);
  EXPECT_TRUE(f.body().ops().empty());
  EXPECT_THROW(reduce(f.arg(0), constant(f, 0.0f, DType::f32), {0},
                      [](Value a, Value) { return convert(a, DType::f64); }),
               ShapeError);
  EXPECT_EQ(f.body().ops().size(), 1u);  // only the constant
}

TEST(Builder, ValueOutsideItsRegion) {
  Module m;
  Func& f = m.add_func("main", {f32({2})});
  Value leaked;
  Value zero = constant(f, 0.0f, DType::f32);
  reduce(f.arg(0), zero, {0}, [&](Value a, Value b) {
    leaked = add(a, b);
    return leaked;
  });
  EXPECT_THROW(negate(leaked), Error);
}

TEST(Builder, RegionMayUseEnclosingValues) {
  Module m;
  Func& f = m.add_func("main", {f32({2})});
  Value one = constant(f, 1.0f, DType::f32);
  Value r = reduce(f.arg(0), one, {0}, [&](Value a, Value b) { return add(add(a, b), one); });
  f.ret({r});
  EXPECT_EQ(r.type(), f32({}));
}

TEST(Builder, RetTwiceThrows) {
  Module m;
  Func& f = m.add_func("main", {f32({2})});
  f.ret({f.arg(0)});
  EXPECT_THROW(f.ret({f.arg(0)}), Error);
  EXPECT_THROW(negate(f.arg(0)), Error);
}

TEST(Builder, DuplicateFunctionName) {
  Module m;
  m.add_func("main", {});
  EXPECT_THROW(m.add_func("main", {}), Error);
}

TEST(Builder, PrintWithoutReturnThrows) {
  Module m;
  m.add_func("main", {});
  EXPECT_THROW(to_mlir(m), Error);
}

TEST(Builder, ModuleMovesKeepFunctions) {
  Module m;
  Func& f = m.add_func("main", {f32({2})});
  f.ret({f.arg(0)});
  Module m2 = std::move(m);
  EXPECT_NE(m2.find("main"), nullptr);
}

TEST(Builder, ReduceGolden) {
  Module m;
  Func& f = m.add_func("main", {f32({2, 3})});
  Value r = reduce(f.arg(0), constant(f, 0.0f, DType::f32), {1},
                   [](Value a, Value b) { return add(a, b); });
  f.ret({r});
  EXPECT_EQ(
      text(m),
      "module {\n"
      "  func.func @main(%arg0: tensor<2x3xf32>) -> tensor<2xf32> {\n"
      "    %0 = \"stablehlo.constant\"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>\n"
      "    %1 = \"stablehlo.reduce\"(%arg0, %0) ({\n"
      "      ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):\n"
      "        %2 = \"stablehlo.add\"(%arg1, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
      "        \"stablehlo.return\"(%2) : (tensor<f32>) -> ()\n"
      "    }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>\n"
      "    \"func.return\"(%1) : (tensor<2xf32>) -> ()\n"
      "  }\n"
      "}\n");
}

}  // namespace
}  // namespace hhlo

namespace hhlo {
namespace {
TEST(Builder, FunctionNamesThatAreNotIdentifiersAreQuoted) {
  Module m;
  Func& g = m.add_func("my-helper fn", {{DType::f32, {}}}, Visibility::private_);
  g.ret({g.arg(0)});
  Func& f = m.add_func("main", {{DType::f32, {}}});
  f.ret(call(g, {f.arg(0)}));
  std::string t = to_mlir(m, {.locations = false});
  EXPECT_NE(t.find("func.func private @\"my-helper fn\"("), std::string::npos) << t;
  EXPECT_NE(t.find("{callee = @\"my-helper fn\"}"), std::string::npos) << t;
}
}  // namespace
}  // namespace hhlo

#include <unordered_set>

namespace hhlo {
namespace {
TEST(Builder, ValuesHashAndCompare) {
  Module m;
  Func& f = m.add_func("main", {{DType::f32, {}}, {DType::f32, {}}});
  std::unordered_set<Value> s = {f.arg(0), f.arg(1), f.arg(0)};
  EXPECT_EQ(s.size(), 2u);
  EXPECT_TRUE(s.count(f.arg(1)));
  EXPECT_FALSE(Value().valid());
}
}  // namespace
}  // namespace hhlo

namespace hhlo {
namespace {

// inline_call with an InlineRewrite: the rewrite decides op by op; values of the wrong type for
// an op's results are an error naming the op, not a silently retyped program.
TEST(Builder, InlineRewriteReplacesOpsAndChecksTheirTypes) {
  Module src;
  Func& g = src.add_func("main", {TensorType{DType::f32, {3}}});
  g.ret({exponential(g.arg(0))});
  Module dst;
  Func& f = dst.add_func("main", {TensorType{DType::f32, {3}}});
  InlineRewrite to_log = [](const Op& op,
                            const std::vector<Value>& in) -> std::optional<std::vector<Value>> {
    if (op.name() != "stablehlo.exponential") return std::nullopt;
    return std::vector<Value>{log(in[0])};
  };
  f.ret(inline_call(f, src, "main", f.args(), to_log));
  EXPECT_NE(to_mlir(dst).find("stablehlo.log"), std::string::npos);
  EXPECT_EQ(to_mlir(dst).find("stablehlo.exponential"), std::string::npos);
  Module bad;
  Func& h = bad.add_func("main", {TensorType{DType::f32, {3}}});
  InlineRewrite to_i32 = [](const Op&,
                            const std::vector<Value>& in) -> std::optional<std::vector<Value>> {
    return std::vector<Value>{convert(in[0], DType::i32)};
  };
  EXPECT_THROW(inline_call(h, src, "main", h.args(), to_i32), Error);
}

// With RewriteScope::regions_too the rewrite also sees the ops inside regions (a while loop's
// body here) and its values are emitted into the region being copied; by default only the
// function bodies' ops.
TEST(Builder, InlineRewriteReachesIntoRegionsWhenAsked) {
  Module src = parse_module(R"(func.func public @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %e = stablehlo.exponential %x : tensor<3xf32>
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %y = %e) : tensor<i32>, tensor<3xf32>
  cond {
    %n = stablehlo.constant dense<2> : tensor<i32>
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %z = stablehlo.exponential %y : tensor<3xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %z : tensor<i32>, tensor<3xf32>
  }
  return %r#1 : tensor<3xf32>
})");
  InlineRewrite to_log = [](const Op& op,
                            const std::vector<Value>& in) -> std::optional<std::vector<Value>> {
    if (op.name() != "stablehlo.exponential") return std::nullopt;
    return std::vector<Value>{log(in[0])};
  };
  auto count = [](const std::string& text, const std::string& what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  for (RewriteScope scope : {RewriteScope::bodies, RewriteScope::regions_too}) {
    Module dst;
    Func& f = dst.add_func("main", {TensorType{DType::f32, {3}}});
    f.ret(inline_call(f, src, "main", f.args(), to_log, scope));
    verify(dst);
    std::string text = to_mlir(dst);
    bool all = scope == RewriteScope::regions_too;
    EXPECT_EQ(count(text, "stablehlo.log"), all ? 2 : 1) << text;
    EXPECT_EQ(count(text, "stablehlo.exponential"), all ? 0 : 1) << text;
  }
}

// inline_region copies a region's ops in place (twice here, chained), the constants it captures
// from its function copied in; another captured value, or arguments of other types, are errors.
TEST(Builder, InlineRegionCopiesARegionInPlaceWithItsCapturedConstants) {
  Module src;
  TensorType t{DType::f32, {2}};
  Func& g = src.add_func("main", {t, t});
  Value two = constant(g, 2.0, DType::f32, {2});
  RegionBody never = [](const std::vector<Value>& a) {
    Func& fn = a[0].func();
    return std::vector<Value>{compare(constant(fn, 1.0, DType::f32), constant(fn, 0.0, DType::f32),
                                      ComparisonDirection::LT)};
  };
  Value arg1 = g.arg(1);
  std::vector<Value> r = while_loop({g.arg(0)}, never, [&](const std::vector<Value>& a) {
    return std::vector<Value>{multiply(a[0], two)};
  });
  std::vector<Value> captures_arg = while_loop({r[0]}, never, [&](const std::vector<Value>& a) {
    return std::vector<Value>{add(a[0], arg1)};
  });
  g.ret(captures_arg);
  const Op& loop = *g.body().ops()[1];
  ASSERT_EQ(loop.name(), "stablehlo.while");
  const Block& body = *loop.regions()[1];
  Module dst;
  Func& f = dst.add_func("main", {t});
  std::vector<Value> once = inline_region(f, src, body, f.args());
  f.ret(inline_region(f, src, body, once));
  std::string text = to_mlir(dst);
  verify(dst);
  size_t muls = 0;
  for (size_t at = text.find("stablehlo.multiply"); at != std::string::npos;
       at = text.find("stablehlo.multiply", at + 1))
    ++muls;
  EXPECT_EQ(muls, 2u) << text;
  EXPECT_NE(text.find("value = dense<2.0> : tensor<2xf32>"), std::string::npos) << text;
  const Op& second = *g.body().ops()[g.body().ops().size() - 2];  // before func.return
  ASSERT_EQ(second.name(), "stablehlo.while");
  const Block& adds = *second.regions()[1];
  Module bad;
  Func& h = bad.add_func("main", {t});
  EXPECT_THROW(inline_region(h, src, adds, h.args()), Error);  // captures an argument
  Func& i32 = bad.add_func("ints", {TensorType{DType::i32, {2}}});
  EXPECT_THROW(inline_region(i32, src, body, i32.args()), Error);
}

}  // namespace
}  // namespace hhlo
