// `dense_resource` constants in plain MLIR bytecode (issue 41, item 4: torch-mlir's weights), made
// at build time by tests/ir/gen_plain_bytecode.py: jaxlib parses a text of dense_resource
// constants with its `dialect_resources` blobs and writes it as bytecode, which puts the blobs in
// the resource sections. The bytecode reads to the module its text reads to, the constants hold
// NumPy's arrays, and malformed resource sections, blobs of the wrong size or missing, and
// dimensions beyond the text parser's bounds are ParseErrors naming the section and offset.
// (VHLO has no dense_resource: the serialize_portable_artifact of jaxlib 0.10.2 and 0.12.1 refuses
// such a module, "failed to legalize operation 'stablehlo.constant'".)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "hhlo/core/array.h"
#include "hhlo/core/error.h"
#include "hhlo/ir/bytecode.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;

const fs::path kDir = fs::path(HHLO_GENERATED_DIR) / "plain_bytecode";

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

#define SKIP_WITHOUT_RESOURCES() \
  if (!fs::exists(kDir / "resources.mlirbc")) GTEST_SKIP() << "gen_plain_bytecode.py did not run"

/// The ParseError's text of reading `b`, or "" when it reads.
std::string error_of(const std::string& b, std::string* source = nullptr,
                     uint32_t* offset = nullptr) {
  try {
    read_bytecode(b, {.source_name = "r.mlirbc"});
  } catch (const ParseError& e) {
    if (source) *source = e.source();
    if (offset) *offset = e.column();
    return e.what();
  }
  return "";
}

TEST(BytecodeResources, ReadsAsItsTextAtEveryBytecodeVersion) {
  SKIP_WITHOUT_RESOURCES();
  std::string text = to_mlir(parse_module(slurp(kDir / "resources.mlir")));
  EXPECT_NE(text.find("dense<"), std::string::npos) << text;
  for (std::string v : {"", "@v0", "@v1", "@v2", "@v3", "@v4", "@v5"})
    EXPECT_EQ(to_mlir(read_bytecode(slurp(kDir / ("resources" + v + ".mlirbc")))), text) << v;
}

TEST(BytecodeResources, ConstantsHoldNumPysArrays) {
  SKIP_WITHOUT_RESOURCES();
  Module m = read_bytecode(slurp(kDir / "resources.mlirbc"));
  const auto& ops = m.find("main")->body().ops();
  for (size_t k = 0; k < 4; ++k) {
    const Attribute* v = ops.at(k)->attr("value");
    ASSERT_NE(v, nullptr) << k;
    const DenseAttr* d = v->get_if<DenseAttr>();
    ASSERT_NE(d, nullptr) << k;
    Array want = read_npy((kDir / ("resources.w" + std::to_string(k) + ".npy")).string());
    EXPECT_EQ(*d->array, want) << "constant " << k << ": " << d->array->type().to_string();
  }
}

TEST(BytecodeResources, EveryTruncationIsAParseErrorNamingSectionAndOffset) {
  SKIP_WITHOUT_RESOURCES();
  std::string b = slurp(kDir / "resources.mlirbc");
  for (size_t n = 0; n < b.size(); ++n) {
    std::string source;
    uint32_t offset = 0;
    std::string e = error_of(b.substr(0, n), &source, &offset);
    EXPECT_NE(source.find("section"), std::string::npos) << n << ": " << e;
    EXPECT_LE(offset, n) << e;
  }
}

TEST(BytecodeResources, EveryFlippedByteIsReadOrAnErrorAndPrintsAsText) {
  SKIP_WITHOUT_RESOURCES();
  std::string b = slurp(kDir / "resources.mlirbc");
  for (size_t i = 0; i < b.size(); ++i)
    for (unsigned char x : {0x01, 0x02, 0x80, 0xFF}) {
      std::string c = b;
      c[i] = static_cast<char>(c[i] ^ x);
      std::string printed;
      try {
        printed = to_mlir(read_bytecode(c, {.verify = false}));
      } catch (const Error&) {
        continue;
      } catch (const std::exception& e) {
        ADD_FAILURE() << "byte " << i << " ^ " << int(x) << ": not an hhlo::Error: " << e.what();
        continue;
      }
      try {
        parse_module(printed, {.verify = false});
      } catch (const std::exception& e) {
        ADD_FAILURE() << "byte " << i << " ^ " << int(x) << ": does not parse back: " << e.what();
      }
    }
}

