// Gradients of imported programs (issue 9, use 3): JAX-exported losses
// (tests/import/gen_grad_exports.py, generated into the build folder at build time) are parsed,
// differentiated by ad::value_and_grad_module / vjp_module / jvp_module and run on the CPU
// plugin against JAX's jax.value_and_grad / jax.vjp / jax.jvp values (made with the losses at build
// time).
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/autodiff/imported.h"
#include "hhlo/autodiff/vjp_registry.h"
#include "hhlo/core/array.h"
#include "hhlo/ir/inline.h"
#include "hhlo/ir/ops.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/session.h"

namespace hhlo {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

Module exported(const std::string& name) {
  return parse_module_file((fs::path(HHLO_GENERATED_DIR) / ("grad_" + name + ".mlir")).string());
}

/// grad_NAME.KIND0.npy, grad_NAME.KIND1.npy, ... until the first missing index.
std::vector<Array> vectors(const std::string& name, const char* kind) {
  std::vector<Array> out;
  for (int k = 0;; ++k) {
    fs::path p =
        fs::path(HHLO_GENERATED_DIR) / "vectors" / fmt::format("grad_{}.{}{}.npy", name, kind, k);
    if (!fs::exists(p)) return out;
    out.push_back(read_npy(p.string()));
  }
}

/// f32 results of programs that sum in a different order than JAX's: |got - want| within
/// 1e-4 * (1 + max |want|) of each output.
void expect_close(const std::vector<Array>& got, const std::vector<Array>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    ASSERT_EQ(got[k].type(), want[k].type()) << "output " << k;
    double scale = 0;
    for (int64_t i = 0; i < want[k].num_elements(); ++i)
      scale = std::max(scale, std::abs(want[k].element_as_double(i)));
    double tol = 1e-4 * (1 + scale);
    for (int64_t i = 0; i < want[k].num_elements(); ++i) {
      double g = got[k].element_as_double(i), w = want[k].element_as_double(i);
      ASSERT_LE(std::abs(g - w), tol)
          << "output " << k << " element " << i << ": got " << g << ", JAX " << w;
    }
  }
}

