// The IR's compact representations: interned strings (hhlo/ir/interned.h), boxed attribute kinds
// (hhlo/ir/attribute.h), the parser's shared small dense literals, and ops that store their
// operand and result ids inline (hhlo/ir/module.h ValueRange).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "hhlo/ir/interned.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"

namespace hhlo {
namespace {

TEST(IString, EqualTextsShareOneEntry) {
  size_t before = IString::table_size();
  IString a(std::string("hhlo.lean_ir_test.unique_text_1"));
  IString b("hhlo.lean_ir_test.unique_text_1");
  EXPECT_EQ(IString::table_size(), before + 1);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.c_str(), b.c_str());  // one copy of the text
  IString c("hhlo.lean_ir_test.unique_text_2");
  EXPECT_FALSE(a == c);
  EXPECT_EQ(IString::table_size(), before + 2);
}

TEST(IString, LastHolderFreesTheEntry) {
  size_t before = IString::table_size();
  {
    IString a("hhlo.lean_ir_test.short_lived");
    IString b = a;
    IString c = std::move(b);
    EXPECT_TRUE(b.empty());  // NOLINT: moved-from is empty by contract
    EXPECT_EQ(IString::table_size(), before + 1);
  }
  EXPECT_EQ(IString::table_size(), before);
}

TEST(IString, ReadsLikeAString) {
  IString s("stablehlo.dot_general");
  const std::string& r = s;
  EXPECT_EQ(r, "stablehlo.dot_general");
  EXPECT_EQ(s.size(), 21u);
  EXPECT_TRUE(s.starts_with("stablehlo."));
  EXPECT_EQ(s.substr(10), "dot_general");
  EXPECT_EQ(s + "!", "stablehlo.dot_general!");
  EXPECT_EQ(fmt::format("<{}>", s), "<stablehlo.dot_general>");
  EXPECT_TRUE(IString() == "");
  EXPECT_TRUE(IString("").empty());
  EXPECT_LT(IString("a"), IString("b"));
}

// Many threads interning, copying and dropping the same few texts: every read sees its text,
// and the table is back to its size at the end (run under `make tsan` too).
TEST(IString, ConcurrentInternAndReleaseKeepTextsAndCounts) {
  size_t before = IString::table_size();
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        std::string text = "hhlo.lean_ir_test.concurrent_" + std::to_string((i + t) % 5);
        IString a(text);
        IString b = a;
        if (b.str() != text) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(IString::table_size(), before);
}

TEST(BoxedAttr, DimensionNumbersReadAndCopyAsPlainStructs) {
  DotDimensionNumbers d;
  d.lhs_contracting_dimensions = {1};
  d.rhs_contracting_dimensions = {0};
  Attribute a = d;
  ASSERT_NE(a.get_if<DotDimensionNumbers>(), nullptr);
  EXPECT_EQ(a.get_if<DotDimensionNumbers>()->lhs_contracting_dimensions, std::vector<int64_t>{1});
  EXPECT_EQ(a.get_if<GatherDimensionNumbers>(), nullptr);
  Attribute copy = a;  // a deep copy: changing the original's box leaves the copy alone
  a = Attribute(i64_attr(3));
  ASSERT_NE(copy.get_if<DotDimensionNumbers>(), nullptr);
  EXPECT_EQ(copy.get_if<DotDimensionNumbers>()->rhs_contracting_dimensions,
            std::vector<int64_t>{0});
  EXPECT_LE(sizeof(Attribute), 40u);
}

TEST(ParsedModule, EqualSmallLiteralsShareOneArrayAndPrintBack) {
  const std::string text = R"(module {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %3 = stablehlo.add %0, %1 : tensor<f32>
    %4 = stablehlo.add %3, %2 : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %6 = stablehlo.add %arg0, %5 : tensor<4xf32>
    return %6 : tensor<4xf32>
  }
})";
  Module m = parse_module(text);
  const auto& ops = m.funcs().front()->body().ops();
  auto array_of = [&](size_t i) { return ops[i]->attr("value")->get_if<DenseAttr>()->array.get(); };
  EXPECT_EQ(array_of(0), array_of(1));
  EXPECT_NE(array_of(0), array_of(2));
  EXPECT_EQ(array_of(2)->values<float>()[0], 1.0f);
  // Shared or not, the module prints and parses back to the same text.
  std::string printed = to_mlir(m);
  EXPECT_EQ(to_mlir(parse_module(printed)), printed);
}

