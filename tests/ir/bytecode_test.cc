// The MLIR bytecode reader (hhlo/ir/bytecode.h): print(read_bytecode(b)) == print(parse_module(t))
// for the two forms of JAX's exports and of the shared corpus (both made at build time by
// tests/ir/gen_bytecode_pairs.py), and malformed bytecode as ParseError naming section and offset.
#include "hhlo/ir/bytecode.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "corpus_util.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Corpus files that printed equal when this test was written (a floor against regressions).
constexpr int kCorpusFloor = 1152;

const fs::path kDir = fs::path(HHLO_GENERATED_DIR) / "bytecode";

/// "" when both forms print the same (with their locations when `locations`), else what differs
/// (or the error).
std::string compare(const fs::path& bc, const std::string& text, const std::string& name,
                    bool locations) {
  std::string b = slurp(bc);
  PrintOptions po{.locations = locations};
  try {
    std::string from_bc = to_mlir(read_bytecode(b, {.source_name = name + ".mlirbc"}), po);
    std::string from_text = to_mlir(parse_module(text, {.source_name = name + ".mlir"}), po);
    if (from_bc == from_text) return "";
    size_t k = 0;
    while (k < from_bc.size() && k < from_text.size() && from_bc[k] == from_text[k]) ++k;
    size_t start = k > 80 ? k - 80 : 0;
    return "differs: bytecode '" + from_bc.substr(start, 200) + "' vs text '" +
           from_text.substr(start, 200) + "'";
  } catch (const std::exception& e) {
    return e.what();
  }
}

std::vector<fs::path> files(const fs::path& dir, const std::string& ext) {
  std::vector<fs::path> out;
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ext) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Programs whose bytecode holds what is not read yet: the error must say so.
const std::map<std::string, std::string> kNotReadYet = {};

// JAX's text carries locations (name, call-site and file ranges, through #loc aliases), and so
// does its bytecode: the two forms are compared with them.
TEST(Bytecode, JaxExportsPrintAsTheirTextWithLocations) {
  std::vector<fs::path> bcs = files(kDir / "jax", ".mlirbc");
  ASSERT_GE(bcs.size(), 40u) << "gen_bytecode_pairs.py wrote no programs into " << kDir;
  int equal = 0;
  for (const fs::path& bc : bcs) {
    std::string stem = bc.stem().string();  // NAME or NAME@VERSION (an older target)
    std::string name = stem.substr(0, stem.find('@'));
    std::string why = compare(bc, slurp(bc.parent_path() / (name + ".mlir")), stem, true);
    if (auto it = kNotReadYet.find(name); it != kNotReadYet.end())
      EXPECT_NE(why.find(it->second), std::string::npos) << stem << ": " << why;
    else
      EXPECT_EQ(why, "") << stem;
    equal += why.empty();
  }
  std::cout << "[bytecode] " << equal << " of " << bcs.size() << " JAX exports print equal\n";
}

// Issue 41: what other producers print, serialized by jaxlib (gen_bytecode_pairs.py, DIR/text):
// XLA's layout hint `result_layout = dense<[0, 1]> : tensor<2xindex>` on a transpose (every
// torch_xla .mlirbc has it; it stopped them as "index tensors not read yet"), index tensors in
// every printed form (nested, splat, empty, negative, scalar, MLIR's hex string past 100
// elements) and stablehlo.dot (vhlo.dot_v1 with its precision_config, at the current target and
// at 0.9.0), read as the text parser reads them.
TEST(Bytecode, IndexTensorsAndDotOfOtherProducersPrintAsTheirText) {
  std::vector<fs::path> bcs = files(kDir / "text", ".mlirbc");
  ASSERT_GE(bcs.size(), 4u) << "gen_bytecode_pairs.py wrote no texts into " << kDir / "text";
  for (const fs::path& bc : bcs) {
    std::string stem = bc.stem().string();  // NAME or NAME@VERSION
    std::string name = stem.substr(0, stem.find('@'));
    std::string text = slurp(bc.parent_path() / (name + ".mlir"));
    EXPECT_EQ(compare(bc, text, stem, false), "") << stem;
  }
  std::string text = slurp(kDir / "text" / "layout_hint.mlir");
  ASSERT_NE(text.find("result_layout = dense<[0, 1]> : tensor<2xindex>"), std::string::npos);
  std::string printed = to_mlir(read_bytecode(slurp(kDir / "text" / "layout_hint.mlirbc")));
  EXPECT_NE(printed.find("result_layout = dense<[0, 1]> : tensor<2xindex>"), std::string::npos)
      << printed;
}

