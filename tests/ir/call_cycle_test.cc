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

// Issue 44: a function naming itself in a custom call's called_computations crashed the plugin's
// compile (SIGSEGV) and `hhlo check` said ok. Every reference to a function is an edge.
TEST(CallCycle, ACycleClosedByCalledComputationsIsRefused) {
  const char* self = R"(module @m {
  func.func public @main(%x: tensor<f32>) -> tensor<f32> {
    %0 = stablehlo.custom_call @t(%x) {called_computations = [@main]} : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
})";
  for (bool verify : {true, false})
    EXPECT_EQ(parse_error(self, verify),
              "p.mlir:3:5: stablehlo.custom_call: function @main calls itself through "
              "'called_computations': StableHLO has no recursion (a function may not call "
              "itself, directly or through others)");
  // main -> f by func.call, f -> main by called_computations (the second of two).
  const char* through = R"(module @m {
  func.func public @main(%x: tensor<f32>) -> tensor<f32> {
    %0 = func.call @f(%x) : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func private @g(%x: tensor<f32>) -> tensor<f32> {
    return %x : tensor<f32>
  }
  func.func private @f(%x: tensor<f32>) -> tensor<f32> {
    %0 = stablehlo.custom_call @t(%x) {called_computations = [@g, @main]} : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
})";
  for (bool verify : {true, false})
    EXPECT_EQ(parse_error(through, verify),
              "p.mlir:10:5: stablehlo.custom_call: call cycle @main -> @f -> @main through "
              "'called_computations': StableHLO has no recursion (a function may not call "
              "itself, directly or through others)");
}

TEST(CallCycle, AReferenceInADictionaryOrInAnAttributeKeptAsTextIsAnEdgeToo) {
  const char* dict = R"(module @m {
  func.func public @main(%x: tensor<f32>) -> tensor<f32> {
    %0 = stablehlo.custom_call @t(%x) {api_version = 4 : i32, backend_config = {body = @main}} : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
})";
  EXPECT_EQ(parse_error(dict, false),
            "p.mlir:3:5: stablehlo.custom_call: function @main calls itself through "
            "'backend_config': StableHLO has no recursion (a function may not call itself, "
            "directly or through others)");
  const char* opaque = R"(module @m {
  func.func public @main(%x: tensor<f32>) -> tensor<f32> {
    %0 = stablehlo.custom_call @t(%x) {mhlo.body = #foo.bar<@"main">} : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
})";
  EXPECT_EQ(parse_error(opaque, false),
            "p.mlir:3:5: stablehlo.custom_call: function @main calls itself through "
            "'mhlo.body': StableHLO has no recursion (a function may not call itself, directly "
            "or through others)");
}

TEST(CallCycle, ReferencesWithoutACycleAreKept) {
  // called_computations naming another function, a string that reads like a reference, a
  // nested reference's inner part and a function of another name: no cycle.
  const char* text = R"(module @m {
  func.func public @main(%x: tensor<f32>) -> tensor<f32> {
    %0 = stablehlo.custom_call @t(%x) {called_computations = [@f], mhlo.note = "@main", mhlo.ref = #foo.bar<@f::@main>} : (tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func private @f(%x: tensor<f32>) -> tensor<f32> {
    return %x : tensor<f32>
  }
})";
  EXPECT_EQ(parse_error(text, false), "(no error)");
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
