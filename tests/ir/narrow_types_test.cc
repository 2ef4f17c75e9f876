// The narrow element types (i2, i4, ui2, ui4, f4E2M1FN, f6*, f8*) and `!stablehlo.token` in the
// text parser and printer: types, dense literals (decimal, hex bits, hex bytes), the op rules
// that take them, and one-line errors for literals out of their range.
#include <gtest/gtest.h>

#include <string>

#include "hhlo/ir/ops.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/ir/verifier.h"

namespace hhlo {
namespace {

/// The array of the first stablehlo.constant of `body` (a function returning it).
Array constant_of(const std::string& constant, const std::string& type) {
  Module m = parse_module("func.func @main() -> " + type + " {\n  %0 = stablehlo.constant " +
                          constant + "\n  return %0 : " + type + "\n}\n");
  for (const auto& op : m.funcs()[0]->body().ops())
    if (op->name() == "stablehlo.constant") return *op->attr("value")->get_if<DenseAttr>()->array;
  throw Error("no constant");
}

std::vector<uint8_t> bytes(const Array& a) {
  const auto* p = static_cast<const uint8_t*>(a.data());
  return {p, p + a.byte_size()};
}

TEST(NarrowTypesText, IntegerLiteralsAreTheirLowBitsOneBytePerElement) {
  Array a = constant_of("dense<[-8, -1, 0, 1, 7]> : tensor<5xi4>", "tensor<5xi4>");
  EXPECT_EQ(a.dtype(), DType::i4);
  EXPECT_EQ(bytes(a), (std::vector<uint8_t>{0x8, 0xF, 0x0, 0x1, 0x7}));
  Array u = constant_of("dense<[0, 8, 15]> : tensor<3xui4>", "tensor<3xui4>");
  EXPECT_EQ(bytes(u), (std::vector<uint8_t>{0, 8, 15}));
  Array s = constant_of("dense<[1, 0, -1, -2]> : tensor<4xi2>", "tensor<4xi2>");
  EXPECT_EQ(bytes(s), (std::vector<uint8_t>{1, 0, 3, 2}));
  Array h = constant_of("dense<\"0x0F0801\"> : tensor<3xi4>", "tensor<3xi4>");
  EXPECT_EQ(h.element_as_double(0), -1);
  EXPECT_EQ(h.element_as_double(1), -8);
  Array high = constant_of("dense<\"0xFF\"> : tensor<1xui2>", "tensor<1xui2>");
  EXPECT_EQ(bytes(high), (std::vector<uint8_t>{3}));  // the high bits of the byte are dropped
}

TEST(NarrowTypesText, FloatLiteralsRoundAndHexIsTheBitPattern) {
  // stablehlo/tests/interpret/constant.mlir, @constant_op_test_f8_e4m3_fn: the StableHLO
  // interpreter's expected values.
  Array a = constant_of(
      "dense<[0.0, -0.0, 1.0, 0.125, 0.1, 3.1415, 0x7F, 0xFF, 0x01, 0x81]> : tensor<10xf8E4M3FN>",
      "tensor<10xf8E4M3FN>");
  std::vector<double> want = {0.0, -0.0, 1.0, 0.125, 0.1015625, 3.25};
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(a.element_as_double(static_cast<int64_t>(i)), want[i]) << i;
  EXPECT_TRUE(std::signbit(a.element_as_double(1)));
  EXPECT_TRUE(std::isnan(a.element_as_double(6)));
  EXPECT_TRUE(std::isnan(a.element_as_double(7)));
  EXPECT_EQ(a.element_as_double(8), 0.001953125);
  EXPECT_EQ(a.element_as_double(9), -0.001953125);
  // @constant_op_test_f4_e2m1fn
  Array f4 = constant_of(
      "dense<[0.0, -0.0, 1.0, 0.125, 0.1, 3.1415, 0x07, 0x0F, 0x01, 0x09]> : tensor<10xf4E2M1FN>",
      "tensor<10xf4E2M1FN>");
  std::vector<double> want4 = {0.0, -0.0, 1.0, 0.0, 0.0, 3.0, 6.0, -6.0, 0.5, -0.5};
  for (size_t i = 0; i < want4.size(); ++i)
    EXPECT_EQ(f4.element_as_double(static_cast<int64_t>(i)), want4[i]) << i;
  // @constant_op_test_f8_e4m3b11_fnuz: -0.0 is +0 (no negative zero), 0x7F is 30.
  Array b11 =
      constant_of("dense<[-0.0, 0x7F, 0xFF]> : tensor<3xf8E4M3B11FNUZ>", "tensor<3xf8E4M3B11FNUZ>");
  EXPECT_EQ(bytes(b11), (std::vector<uint8_t>{0x00, 0x7F, 0xFF}));
  EXPECT_EQ(b11.element_as_double(1), 30.0);
  EXPECT_EQ(b11.element_as_double(2), -30.0);
}

TEST(NarrowTypesText, EveryNarrowTypePrintsAndParsesBack) {
  for (DType t : kNarrowDTypes) {
    SCOPED_TRACE(std::string(mlir_name(t)));
    std::string ty = TensorType{t, {3}}.to_string();
    std::string lit = is_float(t) ? "dense<[0x01, 0x02, 0x03]>" : "dense<[1, 0, 1]>";
    std::string text = "func.func @main(%a: " + ty + ") -> (" + ty + ", " + ty +
                       ") {\n  %0 = stablehlo.constant " + lit + " : " + ty +
                       "\n  %1 = stablehlo.convert %a : " + ty + "\n  return %0, %1 : " + ty +
                       ", " + ty + "\n}\n";
    Module m = parse_module(text);
    verify(m);
    std::string printed = to_mlir(m);
    EXPECT_NE(printed.find(std::string(mlir_name(t))), std::string::npos);
    EXPECT_EQ(to_mlir(parse_module(printed)), printed);
  }
}

TEST(NarrowTypesText, OpRulesTakeTheNarrowTypesAsTheirClass) {
  Module m;
  Func& f = m.add_func("main", {{DType::i4, {4}}, {DType::f8E4M3FN, {4}}, {DType::ui2, {4}}});
  Value i = add(f.arg(0), f.arg(0));
  Value x = multiply(f.arg(1), f.arg(1));
  Value c = compare(x, x, ComparisonDirection::LT);
  Value u = and_(f.arg(2), f.arg(2));
  Value cv = convert(f.arg(1), DType::i4);
  Value s = sine(convert(f.arg(0), DType::f8E5M2));
  EXPECT_THROW(sine(f.arg(0)), ShapeError);            // sine takes floats, not i4
  EXPECT_THROW(and_(f.arg(1), f.arg(1)), ShapeError);  // and takes integers, not f8
  f.ret({i, x, c, u, cv, s});
  verify(m);
}

TEST(NarrowTypesText, LiteralsOutOfRangeAreOneLineErrors) {
  auto fails = [](const std::string& constant, const std::string& type, const std::string& what) {
    try {
      constant_of(constant, type);
      ADD_FAILURE() << constant << " parsed";
    } catch (const Error& e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find(what), std::string::npos) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
  };
  fails("dense<[8]> : tensor<1xi4>", "tensor<1xi4>", "in range of i4");
  fails("dense<[-1]> : tensor<1xui4>", "tensor<1xui4>", "in range of ui4");
  fails("dense<[2]> : tensor<1xi2>", "tensor<1xi2>", "in range of i2");
  fails("dense<[0x1FF]> : tensor<1xf8E5M2>", "tensor<1xf8E5M2>", "bit pattern");
  fails("dense<[0x10]> : tensor<1xf4E2M1FN>", "tensor<1xf4E2M1FN>", "bit pattern");
  EXPECT_THROW(parse_module("func.func @main(%a: tensor<2xf8E4M3>) -> tensor<2xf8E4M3> {\n"
                            "  return %a : tensor<2xf8E4M3FNX>\n}\n"),
               ParseError);
}

TEST(NarrowTypesText, TokenTypedArgumentsPrintAndParse) {
  std::string text =
      "func.func @main(%t: !stablehlo.token, %x: tensor<2xf32>) -> (!stablehlo.token, "
      "tensor<2xf32>) {\n  return %t, %x : !stablehlo.token, tensor<2xf32>\n}\n";
  Module m = parse_module(text);
  EXPECT_EQ(m.funcs()[0]->arg(0).type(), (TensorType{DType::token, {}}));
  std::string printed = to_mlir(m);
  EXPECT_NE(printed.find("!stablehlo.token"), std::string::npos);
  EXPECT_EQ(to_mlir(parse_module(printed)), printed);
}

}  // namespace
}  // namespace hhlo