TEST(Bytecode, CorpusPrintsAsItsText) {
  HHLO_SKIP_WITHOUT_CORPUS();
  std::vector<fs::path> bcs = files(kDir / "corpus", ".mlirbc");
  if (bcs.empty()) GTEST_SKIP() << "gen_bytecode_pairs.py serialized no corpus file into " << kDir;
  fs::path corpus(test::kConformanceDir);
  int equal = 0;
  std::map<std::string, int> why_count;
  std::map<std::string, std::string> example;
  for (const fs::path& bc : bcs) {
    std::string name = bc.stem().string();
    // The corpus texts have no locations; jaxlib's parser gave the bytecode `"-":line:col` ones.
    std::string why = compare(bc, slurp(corpus / (name + ".mlir")), name, false);
    if (why.empty()) {
      ++equal;
      continue;
    }
    std::string key =
        why.substr(why.find(": expected") == std::string::npos ? 0 : why.find(": expected"), 120);
    if (!why_count[key]++) example[key] = name;
  }
  std::cout << "[bytecode] " << equal << " of " << bcs.size() << " corpus files print equal\n";
  for (const auto& [k, n] : why_count)
    std::cout << "  " << n << "x " << k << " (e.g. " << example[k] << ")\n";
  EXPECT_GE(equal, kCorpusFloor) << "fewer corpus files read than before";
}

// ---------------------------------------------------------------- malformed bytecode

std::string sample() { return slurp(kDir / "jax" / "add_tanh.mlirbc"); }

TEST(Bytecode, IsBytecodeChecksTheMagic) {
  std::string b = sample();
  ASSERT_FALSE(b.empty());
  auto span = [](const std::string& s) {
    return std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
  };
  EXPECT_TRUE(is_bytecode(span(b)));
  EXPECT_FALSE(is_bytecode(span("module {}")));
  EXPECT_FALSE(is_bytecode(span("ML")));
}

TEST(Bytecode, WrongMagicIsAParseErrorAtByteZero) {
  std::string b = sample();
  b[1] = 'X';
  try {
    read_bytecode(b, {.source_name = "x.mlirbc"});
    FAIL() << "no error";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line(), 0u);
    EXPECT_EQ(e.column(), 0u);
    EXPECT_NE(std::string(e.what()).find("magic number"), std::string::npos) << e.what();
    EXPECT_NE(e.source().find("x.mlirbc"), std::string::npos);
  }
}

TEST(Bytecode, EveryTruncationIsAParseErrorNamingSectionAndOffset) {
  std::string b = sample();
  ASSERT_GT(b.size(), 100u);
  for (size_t n = 0; n < b.size(); ++n) {
    try {
      read_bytecode(std::string_view(b).substr(0, n));
      ADD_FAILURE() << "truncated to " << n << " bytes: no error";
    } catch (const ParseError& e) {
      EXPECT_NE(e.source().find("section"), std::string::npos) << e.what();
      EXPECT_LE(e.column(), n) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "truncated to " << n << " bytes: not a ParseError: " << e.what();
    }
  }
}

TEST(Bytecode, EveryFlippedByteIsReadOrAnError) {
  std::string b = sample();
  for (size_t i = 0; i < b.size(); ++i)
    for (unsigned char x : {0x01, 0x80, 0xFF}) {
      std::string c = b;
      c[i] = static_cast<char>(c[i] ^ x);
      try {
        read_bytecode(c);  // a flip may still be valid bytecode (a different constant, name, ...)
      } catch (const Error&) {  // ParseError, or the verifier's ShapeError / Error
      } catch (const std::exception& e) {
        ADD_FAILURE() << "byte " << i << " ^ " << int(x) << ": not an hhlo::Error: " << e.what();
      }
    }
}

TEST(Bytecode, UnknownVhloOpIsNamed) {
  std::string b = sample();
  size_t at = b.find("tanh_v2");
  ASSERT_NE(at, std::string::npos);
  b[at + 2] = 'x';  // vhlo.taxh_v2: no such op
  try {
    read_bytecode(b, {.source_name = "x.mlirbc"});
    FAIL() << "no error";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("op vhlo.taxh_v2 not read yet"), std::string::npos)
        << e.what();
    EXPECT_NE(e.source().find("IR section"), std::string::npos) << e.source();
    EXPECT_GT(e.column(), 0u);
  }
}

/// The error of reading `sample()` with its op name `from` patched to `to` (same length).
std::string patched_error(const std::string& from, const std::string& to) {
  std::string b = sample();
  size_t at = b.find(from);
  if (at == std::string::npos) return "(no " + from + " in the sample)";
  b.replace(at, from.size(), to);
  try {
    read_bytecode(b, {.source_name = "x.mlirbc"});
  } catch (const ParseError& e) {
    return e.what();
  }
  return "(no error)";
}

