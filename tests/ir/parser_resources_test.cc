// Issue 41, item 4: the forms torch-mlir and TensorFlow print that the parser did not read:
// `dense_resource<KEY>` constants with their blobs in the text's `{-# dialect_resources: ... #-}`
// section (torch-mlir prints every weight so; the layout, a 4-byte little-endian alignment then
// the data, is MLIR's, and jaxlib's MLIR parses these texts), `arith.constant`'s pretty form and
// `stablehlo.set_dimension_size`'s. Each is read into the same IR as the equivalent plain form.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "hhlo/core/error.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"

namespace hhlo {
namespace {

using ::testing::HasSubstr;

/// "0x" + the alignment (4 bytes LE) + the bytes of `values`, in upper-case hex, as MLIR prints a
/// builtin blob.
template <typename T>
std::string blob(const std::vector<T>& values, uint32_t alignment) {
  std::string bytes(sizeof(uint32_t) + values.size() * sizeof(T), '\0');
  std::memcpy(bytes.data(), &alignment, sizeof alignment);
  if (!values.empty()) std::memcpy(bytes.data() + 4, values.data(), values.size() * sizeof(T));
  std::string hex = "0x";
  for (unsigned char c : bytes) hex += fmt::format("{:02X}", c);
  return hex;
}

std::string resources_text(const std::string& body, const std::string& builtin) {
  return "module {\n  func.func @main() -> (tensor<2x3xf32>, tensor<4xi1>) {\n" + body +
         "  }\n}\n\n{-#\n  dialect_resources: {\n    builtin: {\n" + builtin +
         "\n    }\n  }\n#-}\n";
}

const std::string kBody =
    "    %0 = stablehlo.constant dense_resource<torch_tensor_2_3_torch.float32> : "
    "tensor<2x3xf32>\n"
    "    %1 = \"stablehlo.constant\"() {value = dense_resource<\"mask\"> : tensor<4xi1>} : () -> "
    "tensor<4xi1>\n"
    "    return %0, %1 : tensor<2x3xf32>, tensor<4xi1>\n";

const std::vector<float> kWeights = {0.5f, -1.25f, 3.0f, 0.0f, 1e-3f, -7.5f};

std::string weights_entry() {
  return "      torch_tensor_2_3_torch.float32: \"" + blob(kWeights, 4) + "\",\n";
}

const Array& constant(const Module& m, size_t i) {
  const Op& op = *m.find("main")->body().ops().at(i);
  return *op.attr("value")->get_if<DenseAttr>()->array;
}

TEST(ParserResources, DenseResourceConstantsReadTheirBlobs) {
  std::string mask = blob(std::vector<uint8_t>{1, 0, 1, 1}, 1);
  Module m = parse_module(resources_text(kBody, weights_entry() + "      mask: \"" + mask + "\""),
                          {.source_name = "torch_mlir.mlir"});
  EXPECT_EQ(constant(m, 0).to_vector<float>(), kWeights);
  EXPECT_EQ(constant(m, 0).dims(), (Dims{2, 3}));
  EXPECT_EQ(constant(m, 1), Array::from<bool>({4}, {true, false, true, true}));
  // Printed as plain dense<...> (what the plugin reads), which parses back to the same module.
  std::string printed = to_mlir(m);
  EXPECT_THAT(printed, ::testing::Not(HasSubstr("dense_resource")));
  EXPECT_EQ(to_mlir(parse_module(printed)), printed);
}

TEST(ParserResources, OtherDialectsAndExternalResourcesAreSkipped) {
  std::string text = resources_text(
      kBody, weights_entry() + "      mask: \"" + blob(std::vector<uint8_t>{0, 0, 0, 1}, 1) +
                 "\"\n    },\n    other: {\n      flag: true, name: \"x\"");
  text.replace(text.rfind("#-}"), 3,
               ",\n  external_resources: {mlir_reproducer: {a: {b: 1}}}\n#-}");
  Module m = parse_module(text);
  EXPECT_EQ(constant(m, 1), Array::from<bool>({4}, {false, false, false, true}));
}

void expect_parse_error(const std::string& text, const std::string& says) {
  try {
    parse_module(text, {.source_name = "bad.mlir"});
    ADD_FAILURE() << "parsed: " << says;
  } catch (const ParseError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr(says));
  }
}

TEST(ParserResources, AMissingWrongSizedOrMalformedBlobIsAParseErrorNamingTheKey) {
  std::string mask = "      mask: \"" + blob(std::vector<uint8_t>{1, 0, 1, 1}, 1) + "\"";
  // No blob for the key; MLIR's printer elides large blobs as `__elided__` (a text that cannot
  // be run: the data is not in it).
  expect_parse_error(resources_text(kBody, mask), "dense_resource<torch_tensor_2_3_torch.float32>");
  std::string elided = kBody;
  elided.replace(elided.find("torch_tensor_2_3_torch.float32"), 30, "__elided__");
  expect_parse_error(resources_text(elided, mask), "resources elided");
  // A blob of 5 floats for a 2x3 tensor.
  std::vector<float> five(kWeights.begin(), kWeights.end() - 1);
  expect_parse_error(resources_text(kBody, "      torch_tensor_2_3_torch.float32: \"" +
                                               blob(five, 4) + "\",\n" + mask),
                     "a blob of 24 bytes");
  // Not hex; the key twice.
  expect_parse_error(resources_text(kBody, weights_entry() + "      mask: \"0x01000000zz\""),
                     "hex");
  expect_parse_error(resources_text(kBody, weights_entry() + weights_entry() + mask),
                     "each resource key once");
  // The section unterminated.
  std::string open = resources_text(kBody, weights_entry() + mask);
  expect_parse_error(open.substr(0, open.rfind("#-}")), "");
}

TEST(ParserResources, ArithConstantsPrettyFormIsItsGenericForm) {
  const char* pretty = R"(func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = stablehlo.add %a, %c : tensor<3xf32>
  return %0 : tensor<3xf32>
})";
  const char* generic = R"(func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {
  %c = "arith.constant"() {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %0 = stablehlo.add %a, %c : tensor<3xf32>
  return %0 : tensor<3xf32>
})";
  Module m = parse_module(pretty);
  EXPECT_EQ(to_mlir(m), to_mlir(parse_module(generic)));
  EXPECT_EQ(constant(m, 0).to_vector<float>(), (std::vector<float>{1, 2, 3}));
}

TEST(ParserResources, SetDimensionSizesPrettyFormIsItsGenericForm) {
  // As TensorFlow's top_k lowering prints it (the form jaxlib's MLIR prints for the generic one).
  const char* pretty = R"(func.func @main(%a: tensor<5xf32>) -> tensor<5xf32> {
  %c = stablehlo.constant dense<5> : tensor<i32>
  %0 = stablehlo.set_dimension_size %a, %c, dim = 0 : (tensor<5xf32>, tensor<i32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
})";
  const char* generic = R"(func.func @main(%a: tensor<5xf32>) -> tensor<5xf32> {
  %c = stablehlo.constant dense<5> : tensor<i32>
  %0 = "stablehlo.set_dimension_size"(%a, %c) {dimension = 0 : i64} : (tensor<5xf32>, tensor<i32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
})";
  EXPECT_EQ(to_mlir(parse_module(pretty)), to_mlir(parse_module(generic)));
}

}  // namespace
}  // namespace hhlo
