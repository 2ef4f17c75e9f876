// NumPy-style layer without a plugin: result shapes and the errors each helper throws.
#include <gtest/gtest.h>

#include "hhlo/ir/printer.h"
#include "hhlo/ops/ops.h"

namespace hhlo {
namespace {

TensorType f32(Dims d) { return {DType::f32, std::move(d)}; }

template <typename F>
void expect_error(const std::string& op, F&& fn) {
  try {
    fn();
    ADD_FAILURE() << "no ShapeError for " << op;
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.op(), op) << e.what();
  }
}

TEST(Numpy, BroadcastShapes) {
  EXPECT_EQ(np::broadcast_shapes({2, 1, 3}, {4, 1}), (Dims{2, 4, 3}));
  EXPECT_EQ(np::broadcast_shapes({}, {3}), (Dims{3}));
  expect_error("broadcast", [] { np::broadcast_shapes({2, 3}, {4}); });
  Module m;
  Func& f = m.add_func("main", {f32({2, 3}), f32({4})});
  expect_error("broadcast", [&] { np::broadcast_to(f.arg(0), {3}); });
  expect_error("broadcast", [&] { Tensor(f.arg(0)) + Tensor(f.arg(1)); });
  EXPECT_TRUE(f.body().ops().empty());  // nothing appended by the failures
}

TEST(Numpy, OperatorsAndScalarsKeepDtype) {
  Module m;
  Func& f = m.add_func("main", {{DType::bf16, {2, 3}}, {DType::i32, {3}}});
  Tensor x = f.arg(0), k = f.arg(1);
  EXPECT_EQ((x * 2).type(), (TensorType{DType::bf16, {2, 3}}));
  EXPECT_EQ((1 - k).type(), (TensorType{DType::i32, {3}}));
  expect_error("constant", [&] { k + 0.5; });                   // 0.5 does not fit i32
  expect_error("add", [&] { x + np::astype(k, DType::f32); });  // dtype mismatch: convert first
}

TEST(Numpy, ReductionShapes) {
  Module m;
  Func& f = m.add_func("main", {f32({2, 3, 4})});
  Tensor x = f.arg(0);
  EXPECT_EQ(np::sum(x).shape(), Dims{});
  EXPECT_EQ(np::sum(x, {-1}).shape(), (Dims{2, 3}));
  EXPECT_EQ(np::mean(x, {0, 2}, true).shape(), (Dims{1, 3, 1}));
  EXPECT_EQ(np::argmax(x, 1).type(), (TensorType{DType::i32, {2, 4}}));
  EXPECT_EQ(np::softmax(x, 1).shape(), (Dims{2, 3, 4}));
  EXPECT_EQ(np::logsumexp(x, {1}).shape(), (Dims{2, 4}));
  expect_error("sum", [&] { np::sum(x, {3}); });
  expect_error("sum", [&] { np::sum(x, {1, -2}); });
  expect_error("argmax", [&] { np::argmax(x, -4); });
}

TEST(Numpy, ShapeHelpers) {
  Module m;
  Func& f = m.add_func("main", {f32({2, 3, 4}), {DType::i32, {5}}});
  Tensor x = f.arg(0);
  EXPECT_EQ(np::reshape(x, {-1, 4}).shape(), (Dims{6, 4}));
  EXPECT_EQ(np::transpose(x).shape(), (Dims{4, 3, 2}));
  EXPECT_EQ(np::expand_dims(x, -1).shape(), (Dims{2, 3, 4, 1}));
  EXPECT_EQ(np::squeeze(np::expand_dims(x, 0)).shape(), (Dims{2, 3, 4}));
  EXPECT_EQ(np::stack({x, x, x}, 1).shape(), (Dims{2, 3, 3, 4}));
  EXPECT_EQ(np::split(x, 2, -1)[1].shape(), (Dims{2, 3, 2}));
  EXPECT_EQ(np::split_at(x, {1}, 1)[1].shape(), (Dims{2, 2, 4}));
  EXPECT_EQ(np::take(x, f.arg(1), 1).shape(), (Dims{2, 5, 4}));
  auto [v, i] = np::topk(x, 2);
  EXPECT_EQ(v.shape(), (Dims{2, 3, 2}));
  EXPECT_EQ(i.dtype(), DType::i32);
  expect_error("reshape", [&] { np::reshape(x, {-1, 5}); });
  expect_error("reshape", [&] { np::reshape(x, {-1, -1}); });
  expect_error("squeeze", [&] { np::squeeze(x, {0}); });
  expect_error("split", [&] { np::split(x, 3, 0); });
  expect_error("stack", [&] { np::stack({x, np::reshape(x, {3, 2, 4})}); });
  expect_error("topk", [&] { np::topk(x, 5); });
}

TEST(Numpy, MatmulEinsumShapes) {
  Module m;
  Func& f = m.add_func("main", {f32({5, 1, 3, 4}), f32({2, 4, 6}), f32({4}), f32({3, 4})});
  Tensor a = f.arg(0), b = f.arg(1), v = f.arg(2), c = f.arg(3);
  EXPECT_EQ(np::matmul(a, b).shape(), (Dims{5, 2, 3, 6}));
  EXPECT_EQ(np::matmul(v, b).shape(), (Dims{2, 6}));
  EXPECT_EQ(np::matmul(c, v).shape(), (Dims{3}));
  EXPECT_EQ(np::matmul(v, v).shape(), Dims{});
  expect_error("matmul", [&] { np::matmul(b, c); });
  expect_error("matmul", [&] { np::matmul(np::sum(v), v); });
  EXPECT_EQ(np::einsum("ij,kj->ik", c, c).shape(), (Dims{3, 3}));
  EXPECT_EQ(np::einsum("bij,bjk->bki", f.arg(1), np::reshape(f.arg(1), {2, 6, 4})).shape(),
            (Dims{2, 4, 4}));
  EXPECT_EQ(np::einsum("ij,j->", c, v).shape(), Dims{});
  expect_error("einsum", [&] { np::einsum("ij,jk", c, c); });
  expect_error("einsum", [&] { np::einsum("ii,jk->ik", c, c); });
  expect_error("einsum", [&] { np::einsum("ij,jk->ik", c, c); });  // j: 4 vs 3
  expect_error("einsum", [&] { np::einsum("ij,jk->iz", c, np::transpose(c)); });
  expect_error("einsum", [&] { np::einsum("...j,jk->k", c, c); });
}

TEST(Numpy, OperatorsRecordTheUsersLine) {
  Module m;
  Func& f = m.add_func("main", {f32({2}), f32({2})});
  Value a = f.arg(0), b = f.arg(1);
  Tensor s = a + b;  // Value + Value goes through Tensor operators too
  int line = __LINE__ - 1;
  Tensor n = -s * 2;
  int line2 = __LINE__ - 1;
  f.ret({n});
  std::string t = to_mlir(m);
  EXPECT_NE(t.find("numpy_shapes_test.cc\":" + std::to_string(line) + ":"), std::string::npos) << t;
  EXPECT_NE(t.find("\"stablehlo.negate\"(%0) : (tensor<2xf32>) -> tensor<2xf32> loc(\"" +
                   std::string(__FILE__) + "\":" + std::to_string(line2)),
            std::string::npos)
      << t;
}

TEST(Numpy, SupportedOpsListsEveryFamily) {
  auto ops = supported_ops();
  for (std::string_view want :
       {"stablehlo.add", "stablehlo.tanh", "stablehlo.scatter", "stablehlo.while",
        "stablehlo.custom_call", "func.call", "stablehlo.rng_bit_generator"})
    EXPECT_TRUE(std::find(ops.begin(), ops.end(), want) != ops.end()) << want;
  EXPECT_GE(ops.size(), 80u);
}

}  // namespace
}  // namespace hhlo