TEST(OpStorage, UpToFourValuesInsideTheOpMoreOnTheHeapAllReadBackInOrder) {
  EXPECT_LE(sizeof(Op), 104u);
  Module m;
  TensorType t{DType::f32, {2}};
  Func& f = m.add_func("main", {t, t, t, t, t});
  Value sum = add(f.arg(0), f.arg(1));  // 2 + 1 ids: inline
  Value cat = concatenate({f.arg(0), f.arg(1), f.arg(2), f.arg(3), f.arg(4)}, 0);  // 5 + 1: heap
  f.ret({sum, cat});
  const auto& ops = f.body().ops();
  ASSERT_EQ(ops.size(), 3u);  // add, concatenate, func.return
  const Op& a = *ops[0];
  const Op& c = *ops[1];
  EXPECT_EQ(a.operands().size(), 2u);
  EXPECT_EQ(a.operands()[0], f.arg(0));
  EXPECT_EQ(a.operands()[1], f.arg(1));
  EXPECT_EQ(a.result(), sum);
  EXPECT_EQ(sum.defining_op(), &a);
  ASSERT_EQ(c.operands().size(), 5u);
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(c.operands()[i], f.arg(i)) << i;
  EXPECT_EQ(c.results().size(), 1u);
  EXPECT_EQ(c.result(0), cat);
  EXPECT_EQ(cat.type(), (TensorType{DType::f32, {10}}));
  EXPECT_EQ(cat.defining_op(), &c);
  EXPECT_EQ(cat.index(), 0u);
  EXPECT_THROW(c.result(1), std::out_of_range);
  EXPECT_THROW(c.operands().at(5), std::out_of_range);
  EXPECT_TRUE(a.regions().empty());
  // Read like a std::vector<Value>: copied into one, compared with one, walked by algorithms.
  std::vector<Value> copied = c.operands();
  EXPECT_EQ(copied, f.args());
  EXPECT_TRUE(c.operands() == f.args());
  EXPECT_EQ(std::find(c.operands().begin(), c.operands().end(), f.arg(3)) - c.operands().begin(),
            3);
  EXPECT_TRUE(std::ranges::all_of(c.operands(), [](const Value& v) { return v.rank() == 1; }));
  const Op& r = *ops[2];
  EXPECT_EQ(r.operands().vec(), (std::vector<Value>{sum, cat}));
  EXPECT_TRUE(r.results().empty());
}

TEST(OpStorage, OpsWithManyValuesAndRegionsParsePrintAndParseBack) {
  // A while carrying five values: 5 operands + 5 results (heap ids), two regions whose blocks
  // take five arguments each; the printed text must name every value in its place.
  const std::string text = R"(module {
  func.func public @main(%arg0: tensor<i32>, %arg1: tensor<f32>, %arg2: tensor<f32>, %arg3: tensor<f32>, %arg4: tensor<f32>) -> (tensor<i32>, tensor<f32>) {
    %0:5 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %arg1, %iterArg_1 = %arg2, %iterArg_2 = %arg3, %iterArg_3 = %arg4) : tensor<i32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
    cond {
      %c = stablehlo.constant dense<3> : tensor<i32>
      %1 = stablehlo.compare  LT, %iterArg, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %c = stablehlo.constant dense<1> : tensor<i32>
      %1 = stablehlo.add %iterArg, %c : tensor<i32>
      %2 = stablehlo.add %iterArg_0, %iterArg_1 : tensor<f32>
      stablehlo.return %1, %2, %iterArg_2, %iterArg_3, %iterArg_1 : tensor<i32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
    }
    return %0#0, %0#4 : tensor<i32>, tensor<f32>
  }
})";
  Module m = parse_module(text);
  const Func& f = *m.funcs().front();
  const Op& w = *f.body().ops()[0];
  ASSERT_EQ(w.name(), "stablehlo.while");
  ASSERT_EQ(w.operands().size(), 5u);
  ASSERT_EQ(w.results().size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(w.operands()[i], f.arg(i)) << i;
    EXPECT_EQ(w.results()[i].defining_op(), &w) << i;
    EXPECT_EQ(w.results()[i].index(), i);
  }
  ASSERT_EQ(w.regions().size(), 2u);
  const Block& body = *w.regions()[1];
  const Op& ret = *body.ops().back();
  ASSERT_EQ(ret.operands().size(), 5u);
  EXPECT_EQ(ret.operands()[0], body.ops()[1]->result());  // %1
  EXPECT_EQ(ret.operands()[1], body.ops()[2]->result());  // %2
  EXPECT_EQ(ret.operands()[2], body.arg(3));              // %iterArg_2
  EXPECT_EQ(ret.operands()[3], body.arg(4));
  EXPECT_EQ(ret.operands()[4], body.arg(2));  // %iterArg_1
  const Op& fret = *f.body().ops().back();
  EXPECT_EQ(fret.operands()[0], w.results()[0]);
  EXPECT_EQ(fret.operands()[1], w.results()[4]);
  std::string printed = to_mlir(m);
  EXPECT_EQ(to_mlir(parse_module(printed)), printed);
}

}  // namespace
}  // namespace hhlo
