// Composite models built with hhlo::nn and differentiated with hhlo::ad, checked against the
// loss and gradients JAX computed once (tests/nn/gen_jax_vectors.py -> data/jax_vectors.txt).
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "hhlo/autodiff/autodiff.h"
#include "hhlo/nn/layers.h"
#include "hhlo/session.h"
#include "vectors_util.h"

namespace hhlo {
namespace {

const test::Vectors& vectors() { return test::jax_vectors("jax_vectors.txt"); }

using CaseFn = std::function<Value(const ad::Params& p, const std::map<std::string, Value>& in)>;

// Builds loss(params, inputs) and its gradient, runs them and compares with JAX.
void check_case(const std::string& c, const CaseFn& fn, double tol = 2e-4) {
  std::vector<std::string> pnames, inames;
  std::vector<TensorType> types;
  std::vector<Array> args;
  for (const auto& [k, v] : vectors()) {
    if (k.rfind(c + "/param/", 0) == 0) {
      pnames.push_back(k.substr(c.size() + 7));
      types.push_back(v.type());
      args.push_back(v);
    }
  }
  for (const auto& [k, v] : vectors()) {
    if (k.rfind(c + "/input/", 0) == 0) {
      inames.push_back(k.substr(c.size() + 7));
      types.push_back(v.type());
      args.push_back(v);
    }
  }
  ASSERT_FALSE(pnames.empty()) << "no vectors for case " << c;
  Module m;
  Func& f = m.add_func("main", types);
  ad::Params p;
  std::map<std::string, Value> in;
  size_t i = 0;
  for (const auto& n : pnames) p.set(n, f.arg(i++));
  for (const auto& n : inames) in[n] = f.arg(i++);
  Value loss = fn(p, in);
  ad::Params g = ad::grad(loss, p);
  std::vector<Value> outs = {loss};
  for (const auto& n : pnames) outs.push_back(g.at(n));
  f.ret(outs);
  std::vector<Array> got = run(m, args);
  auto compare = [&](const Array& a, const Array& want, const std::string& what) {
    test::expect_close(a, want, tol, what);
  };
  compare(got[0], vectors().at(c + "/loss"), c + " loss");
  for (size_t k = 0; k < pnames.size(); ++k)
    compare(got[k + 1], vectors().at(c + "/grad/" + pnames[k]), c + " grad " + pnames[k]);
}

Tensor sum_all(Tensor x) { return np::sum(x); }

TEST(JaxCrossCheck, Mlp) {
  check_case("mlp", [](const ad::Params& p, const std::map<std::string, Value>& in) {
    Tensor h = nn::relu(nn::dense(in.at("x"), p, "dense1"));
    return Value(nn::softmax_cross_entropy(nn::dense(h, p, "dense2"), in.at("y")));
  });
}

TEST(JaxCrossCheck, Cnn) {
  check_case("cnn", [](const ad::Params& p, const std::map<std::string, Value>& in) {
    Tensor h = nn::conv2d(in.at("x"), p.at("conv/w"), Tensor(p.at("conv/b")),
                          {.padding = nn::Padding::same()});
    h = nn::max_pool(nn::relu(h));
    h = reshape(h, {h.dim(0), h.dim(1) * h.dim(2) * h.dim(3)});
    return Value(nn::softmax_cross_entropy(nn::dense(h, p, "dense"), in.at("y")));
  });
}

TEST(JaxCrossCheck, GroupedStridedDilatedNchwConvAndSameAvgPool) {
  check_case("conv_groups", [](const ad::Params& p, const std::map<std::string, Value>& in) {
    nn::Conv2dOptions o{.layout = nn::Layout::NCHW,
                        .stride = {2, 1},
                        .padding = nn::Padding::explicit_pads({{1, 2}, {0, 1}}),
                        .dilation = {1, 2},
                        .groups = 2};
    Tensor h = nn::conv2d(in.at("x"), p.at("w"), std::nullopt, o);
    h = nn::avg_pool(h, {.layout = nn::Layout::NCHW, .padding = nn::Padding::same()});
    return Value(sum_all(np::multiply(Tensor(sine(h)), in.at("w_out"))));
  });
}

TEST(JaxCrossCheck, LayerNormAttentionGeluBlock) {
  check_case("block", [](const ad::Params& p, const std::map<std::string, Value>& in) {
    Tensor x = in.at("x");
    Tensor h = nn::layer_norm(x, p.at("ln/gamma"), p.at("ln/beta"));
    Tensor y = x + nn::gelu(nn::multi_head_attention(h, h, p, "attn", 2));
    return Value(sum_all(y * Tensor(in.at("w_out"))));
  });
}

TEST(JaxCrossCheck, BatchNormSiluEmbedding) {
  check_case("bn_emb", [](const ad::Params& p, const std::map<std::string, Value>& in) {
    Tensor x = in.at("x");
    Func& f = x.func();
    Tensor zeros = np::full(f, {3}, 0.0, DType::f32), ones = np::full(f, {3}, 1.0, DType::f32);
    nn::BatchNormResult bn =
        nn::batch_norm_train(x, p.at("bn/gamma"), p.at("bn/beta"), zeros, ones, 3);
    Tensor e = nn::embedding(p.at("emb"), in.at("ids"));
    return Value(sum_all(nn::silu(bn.y) * Tensor(in.at("w_out"))) + sum_all(np::tanh(e)));
  });
}

}  // namespace
}  // namespace hhlo
