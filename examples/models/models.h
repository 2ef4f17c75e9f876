// Example models built with hhlo::nn (issue 5, item 5): an MLP, a stack of ResNet blocks, a
// transformer encoder layer and a small UNet with transposed convolutions. Each is a loss over
// named parameters; tests/nn/examples_test.cc runs the forward pass and one SGD training step of
// each and compares with the same models in JAX (tests/nn/gen_example_vectors.py).
// Header-only so that tests and programs can include it directly.
#pragma once

#include <map>
#include <string>

#include "hhlo/nn/layers.h"

namespace hhlo::examples {

/// Inputs of a model by name ("x", "y", "target", "w_out").
using Inputs = std::map<std::string, Value>;

/// MLP x [B, 6] -> 8 (ReLU) -> 3 logits; mean softmax cross-entropy against y [B] (i32).
inline Value mlp_loss(const ad::Params& p, const Inputs& in) {
  Tensor h = nn::relu(nn::dense(in.at("x"), p, "fc1"));
  return nn::softmax_cross_entropy(nn::dense(h, p, "fc2"), in.at("y"));
}

/// Two ResNet basic blocks on x [B, H, W, C] (NHWC): h = relu(h + conv(relu(conv(h)))) with 3x3
/// SAME convolutions, then global average pooling and a dense head; cross-entropy against y.
inline Value resnet_loss(const ad::Params& p, const Inputs& in) {
  Tensor h = in.at("x");
  nn::Conv2dOptions same{.padding = nn::Padding::same()};
  for (const char* blk : {"block1", "block2"}) {
    std::string b = blk;
    Tensor t = nn::relu(nn::conv2d(h, p.at(b + "/conv1/w"), Tensor(p.at(b + "/conv1/b")), same));
    t = nn::conv2d(t, p.at(b + "/conv2/w"), Tensor(p.at(b + "/conv2/b")), same);
    h = nn::relu(h + t);
  }
  Tensor pooled = np::mean(h, {1, 2});
  return nn::softmax_cross_entropy(nn::dense(pooled, p, "head"), in.at("y"));
}

/// Pre-norm transformer encoder layer on x [B, T, D]: h = x + MHA(LN1(x)) (2 heads);
/// out = h + W2 GELU(W1 LN2(h)); loss = sum(out * w_out).
inline Value transformer_loss(const ad::Params& p, const Inputs& in) {
  Tensor x = in.at("x");
  Tensor a = nn::layer_norm(x, p.at("ln1/gamma"), p.at("ln1/beta"));
  Tensor h = x + nn::multi_head_attention(a, a, p, "attn", 2);
  Tensor m = nn::layer_norm(h, p.at("ln2/gamma"), p.at("ln2/beta"));
  Tensor out = h + nn::dense(nn::gelu(nn::dense(m, p, "mlp1")), p, "mlp2");
  return np::sum(out * Tensor(in.at("w_out")));
}

/// UNet on x [B, 8, 8, 2] (NHWC): enc conv 2->4 (ReLU), max-pool 2, conv 4->8 (ReLU),
/// transposed conv 8->4 (stride 2, SAME), concatenated with the skip (8 channels), conv 8->2;
/// loss = mean squared error against target [B, 8, 8, 2].
inline Value unet_loss(const ad::Params& p, const Inputs& in) {
  nn::Conv2dOptions same{.padding = nn::Padding::same()};
  Tensor e = nn::relu(nn::conv2d(in.at("x"), p.at("enc/w"), Tensor(p.at("enc/b")), same));
  Tensor d = nn::max_pool(e);
  d = nn::relu(nn::conv2d(d, p.at("mid/w"), Tensor(p.at("mid/b")), same));
  Tensor u = nn::conv2d_transpose(d, p.at("up/w"), Tensor(p.at("up/b")),
                                  {.stride = {2, 2}, .padding = nn::Padding::same()});
  Tensor cat = np::concatenate({u, e}, 3);
  Tensor out = nn::conv2d(cat, p.at("out/w"), Tensor(p.at("out/b")), same);
  Tensor diff = out - Tensor(in.at("target"));
  return np::mean(diff * diff);
}

}  // namespace hhlo::examples