/// Where the f32 weight's blob starts in `b` (its bytes are NumPy's), and its size varint (one
/// byte, before the 0xCB padding).
size_t weight_at(const std::string& b, size_t& size_byte) {
  std::string w = slurp(kDir / "resources.w0.npy");
  std::string data = w.substr(w.size() - 24);  // 6 float32 after the .npy header
  size_t at = b.find(data);
  EXPECT_NE(at, std::string::npos);
  size_byte = at - 1;
  while (static_cast<unsigned char>(b[size_byte]) == 0xCB) --size_byte;
  return at;
}

TEST(BytecodeResources, ABlobSizeBeyondItsEntryNamesTheResourceSection) {
  SKIP_WITHOUT_RESOURCES();
  std::string b = slurp(kDir / "resources.mlirbc");
  size_t size_byte = 0;
  size_t at = weight_at(b, size_byte);
  ASSERT_EQ(static_cast<unsigned char>(b[size_byte]), (24 << 1) | 1);  // varint 24
  std::string source;
  uint32_t offset = 0;
  std::string longer = b, shorter = b;
  longer[size_byte] = static_cast<char>((25 << 1) | 1);
  std::string e = error_of(longer, &source, &offset);
  EXPECT_NE(e.find("the 25 bytes of resource 'torch_tensor_2_3_torch.float32'"), std::string::npos)
      << e;
  EXPECT_NE(source.find("resource section"), std::string::npos) << source;
  EXPECT_EQ(offset, at) << e;
  shorter[size_byte] = static_cast<char>((20 << 1) | 1);
  e = error_of(shorter, &source, &offset);
  EXPECT_NE(e.find("the end of resource 'torch_tensor_2_3_torch.float32'"), std::string::npos) << e;
  EXPECT_EQ(offset, at + 20) << e;
  std::string misaligned = b;  // the padding must be 0xCB
  if (size_byte + 1 < at) {
    misaligned[size_byte + 1] = 0;
    e = error_of(misaligned, &source, &offset);
    EXPECT_NE(e.find("an alignment byte 0xCB"), std::string::npos) << e;
    EXPECT_EQ(offset, size_byte + 1) << e;
  }
}

TEST(BytecodeResources, ABlobOfTheWrongSizeIsRefused) {
  SKIP_WITHOUT_RESOURCES();
  std::string source;
  std::string e = error_of(slurp(kDir / "resource_wrong_size.bad"), &source);
  EXPECT_NE(e.find("a blob of 6 bytes for dense_resource<mask> : tensor<6xi1>"), std::string::npos)
      << e;
  EXPECT_NE(e.find("found 5 bytes"), std::string::npos) << e;
  EXPECT_NE(source.find("resource section"), std::string::npos) << source;
}

TEST(BytecodeResources, ADenseResourceWithoutABlobIsRefused) {
  SKIP_WITHOUT_RESOURCES();
  std::string e = error_of(slurp(kDir / "resource_missing.bad"));
  EXPECT_NE(e.find("the builtin blob of dense_resource<nowhere> : tensor<4xf64>"),
            std::string::npos)
      << e;
}

/// MLIR's PrefixVarInt at `b[i]` (advancing `i`), read here from the format's document.
uint64_t varint(const std::string& b, size_t& i) {
  auto byte = [&] { return static_cast<uint64_t>(static_cast<unsigned char>(b.at(i++))); };
  uint64_t first = byte(), v = 0;
  int extra = first == 0 ? 8 : __builtin_ctzll(first);  // further bytes (little-endian)
  for (int k = 0; k < extra; ++k) v |= byte() << (8 * k);
  if (first == 0) return v;
  return (first | (v << 8)) >> (extra + 1);
}

