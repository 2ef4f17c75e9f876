// Module::rename_func, resolve_entry/select_entry and bind_platform_index (hhlo/ir/entry.h): the
// module after each change, printed and parsed back.
#include "hhlo/ir/entry.h"

#include <gtest/gtest.h>

#include "hhlo/ir/ops.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"

namespace hhlo {
namespace {

constexpr const char* kText = R"(module @m {
  func.func public @main(%a: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.negate %a : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
  func.func public @caller(%a: tensor<2xf32>) -> tensor<2xf32> {
    %0 = func.call @main(%a) : (tensor<2xf32>) -> tensor<2xf32>
    %1 = func.call @main(%0) : (tensor<2xf32>) -> tensor<2xf32>
    return %1 : tensor<2xf32>
  }
}
)";

std::string callee(const Func& f, size_t op) {
  return f.body().ops().at(op)->attr("callee")->get_if<SymbolRefAttr>()->name;
}

TEST(RenameFunc, CallsFollowTheNewName) {
  Module m = parse_module(kText);
  m.rename_func("main", "neg");
  ASSERT_NE(m.find("neg"), nullptr);
  EXPECT_EQ(m.find("main"), nullptr);
  EXPECT_EQ(callee(*m.find("caller"), 0), "neg");
  EXPECT_EQ(callee(*m.find("caller"), 1), "neg");
  Module again = parse_module(to_mlir(m));  // verifies the calls against @neg's signature
  EXPECT_EQ(callee(*again.find("caller"), 1), "neg");
}

TEST(RenameFunc, Errors) {
  Module m = parse_module(kText);
  EXPECT_THROW(m.rename_func("nope", "x"), Error);
  EXPECT_THROW(m.rename_func("main", "caller"), Error);
  EXPECT_THROW(m.rename_func("main", ""), Error);
  m.rename_func("main", "main");  // a no-op
  EXPECT_NE(m.find("main"), nullptr);
}

TEST(SelectEntry, TheOldMainBecomesPrivate) {
  Module m = parse_module(kText);
  EXPECT_EQ(select_entry(m, "caller"), "caller");
  const Func* main = m.find("main");
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(main->body().ops().size(), 3u);  // the two calls and the return
  EXPECT_EQ(callee(*main, 0), "main_0");
  ASSERT_NE(m.find("main_0"), nullptr);
  EXPECT_EQ(m.find("main_0")->visibility(), Visibility::private_);
  EXPECT_EQ(m.find("caller"), nullptr);
  parse_module(to_mlir(m));
}

TEST(SelectEntry, ResolveRules) {
  Module m = parse_module(kText);
  EXPECT_EQ(resolve_entry(m), "main");
  EXPECT_EQ(resolve_entry(m, "caller"), "caller");
  Module two = parse_module(R"(
func.func public @f(%a: tensor<f32>) -> tensor<f32> { return %a : tensor<f32> }
func.func private @p(%a: tensor<f32>) -> tensor<f32> { return %a : tensor<f32> }
)");
  EXPECT_EQ(resolve_entry(two), "f");
  try {
    resolve_entry(two, "p");  // private functions are not entries
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "the module has no public function @p (public functions: @f)");
  }
}

TEST(PlatformIndex, BindingMakesAWrapperWithoutTheArgument) {
  Module m = parse_module(R"(
func.func public @main(%i: tensor<i32> {jax.global_constant = "_platform_index"}, %x: tensor<3xf32> {tf.aliasing_output = 0 : i32}) -> (tensor<3xf32> {jax.result_info = "result"}) {
  %0 = stablehlo.convert %i : (tensor<i32>) -> tensor<f32>
  %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<3xf32>
  %2 = stablehlo.add %x, %1 : tensor<3xf32>
  return %2 : tensor<3xf32>
}
)");
  const Func& before = *m.find("main");
  EXPECT_TRUE(has_platform_index(before));
  EXPECT_TRUE(uses_argument(before, 0));
  EXPECT_TRUE(uses_argument(before, 1));
  bind_platform_index(m, 1);
  const Func& main = *m.find("main");
  EXPECT_FALSE(has_platform_index(main));
  EXPECT_EQ(main.arg_types(), (std::vector<TensorType>{{DType::f32, {3}}}));
  EXPECT_EQ(signature(main).result_names, (std::vector<std::string>{"result"}));
  EXPECT_NE(signature(main).arg_attr(0, "tf.aliasing_output"), nullptr);
  ASSERT_NE(m.find("main_0"), nullptr);
  EXPECT_EQ(m.find("main_0")->visibility(), Visibility::private_);
  const Op& c = *main.body().ops().at(0);
  ASSERT_EQ(c.name(), "stablehlo.constant");
  EXPECT_EQ(c.attr("value")->get_if<DenseAttr>()->array->element_as_double(0), 1.0);
  parse_module(to_mlir(m));
  EXPECT_THROW(bind_platform_index(m, 0), Error);  // @main has no index argument any more
}

TEST(PlatformIndex, UnusedArgument) {
  Module m = parse_module(R"(
func.func public @main(%i: tensor<i32> {jax.global_constant = "_platform_index"}, %x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
)");
  EXPECT_TRUE(has_platform_index(*m.find("main")));
  EXPECT_FALSE(uses_argument(*m.find("main"), 0));
  EXPECT_THROW(bind_platform_index(m, -1), Error);
}

}  // namespace
}  // namespace hhlo
