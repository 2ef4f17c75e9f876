// The module verifier: accepts what builders make, rejects hand-assembled mistakes.
#include "hhlo/ir/verifier.h"

#include <gtest/gtest.h>

#include "hhlo/ir/ops.h"
#include "shape_error_util.h"

namespace hhlo {
namespace {

TensorType f32(Dims d) { return {DType::f32, std::move(d)}; }

TEST(Verifier, AcceptsGoodModule) {
  Module m;
  Func& f = m.add_func("main", {f32({2, 3}), {DType::pred, {}}});
  Value s = reduce(f.arg(0), constant(f, 0.0f, DType::f32), {1},
                   [](Value a, Value b) { return add(a, b); });
  auto i = if_(
      f.arg(1), [&] { return std::vector<Value>{s}; },
      [&] { return std::vector<Value>{negate(s)}; });
  auto srt = sort({f.arg(0)}, 1, [](const std::vector<Value>& a) {
    return std::vector<Value>{compare(a[0], a[1], ComparisonDirection::LT)};
  });
  f.ret({i[0], srt[0], dot_general(f.arg(0), f.arg(0), {{}, {}, {1}, {1}})});
  EXPECT_NO_THROW(verify(m));
}

TEST(Verifier, RejectsWrongRecordedResultType) {
  Module m;
  Func& f = m.add_func("main", {f32({2})});
  Value bad = f.append({"stablehlo.add", {f.arg(0), f.arg(0)}, {f32({3})}, {}, {}, {}})[0];
  f.ret({bad});
  // add (C1): type(lhs) = type(rhs) = type(result).
  EXPECT_SHAPE_ERROR("add", "C1", verify(m));
}

TEST(Verifier, NamesTheConstraintOfAWrongElementwiseResultType) {
  // Issue 8 §7: abs of complex<f32> recorded with a complex result violates abs C2 (the result
  // element type of abs of a complex operand is its part type, f32); a wrong shape is C1.
  TensorType c64{DType::c64, {3}};
  {
    Module m;
    Func& f = m.add_func("main", {c64});
    f.ret({f.append({"stablehlo.abs", {f.arg(0)}, {c64}, {}, {}, {}})[0]});
    EXPECT_SHAPE_ERROR("abs", "C2", verify(m));
  }
  {
    Module m;
    Func& f = m.add_func("main", {c64});
    f.ret({f.append({"stablehlo.abs", {f.arg(0)}, {f32({4})}, {}, {}, {}})[0]});
    EXPECT_SHAPE_ERROR("abs", "C1", verify(m));
  }
  {
    Module m;  // the right type verifies
    Func& f = m.add_func("main", {c64});
    f.ret({f.append({"stablehlo.abs", {f.arg(0)}, {f32({3})}, {}, {}, {}})[0]});
    EXPECT_NO_THROW(verify(m));
  }
  {
    Module m;  // complex (C3): complex<E> of the operands' element type
    Func& f = m.add_func("main", {f32({3}), f32({3})});
    f.ret({f.append(
        {"stablehlo.complex", {f.arg(0), f.arg(1)}, {{DType::c128, {3}}}, {}, {}, {}})[0]});
    EXPECT_SHAPE_ERROR("complex", "C3", verify(m));
  }
  {
    Module m;  // real (C2)
    Func& f = m.add_func("main", {c64});
    f.ret({f.append({"stablehlo.real", {f.arg(0)}, {c64}, {}, {}, {}})[0]});
    EXPECT_SHAPE_ERROR("real", "C2", verify(m));
  }
}

TEST(Verifier, RunsShapeRulesOnRecordedAttributes) {
  Module m;
  Func& f = m.add_func("main", {f32({2, 3})});
  Value t = f.append({"stablehlo.transpose",
                      {f.arg(0)},
                      {f32({3, 2})},
                      {{"permutation", i64_array({0, 0})}},
                      {},
                      {}})[0];
  f.ret({t});
  EXPECT_SHAPE_ERROR("transpose", "C2", verify(m));
}

TEST(Verifier, RejectsMissingAttributeUnknownOpAndBadCall) {
  {
    Module m;
    Func& f = m.add_func("main", {f32({2, 3})});
    f.ret({f.append({"stablehlo.transpose", {f.arg(0)}, {f32({3, 2})}, {}, {}, {}})[0]});
    EXPECT_THROW(verify(m), Error);
  }
  {
    Module m;
    Func& f = m.add_func("main", {f32({2})});
    f.ret({f.append({"stablehlo.frobnicate", {f.arg(0)}, {f32({2})}, {}, {}, {}})[0]});
    EXPECT_THROW(verify(m), Error);
  }
  {
    Module m;
    Func& f = m.add_func("main", {f32({2})});
    f.ret({f.append(
        {"func.call", {f.arg(0)}, {f32({2})}, {{"callee", SymbolRefAttr{"nowhere"}}}, {}, {}})[0]});
    EXPECT_THROW(verify(m), Error);
  }
  {
    Module m;
    m.add_func("main", {f32({2})});
    EXPECT_THROW(verify(m), Error);  // no func.return
  }
}

}  // namespace
}  // namespace hhlo