/// Where the data of top-level section `id` start in bytecode `b`.
size_t section_start(const std::string& b, int id) {
  size_t i = 4;
  varint(b, i);             // the bytecode version
  i = b.find('\0', i) + 1;  // the producer
  while (i < b.size()) {
    int sid = static_cast<unsigned char>(b[i]) & 0x7f;
    bool aligned = static_cast<unsigned char>(b[i]) & 0x80;
    ++i;
    uint64_t length = varint(b, i);
    if (aligned) {
      uint64_t align = varint(b, i);
      while (i % align) ++i;  // 0xCB padding
    }
    if (sid == id) return i;
    i += length;
  }
  ADD_FAILURE() << "no section " << id;
  return 0;
}

TEST(BytecodeResources, ResourcesOfAnotherDialectOrKindAreNotBlobsOfADenseResource) {
  SKIP_WITHOUT_RESOURCES();
  std::string b = slurp(kDir / "resources.mlirbc");
  size_t at = section_start(b, 6);  // resource offsets: external groups (0), then dialect groups
  ASSERT_EQ(b[at], '\x01') << "no external groups";
  ASSERT_EQ(b[at + 1], '\x01') << "the builtin dialect (index 0) first";
  ASSERT_EQ(b[at + 2], '\x09') << "4 resources";
  // The group as func's (dialect index 1): read past, then refused where a constant uses one.
  std::string other = b;
  other[at + 1] = '\x03';
  std::string e = error_of(other);
  EXPECT_NE(e.find("expected the builtin blob of dense_resource<torch_tensor_2_3_torch.float32> "
                   ": tensor<2x3xf32>, found a resource of dialect 'func'"),
            std::string::npos)
      << e;
  // The first resource as a bool (kind 1), then as a kind MLIR has not (3).
  size_t kind_at = at + 5;  // key, size, kind: one byte each here
  ASSERT_EQ(b[kind_at], '\0');
  std::string as_bool = b;
  as_bool[kind_at] = 1;
  e = error_of(as_bool);
  EXPECT_NE(e.find("found a bool resource"), std::string::npos) << e;
  std::string bad_kind = b;
  bad_kind[kind_at] = 3;
  std::string source;
  uint32_t offset = 0;
  e = error_of(bad_kind, &source, &offset);
  EXPECT_NE(e.find("the kind of resource 'torch_tensor_2_3_torch.float32' (0 blob, 1 bool, 2 "
                   "string), found 3"),
            std::string::npos)
      << e;
  EXPECT_NE(source.find("resource offset section"), std::string::npos) << source;
  EXPECT_EQ(offset, kind_at);
}

// Fuzz finding: a mutated bytecode program read with a dimension of 9223372036854775710 printed a
// type the text parser refuses ("an out-of-range number"); the reader now refuses dimensions
// beyond the text parser's bounds (each at most 2^48, at most 2^56 elements).
TEST(BytecodeResources, DimensionsBeyondTheTextParsersBoundsAreRefused) {
  SKIP_WITHOUT_RESOURCES();
  std::string source;
  std::string e = error_of(slurp(kDir / "huge_dim.bad"), &source);
  EXPECT_NE(e.find("a dimension size from 0 to 2^48 or dynamic"), std::string::npos) << e;
  EXPECT_NE(e.find("9223372036854775710"), std::string::npos) << e;
  EXPECT_NE(source.find("attribute/type section"), std::string::npos) << source;
  e = error_of(slurp(kDir / "huge_count.bad"));
  EXPECT_NE(e.find("a tensor of at most 2^56 elements, found 1152921504606846976"),
            std::string::npos)
      << e;
  // The same texts, which MLIR's parser accepts, are refused by ours.
  EXPECT_THROW(parse_module("func.func @main(%a: tensor<9223372036854775710xf32>) -> "
                            "tensor<9223372036854775710xf32> {\n  return %a : "
                            "tensor<9223372036854775710xf32>\n}\n"),
               ParseError);
}

}  // namespace
}  // namespace hhlo