// Issue 44: vhlo.add_v9 (a future version of add) was read as today's stablehlo.add. An op of a
// version this reader does not know is refused naming both versions, with attributes (tanh,
// whose properties are read by the op's table) or without (add).
TEST(Bytecode, AFutureVersionOfAnOpIsRefusedNamingBothVersions) {
  std::string e = patched_error("add_v1", "add_v9");
  EXPECT_NE(e.find("expected vhlo.add_v1 or an older version of add this reader knows, found "
                   "vhlo.add_v9: version 9 of add, newer than the newest this reader knows "
                   "(version 1, vhlo.add_v1)"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("(bytecode IR section)"), std::string::npos) << e;
  e = patched_error("tanh_v2", "tanh_v9");
  EXPECT_NE(e.find("found vhlo.tanh_v9: version 9 of tanh, newer than the newest this reader "
                   "knows (version 2, vhlo.tanh_v2)"),
            std::string::npos)
      << e;
  e = patched_error("add_v1", "add_v0");
  EXPECT_NE(e.find("found vhlo.add_v0: version 0 of add, not a version this reader knows: the "
                   "newest is (version 1, vhlo.add_v1)"),
            std::string::npos)
      << e;
  // The versions known read as before.
  EXPECT_EQ(patched_error("add_v1", "add_v1"), "(no error)");
}

/// The first error of reading `sample()` with one byte set to `v` that contains `want` (each
/// position tried in turn), or "" when none does.
std::string error_with_byte(unsigned char v, const std::string& want) {
  std::string b = sample();
  for (size_t i = 0; i < b.size(); ++i) {
    std::string c = b;
    c[i] = static_cast<char>(v);
    try {
      read_bytecode(c);
    } catch (const Error& e) {  // a ParseError, or the verifier's error on a changed op
      if (std::string(e.what()).find(want) != std::string::npos) return e.what();
    }
  }
  return "";
}

// A VHLO attribute or type code beyond the newest this reader knows (VhloBytecode.cpp's codes of
// StableHLO 1.25: attributes up to 25, types up to 42) is a later attribute or type, named so.
// A byte of value (code << 1) | 1 is the one-byte varint of `code`, set where an entry starts.
TEST(Bytecode, AnAttributeOrTypeCodeNewerThanTheNewestKnownIsNamedSo) {
  std::string e = error_with_byte((26 << 1) | 1, "found attribute code 26,");
  EXPECT_NE(e.find("found attribute code 26, newer than the newest this reader knows (25, "
                   "vhlo.mesh_v1): written by a newer StableHLO"),
            std::string::npos)
      << e;
  e = error_with_byte((43 << 1) | 1, "found type code 43,");
  EXPECT_NE(e.find("found type code 43, newer than the newest this reader knows (42, "
                   "vhlo.future_v1): written by a newer StableHLO"),
            std::string::npos)
      << e;
}

// MLIR bytecode of StableHLO itself (not a portable artifact) reads into the same Module too
// (issue 41; tests/ir/bytecode_plain_test.cc covers that form).
TEST(Bytecode, PlainStablehloBytecodeIsRead) {
  std::string b = slurp(kDir / "plain_stablehlo.mlirbc");
  ASSERT_TRUE(is_mlir_bytecode(b));
  std::string printed = to_mlir(read_bytecode(b, {.source_name = "p.mlirbc"}));
  EXPECT_NE(printed.find("\"stablehlo.tanh\"(%arg0) : (tensor<3xf32>) -> tensor<3xf32>"),
            std::string::npos)
      << printed;
}

// Found by the bytecode fuzz target: a name the printer would write bare and the parser could not
// read back is refused where it is read.
TEST(Bytecode, AttributeNameThatIsNoIdentifierIsAParseError) {
  std::string b = sample();
  size_t at = b.find("mhlo.num_replicas");
  ASSERT_NE(at, std::string::npos);
  b[at + 6] = ':';
  try {
    read_bytecode(b);
    FAIL() << "no error";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("'mhlo.n:m_replicas'"), std::string::npos) << e.what();
  }
}

TEST(Bytecode, UnknownBytecodeVersionIsNamed) {
  std::string b = sample();
  b[4] = static_cast<char>((9 << 1) | 1);  // version 9
  try {
    read_bytecode(b);
    FAIL() << "no error";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("version 9"), std::string::npos) << e.what();
    EXPECT_EQ(e.column(), 4u);
  }
}

}  // namespace
}  // namespace hhlo