std::vector<Array> concat(std::vector<Array> a, const std::vector<Array>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// ---- value_and_grad of exported losses

struct GradCase {
  const char* name;
  std::vector<size_t> params;  // argument indices differentiated (JAX's argnums)
};

class ImportedGrad : public ::testing::TestWithParam<GradCase> {};

TEST_P(ImportedGrad, ValueAndGradMatchesJax) {
  const GradCase& c = GetParam();
  std::vector<Array> in = vectors(c.name, "in"), want = vectors(c.name, "out");
  ASSERT_FALSE(in.empty());
  ASSERT_EQ(want.size(), 1 + c.params.size());
  Module g = ad::value_and_grad_module(exported(c.name), {.wrt = c.params});
  expect_close(run(g, in), want);
}

TEST_P(ImportedGrad, GradientModuleParsesBackAndMatchesJax) {
  // The gradient program is ordinary IR: printed, parsed again (and verified), it runs the same.
  const GradCase& c = GetParam();
  Module g = ad::value_and_grad_module(exported(c.name), {.wrt = c.params});
  Module again = parse_module(to_mlir(g), {.source_name = "grad.mlir"});
  expect_close(run(again, vectors(c.name, "in")), vectors(c.name, "out"));
}

INSTANTIATE_TEST_SUITE_P(Jax, ImportedGrad,
                         ::testing::Values(GradCase{"mlp", {0, 1, 2, 3}},
                                           GradCase{"cnn", {0, 1, 2}}, GradCase{"conv_nchw", {0}},
                                           GradCase{"transformer", {0, 1, 2}},
                                           GradCase{"cumulative", {0}}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(ImportedGrad, PrivateFunctionsAreInlinedAndAttributesKept) {
  Module src = exported("mlp");
  ASSERT_NE(src.find("relu"), nullptr) << "JAX's export calls private functions";
  Module g = ad::value_and_grad_module(src, {.wrt = {0, 2}});
  ASSERT_EQ(g.funcs().size(), 1u);
  const Func& f = *g.funcs()[0];
  EXPECT_EQ(f.name(), "main");
  EXPECT_EQ(g.name(), src.name());
  std::string text = to_mlir(g);
  EXPECT_THAT(text, ::testing::Not(HasSubstr("call @")));
  EXPECT_THAT(text, HasSubstr("mhlo.num_partitions = 1 : i32"));
  FuncSignature sig = signature(f);
  ASSERT_EQ(sig.result_names.size(), 3u);
  EXPECT_EQ(sig.result_names[0], "result");  // JAX's jax.result_info, kept
  EXPECT_EQ(sig.result_names[1], "grad[0]");
  EXPECT_EQ(sig.result_names[2], "grad[2]");
  EXPECT_EQ(sig.result_types[2], entry_function(src).arg_types()[2]);
}

TEST(ImportedGrad, DefaultWrtIsEveryFloatArgument) {
  std::vector<Array> in = vectors("mlp", "in"), want = vectors("mlp", "out");
  Module g = ad::value_and_grad_module(exported("mlp"));
  // All six arguments are f32: the data's gradients follow the parameters'.
  std::vector<Array> got = run(g, in);
  ASSERT_EQ(got.size(), 7u);
  got.resize(5);
  expect_close(got, want);
}

// ---- forward mode and VJPs as functions

TEST(ImportedGrad, JvpModuleMatchesJaxJvp) {
  std::vector<Array> in = vectors("mlp_jvp", "in"), tan = vectors("mlp_jvp", "tan");
  ASSERT_EQ(tan.size(), 4u);
  Module j = ad::jvp_module(exported("mlp_jvp"), {.wrt = {0, 1, 2, 3}});
  expect_close(run(j, concat(in, tan)), vectors("mlp_jvp", "out"));
}

TEST(ImportedGrad, CumulativeJvpMatchesJax) {
  // jnp.cumsum / cumprod / lax.cummax / cummin / cumlogsumexp as JAX exports them: reduce_window
  // with each body, forward and reversed; their JVP is JAX's cumulative rule.
  std::vector<Array> in = vectors("cumulative_jvp", "in"), tan = vectors("cumulative_jvp", "tan");
  ASSERT_EQ(tan.size(), 1u);
  Module j = ad::jvp_module(exported("cumulative_jvp"), {.wrt = {0}});
  expect_close(run(j, concat(in, tan)), vectors("cumulative_jvp", "out"));
}

TEST(ImportedGrad, VjpModuleMatchesJaxVjp) {
  std::vector<Array> in = vectors("mlp_vjp", "in"), ct = vectors("mlp_vjp", "ct");
  ASSERT_EQ(ct.size(), 2u);
  Module v = ad::vjp_module(exported("mlp_vjp"), {.wrt = {0, 1}});
  expect_close(run(v, concat(in, ct)), vectors("mlp_vjp", "out"));
}

// ---- errors

TEST(ImportedGrad, OpWithoutRuleIsNamedWithItsLine) {
  Module src = exported("no_rule");
  try {
    ad::value_and_grad_module(src);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_THAT(m, HasSubstr("stablehlo.reduce_window"));
    EXPECT_THAT(m, HasSubstr("of the parsed text"));
    // The line named is the custom call's line in the exported text.
    size_t at = m.find("at line ");
    ASSERT_NE(at, std::string::npos) << m;
    int line = std::stoi(m.substr(at + 8));
    std::ifstream in(fs::path(HHLO_GENERATED_DIR) / "grad_no_rule.mlir");
    std::string l;
    for (int i = 0; i < line && std::getline(in, l); ++i) {
    }
    EXPECT_THAT(l, HasSubstr("stablehlo.reduce_window")) << m;
  }
}

TEST(ImportedGrad, HouseholderVectorsReadOutsideQrGiveNan) {
  // JAX's QR (geqrf, then orgqr) differentiates as the QR composite (tests/import/
  // lapack_grad_test.cc); geqrf's Householder part read directly has no derivative of ours: the
  // gradient is NaN, never a silently wrong number (JAX has no rule for geqrf at all).
  Module g = ad::value_and_grad_module(exported("householder"));
  std::vector<float> a = {2, 1, 0, 1, 3, 1, 0, 1, 4, 1, 1, 1};
  std::vector<Array> out = run(g, {Array::from<float>({4, 3}, a)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(std::isfinite(out[0].element_as_double(0)));
  for (int64_t i = 0; i < out[1].num_elements(); ++i)
    EXPECT_TRUE(std::isnan(out[1].element_as_double(i))) << "element " << i;
}

TEST(ImportedGrad, BadRequestsAreErrors) {
  Module src = exported("mlp");
  EXPECT_THROW(ad::value_and_grad_module(src, {.wrt = {6}}), Error);
  EXPECT_THROW(ad::value_and_grad_module(src, {.entry = "nope"}), Error);
  EXPECT_THROW(ad::value_and_grad_module(src, {.loss = 1}), Error);
  // A non-scalar result is not a loss.
  Module v = exported("mlp_vjp");
  try {
    ad::value_and_grad_module(v);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("float scalar"));
  }
  // An integer argument has no gradient.
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f32, {3}}, TensorType{DType::i32, {3}}});
  f.ret({ad::reduce_sum(multiply(f.arg(0), convert(f.arg(1), DType::f32)), {0})});
  try {
    ad::value_and_grad_module(m, {.wrt = {1}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("integer"));
  }
}

// ---- inline_call

TEST(InlineCall, ArgumentsAreChecked) {
  Module src = exported("mlp");
  Module m;
  Func& f = m.add_func("main", {TensorType{DType::f32, {3}}});
  EXPECT_THROW(inline_call(f, src, "main", {f.arg(0)}), Error);  // count
  EXPECT_THROW(inline_call(f, src, "relu", {f.arg(0)}), Error);  // type
  EXPECT_THROW(inline_call(f, src, "missing", {f.arg(0)}), Error);
}

TEST(InlineCall, RewriteReplacesOpsAndItsResultsAreChecked) {
  Module src = parse_module(R"(
    func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
      %0 = stablehlo.sine %x : tensor<3xf32>
      %1 = stablehlo.add %0, %x : tensor<3xf32>
      return %1 : tensor<3xf32>
    })");
  auto build = [&](const InlineRewrite& rw) {
    Module m;
    Func& f = m.add_func("main", {TensorType{DType::f32, {3}}});
    f.ret(inline_call(f, src, "main", f.args(), rw));
    return m;
  };
  // sine becomes cosine: cos(x) + x.
  Module m = build([](const Op& op, const std::vector<Value>& in) {
    return op.name() == "stablehlo.sine" ? std::optional(std::vector<Value>{cosine(in[0])})
                                         : std::nullopt;
  });
  std::vector<Array> out = run(m, {Array::from<float>({3}, {0.f, 1.f, 2.f})});
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(out[0].element_as_double(i), std::cos(double(i)) + i, 1e-6);
  try {
    build([](const Op& op, const std::vector<Value>& in) {
      return op.name() == "stablehlo.sine" ? std::optional(std::vector<Value>{in[0], in[0]})
                                           : std::nullopt;
    });
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("the rewrite of 'stablehlo.sine' gave 2 values for 1 results"));
  }
  try {
    build([](const Op& op, const std::vector<Value>& in) {
      return op.name() == "stablehlo.sine"
                 ? std::optional(std::vector<Value>{convert(in[0], DType::f64)})
                 : std::nullopt;
    });
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("gave result 0 type tensor<3xf64>, not tensor<3xf32>"));
  }
}

