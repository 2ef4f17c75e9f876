// Malformed input: every case is a ParseError with a line, a column and what was expected —
// never a crash, a hang or another exception type. Also verifier errors on imported text.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "corpus_util.h"
#include "hhlo/ir/parser.h"

namespace hhlo {
namespace {

const char* kGood = R"mlir(module @m {
  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
)mlir";

struct Bad {
  const char* what;
  std::string text;
  uint32_t line, column;
  const char* expected;  // substring of ParseError::expected()
};

TEST(ParserErrors, MalformedInputsGiveLineColumnAndWhatWasExpected) {
  std::string g = kGood;
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string s = g;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  const Bad cases[] = {
      {"empty", "", 1, 1, "at least one func.func"},
      {"garbage", "hello", 1, 1, "'module'"},
      {"undefined value", replace("%arg0, %arg0", "%arg0, %x"), 3, 31, "a value defined before"},
      {"bad type", replace("tensor<2xf32>) -> tensor", "tensor<2xf33>) -> tensor"), 2, 42,
       "an element type"},
      {"missing colon", replace(" : tensor<2xf32>\n    return", " tensor<2xf32>\n    return"), 3,
       37, "':'"},
      {"return type mismatch", replace("return %0 : tensor<2xf32>", "return %0 : tensor<3xf32>"), 4,
       5, "returned types matching the values (value 0 is tensor<2xf32>)"},
      {"unterminated string", "module attributes {a = \"abc", 1, 24, "an attribute value"},
      {"truncated", g.substr(0, 80), 3, 3, "'}'"},
      {"redefinition", replace("%0 = stablehlo.add", "%arg0 = stablehlo.add"), 3, 5,
       "a new SSA name"},
      {"result count", replace("%0 = stablehlo.add", "%0, %1 = stablehlo.add"), 3, 5,
       "1 result name"},
      {"bad dense",
       "func.func @f() -> tensor<2xi8> {\n %0 = stablehlo.constant dense<[1, 300]> : "
       "tensor<2xi8>\n return %0 : tensor<2xi8>\n}",
       2, 36, "in range of i8"},
      {"dense shape",
       "func.func @f() -> tensor<2xi8> {\n %0 = stablehlo.constant dense<[1, 2, 3]> : "
       "tensor<2xi8>\n return %0 : tensor<2xi8>\n}",
       2, 26, "shape [2]"},
      {"hex size",
       "func.func @f() -> tensor<2xf32> {\n %0 = stablehlo.constant dense<\"0x0000\"> : "
       "tensor<2xf32>\n return %0 : tensor<2xf32>\n}",
       2, 26, "bytes of hex data"},
      {"unknown loc alias",
       replace("tensor<2xf32>\n    return", "tensor<2xf32> loc(#nope)\n    return"), 3, 57,
       "a defined location alias"},
      {"self alias",
       "#a = loc(#a)\n" + replace("tensor<2xf32>\n    return", "tensor<2xf32> loc(#a)\n    return"),
       1, 10, "does not refer to itself"},
      {"deep nesting", "module attributes {a = " + std::string(5000, '['), 1, 0, "nesting at most"},
      {"deep regions",
       "func.func @f() -> () {\n" +
           [] {
             std::string s;
             for (int i = 0; i < 300; ++i) s += "\"x.y\"() ({\n";
             return s;
           }(),
       0, 0, "nesting at most"},
      {"huge splat",
       "func.func @f() -> tensor<100000000000xf32> {\n %0 = stablehlo.constant dense<1.0> : "
       "tensor<100000000000xf32>\n return %0 : tensor<100000000000xf32>\n}",
       2, 0, "at most 2 GiB"},
      {"dims overflow",
       "func.func @f(%a: tensor<4294967296x4294967296x4294967296xf32>) -> () {\n return\n}", 1, 0,
       "a smaller tensor"},
  };
  for (const Bad& c : cases) {
    SCOPED_TRACE(c.what);
    try {
      parse_module(c.text);
      ADD_FAILURE() << "no error";
    } catch (const ParseError& e) {
      EXPECT_NE(e.expected().find(c.expected), std::string::npos) << e.what();
      if (c.line) {
        EXPECT_EQ(e.line(), c.line) << e.what();
      }
      if (c.column) {
        EXPECT_EQ(e.column(), c.column) << e.what();
      }
      EXPECT_NE(std::string(e.what()).find("<input>:"), std::string::npos);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not a ParseError: " << e.what();
    }
  }
}

TEST(ParserErrors, EveryPrefixOfAValidFileIsAnErrorNotACrash) {
  std::string g = kGood;
  for (size_t n = 0; n + 1 < g.size(); ++n) {
    try {
      parse_module(g.substr(0, n));
      // a prefix may be complete only once the module's '}' is there
      EXPECT_GE(n, g.rfind('}'));
    } catch (const ParseError&) {
    }
  }
}

TEST(ParserErrors, EveryByteFlipIsHandled) {
  std::string g = kGood;
  for (size_t i = 0; i < g.size(); ++i) {
    for (char c : {'\0', '"', '%', '<', '}', '#', 'x', '9'}) {
      std::string s = g;
      s[i] = c;
      try {
        parse_module(s);
      } catch (const Error&) {
      }
    }
  }
}

TEST(ParserErrors, VerifierDisagreementNamesOpLineAndConstraint) {
  // The file claims add's result is tensor<3xf32>: our rule infers tensor<2xf32>.
  std::string text = R"mlir(func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.negate %a : tensor<2xf32>
  %1 = "stablehlo.transpose"(%0) {permutation = array<i64: 1>} : (tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}
)mlir";
  try {
    parse_module(text, {.source_name = "prog.mlir"});
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.op(), "transpose");
    EXPECT_FALSE(e.constraint().empty());
    EXPECT_NE(std::string(e.what()).find("prog.mlir:3:3: stablehlo.transpose"), std::string::npos)
        << e.what();
  }
  // The same file is accepted without verification.
  EXPECT_NO_THROW(parse_module(text, {.verify = false}));
  std::string wrong = R"mlir(func.func @main(%a: tensor<2xf32>) -> tensor<3xf32> {
  %0 = "stablehlo.negate"(%a) : (tensor<2xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
)mlir";
  try {
    parse_module(wrong);
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.op(), "negate");
    EXPECT_NE(std::string(e.what()).find("<input>:2:3"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hhlo

namespace hhlo {
namespace {

// Deterministic mutation fuzzing over corpus files: truncations, byte replacements, deleted and
// duplicated spans. Every outcome is a module or an hhlo::Error, never a crash or a hang.
TEST(ParserErrors, MutatedCorpusFilesNeverCrash) {
  HHLO_SKIP_WITHOUT_CORPUS();
  std::filesystem::path dir(test::kConformanceDir);
  std::vector<std::string> texts;
  for (const char* name :
       {"abs_float64_20_20.mlir", "cumsum_int32_8_9.mlir", "lgamma_float16_20_20_chlo.mlir",
        "reduce_window_add_float32_4_6.mlir", "scatter_add_bfloat16_2_3_bfloat16_2_1_3.mlir"}) {
    std::ifstream in(dir / name);
    if (!in) continue;
    std::stringstream ss;
    ss << in.rdbuf();
    texts.push_back(ss.str());
  }
  ASSERT_FALSE(texts.empty());
  uint64_t state = 12345;
  auto rnd = [&](uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return n ? (state >> 33) % n : 0;
  };
  const char alphabet[] = "()[]{}<>,:=%#@^!\"x0-9.aZ \n";
  size_t parsed = 0, errors = 0;
  for (int iter = 0; iter < 1500; ++iter) {
    std::string s = texts[rnd(texts.size())];
    switch (rnd(4)) {
      case 0:
        s.resize(rnd(s.size()));
        break;
      case 1:
        for (int k = 0; k < 3; ++k) s[rnd(s.size())] = alphabet[rnd(sizeof alphabet - 1)];
        break;
      case 2: {
        size_t a = rnd(s.size());
        s.erase(a, rnd(40));
        break;
      }
      default: {
        size_t a = rnd(s.size());
        s.insert(a, s.substr(a, rnd(60)));
      }
    }
    try {
      parse_module(s);
      ++parsed;
    } catch (const Error&) {
      ++errors;
    }
  }
  EXPECT_EQ(parsed + errors, 1500u);
  EXPECT_GT(errors, 500u);
}

}  // namespace
}  // namespace hhlo
