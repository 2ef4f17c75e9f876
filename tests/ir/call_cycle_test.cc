// StableHLO has no recursion, and `stablehlo.*` names only the dialect's ops (issue 22): a call
// cycle is refused by the parser, verified or not, with the cycle and the closing call's line;
// an op name that is not in StablehloOps.td is refused by the verifier (what `hhlo check` runs).
#include <gtest/gtest.h>

#include <string>

#include "hhlo/core/error.h"
#include "hhlo/ir/parser.h"

namespace hhlo {
namespace {

std::string parse_error(const std::string& text, bool verify) {
  try {
    parse_module(text, {.source_name = "p.mlir", .verify = verify});
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

const char* kSelfCall = R"(module @m {
  func.func public @main(%x: tensor<f32>) -> tensor<f32> {
    %0 = func.call @main(%x) : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
})";

const char* kCycle = R"(module @m {
  func.func public @main(%x: tensor<f32>) -> tensor<f32> {
    %0 = func.call @f(%x) : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func private @f(%x: tensor<f32>) -> tensor<f32> {
    %0 = func.call @g(%x) : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func private @g(%x: tensor<f32>) -> tensor<f32> {
    %0 = stablehlo.negate %x : tensor<f32>
    %1 = func.call @f(%0) : (tensor<f32>) -> tensor<f32>
    return %1 : tensor<f32>
  }
})";

TEST(CallCycle, AFunctionCallingItselfIsRefusedVerifiedOrNot) {
  for (bool verify : {true, false})
    EXPECT_EQ(parse_error(kSelfCall, verify),
              "p.mlir:3:5: func.call: function @main calls itself: StableHLO has no recursion "
              "(a function may not call itself, directly or through others)");
}

TEST(CallCycle, ACycleThroughOtherFunctionsIsNamedInOrder) {
  for (bool verify : {true, false})
    EXPECT_EQ(parse_error(kCycle, verify),
              "p.mlir:12:5: func.call: call cycle @f -> @g -> @f: StableHLO has no recursion "
              "(a function may not call itself, directly or through others)");
}

TEST(CallCycle, ADiamondOfCallsIsNoCycle) {
  // main calls f twice and g, g calls f: shared callees, no cycle.
  const char* text = R"(module @m {
  func.func public @main(%x: tensor<f32>) -> tensor<f32> {
    %0 = func.call @f(%x) : (tensor<f32>) -> tensor<f32>
    %1 = func.call @g(%0) : (tensor<f32>) -> tensor<f32>
    %2 = func.call @f(%1) : (tensor<f32>) -> tensor<f32>
    return %2 : tensor<f32>
  }
  func.func private @f(%x: tensor<f32>) -> tensor<f32> {
    %0 = stablehlo.negate %x : tensor<f32>
    return %0 : tensor<f32>
  }
  func.func private @g(%x: tensor<f32>) -> tensor<f32> {
    %0 = func.call @f(%x) : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
})";
  EXPECT_EQ(parse_error(text, true), "(no error)");
}

TEST(UnknownOp, AStablehloNameOutsideTheDialectIsRefusedByTheVerifier) {
  const char* text = R"(module @m {
  func.func public @main(%x: tensor<f32>) -> tensor<f32> {
    %0 = "stablehlo.frobnicate"(%x) : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
})";
  EXPECT_EQ(parse_error(text, true),
            "p.mlir:3:5: stablehlo.frobnicate: verify: function @main op 'stablehlo.frobnicate': "
            "is not an op of the StableHLO dialect (StablehloOps.td): check its name");
  // Ops of the dialect without a shape rule here, and other dialects' ops, are kept as they are.
  const char* known = R"(module @m {
  func.func public @main(%x: tensor<f32>) -> tensor<f32> {
    %0 = "stablehlo.tan"(%x) : (tensor<f32>) -> tensor<f32>
    %1 = "chlo.erf"(%0) : (tensor<f32>) -> tensor<f32>
    return %1 : tensor<f32>
  }
})";
  EXPECT_EQ(parse_error(known, true), "(no error)");
}

}  // namespace
}  // namespace hhlo