TEST(InlineCall, RecursionNeverReachesIt) {
  // A call cycle is refused by the parser, verified or not (tests/ir/call_cycle_test.cc), and the
  // builder cannot make one (a callee must have returned before it is called): inline_call's own
  // recursion check is a second line that no module reaches today.
  const char* text = R"(
    func.func @main(%x: tensor<f32>) -> tensor<f32> {
      %0 = func.call @g(%x) : (tensor<f32>) -> tensor<f32>
      return %0 : tensor<f32>
    }
    func.func private @g(%x: tensor<f32>) -> tensor<f32> {
      %0 = func.call @main(%x) : (tensor<f32>) -> tensor<f32>
      return %0 : tensor<f32>
    })";
  for (bool verify : {true, false}) {
    try {
      parse_module(text, {.verify = verify});
      FAIL() << "a call cycle parsed";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("call cycle @main -> @g -> @main"));
    }
  }
  Module m;
  Func& main = m.add_func("main", {TensorType{DType::f32, {}}});
  EXPECT_THROW(call(main, {main.arg(0)}), Error);  // main has not returned yet
}

// Pretty forms without the default-valued window attributes (as the StableHLO printer writes
// them) get the builder's explicit forms, so the rules read them: sum pooling's gradient is
// hand-derived (each input element lies in exactly one 2x2 window: d sum(pool(x)) / dx = 1/4
// when pool averages, here it sums: 1), max pooling's routes 1 to each window's maximum.
TEST(InlineCall, DefaultWindowAttributesBecomeExplicit) {
  Module src = parse_module(R"(
    func.func @main(%x: tensor<1x4x4x1xf32>) -> tensor<f32> {
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %m = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %s = "stablehlo.reduce_window"(%x, %z) <{window_dimensions = array<i64: 1, 2, 2, 1>,
            window_strides = array<i64: 1, 2, 2, 1>}> ({
        ^bb0(%a: tensor<f32>, %b: tensor<f32>):
          %r = stablehlo.add %a, %b : tensor<f32>
          stablehlo.return %r : tensor<f32>
      }) : (tensor<1x4x4x1xf32>, tensor<f32>) -> tensor<1x2x2x1xf32>
      %p = "stablehlo.reduce_window"(%x, %m) <{window_dimensions = array<i64: 1, 2, 2, 1>,
            window_strides = array<i64: 1, 2, 2, 1>}> ({
        ^bb0(%a: tensor<f32>, %b: tensor<f32>):
          %r = stablehlo.maximum %a, %b : tensor<f32>
          stablehlo.return %r : tensor<f32>
      }) : (tensor<1x4x4x1xf32>, tensor<f32>) -> tensor<1x2x2x1xf32>
      %t = stablehlo.add %s, %p : tensor<1x2x2x1xf32>
      %l = stablehlo.reduce(%t init: %z) applies stablehlo.add across dimensions = [0, 1, 2, 3]
             : (tensor<1x2x2x1xf32>, tensor<f32>) -> tensor<f32>
      return %l : tensor<f32>
    })");
  Module g = ad::value_and_grad_module(src);
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[static_cast<size_t>(i)] = static_cast<float>((i * 7) % 16);
  std::vector<Array> out = run(g, {Array::from<float>({1, 4, 4, 1}, x)});
  ASSERT_EQ(out.size(), 2u);
  double total = 0, max_sum = 0;
  for (int wy = 0; wy < 2; ++wy)
    for (int wx = 0; wx < 2; ++wx) {
      float best = -1;
      for (int dy = 0; dy < 2; ++dy)
        for (int dx = 0; dx < 2; ++dx)
          best = std::max(best, x[static_cast<size_t>((2 * wy + dy) * 4 + 2 * wx + dx)]);
      max_sum += best;
    }
  for (float v : x) total += v;
  EXPECT_FLOAT_EQ(out[0].element_as_double(0), total + max_sum);
  for (int i = 0; i < 16; ++i) {
    int y = i / 4, xx = i % 4;
    float best = -1;
    for (int dy = 0; dy < 2; ++dy)
      for (int dx = 0; dx < 2; ++dx)
        best = std::max(best, x[static_cast<size_t>((2 * (y / 2) + dy) * 4 + 2 * (xx / 2) + dx)]);
    double want = 1.0 + (x[static_cast<size_t>(i)] == best ? 1.0 : 0.0);
    EXPECT_EQ(out[1].element_as_double(i), want) << "element " << i;
  }
}

}  // namespace
}  // namespace hhlo
