// The IR's compact representations: interned strings (hhlo/ir/interned.h), boxed attribute kinds
// (hhlo/ir/attribute.h) and the parser's shared small dense literals.
#include <gtest/gtest.h>

#include <atomic>
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

}  // namespace
}  // namespace hhlo
