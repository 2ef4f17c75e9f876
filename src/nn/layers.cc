// Activations, dense, losses, normalization, embedding and attention over the NumPy layer.
#include "hhlo/nn/layers.h"

#include <fmt/format.h>

#include <cmath>

namespace hhlo::nn {
namespace {

std::vector<int64_t> all_but(int64_t rank, int64_t axis) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis) out.push_back(d);
  return out;
}

}  // namespace

Tensor relu(Tensor x, Loc loc) { return np::relu(x, loc); }

Tensor gelu(Tensor x, Loc loc) {
  const double c = std::sqrt(2.0 / M_PI);
  Tensor inner = (x + x * x * x * 0.044715) * c;
  return x * 0.5 * (np::tanh(inner, loc) + 1.0);
}

Tensor silu(Tensor x, Loc loc) { return np::multiply(x, np::sigmoid(x, loc), loc); }

Tensor dense(Tensor x, Tensor w, std::optional<Tensor> b, Loc loc) {
  Value y = dot_general(
      x, w, {.lhs_contracting_dimensions = {x.rank() - 1}, .rhs_contracting_dimensions = {0}}, {},
      loc);
  Tensor t = y;
  if (b) t = np::add(t, *b, loc);
  return t;
}

Tensor dense(Tensor x, const ad::Params& p, const std::string& prefix, Loc loc) {
  std::optional<Tensor> b;
  if (p.contains(prefix + "/b")) b = Tensor(p.at(prefix + "/b"));
  return dense(x, p.at(prefix + "/w"), b, loc);
}

Tensor one_hot(Tensor labels, int64_t classes, DType dtype, Loc loc) {
  Dims d = labels.shape();
  d.push_back(classes);
  Value cls = iota(labels.func(), {labels.dtype(), d}, labels.rank(), loc);
  std::vector<int64_t> bd;
  for (int64_t i = 0; i < labels.rank(); ++i) bd.push_back(i);
  Value lb = broadcast_in_dim(labels, d, bd, loc);
  return convert(compare(cls, lb, ComparisonDirection::EQ, std::nullopt, loc), dtype, loc);
}

Tensor softmax_cross_entropy(Tensor logits, Tensor labels, Loc loc) {
  if (logits.rank() != 2 || labels.rank() != 1 || labels.dim(0) != logits.dim(0))
    throw ShapeError(
        "softmax_cross_entropy", "",
        fmt::format("expected logits [batch, classes] and labels [batch], got {} and {}",
                    logits.type().to_string(), labels.type().to_string()));
  Tensor logp = np::log_softmax(logits, -1, loc);
  Tensor oh = one_hot(labels, logits.dim(1), logits.dtype(), loc);
  return -np::mean(np::sum(np::multiply(oh, logp, loc), {-1}, false, loc), {}, false, loc);
}

Tensor layer_norm(Tensor x, Tensor gamma, Tensor beta, double eps, Loc loc) {
  Tensor mu = np::mean(x, {-1}, true, loc);
  Tensor xc = np::subtract(x, mu, loc);
  Tensor var = np::mean(xc * xc, {-1}, true, loc);
  Tensor y = np::multiply(xc, np::rsqrt(var + eps, loc), loc);
  return np::add(np::multiply(y, gamma, loc), beta, loc);
}

namespace {
// Reshapes a [features] vector to broadcast along `axis` of a rank-`rank` tensor.
Tensor along(Tensor v, int64_t rank, int64_t axis) {
  Dims d(static_cast<size_t>(rank), 1);
  d[static_cast<size_t>(axis)] = v.dim(0);
  return reshape(v, d);
}
}  // namespace

BatchNormResult batch_norm_train(Tensor x, Tensor gamma, Tensor beta, Tensor running_mean,
                                 Tensor running_var, int64_t feature_axis, double momentum,
                                 double eps, Loc loc) {
  int64_t axis = np::normalize_axis("batch_norm", feature_axis, x.rank());
  auto axes = all_but(x.rank(), axis);
  Tensor mu = np::mean(x, axes, false, loc);
  Tensor xc = np::subtract(x, along(mu, x.rank(), axis), loc);
  Tensor var = np::mean(xc * xc, axes, false, loc);
  Tensor inv = np::rsqrt(var + eps, loc);
  Tensor y = np::add(np::multiply(xc, along(np::multiply(inv, gamma, loc), x.rank(), axis), loc),
                     along(beta, x.rank(), axis), loc);
  return {y, running_mean * momentum + mu * (1.0 - momentum),
          running_var * momentum + var * (1.0 - momentum)};
}

Tensor batch_norm_infer(Tensor x, Tensor gamma, Tensor beta, Tensor running_mean,
                        Tensor running_var, int64_t feature_axis, double eps, Loc loc) {
  int64_t axis = np::normalize_axis("batch_norm", feature_axis, x.rank());
  Tensor scale = np::multiply(gamma, np::rsqrt(running_var + eps, loc), loc);
  Tensor shift = np::subtract(beta, np::multiply(running_mean, scale, loc), loc);
  return np::add(np::multiply(x, along(scale, x.rank(), axis), loc), along(shift, x.rank(), axis),
                 loc);
}

Tensor embedding(Tensor table, Tensor ids, Loc loc) {
  return dense(one_hot(ids, table.dim(0), table.dtype(), loc), table, std::nullopt, loc);
}

Tensor multi_head_attention(Tensor q_in, Tensor kv_in, const ad::Params& p,
                            const std::string& prefix, int64_t heads, std::optional<Tensor> mask,
                            Loc loc) {
  int64_t B = q_in.dim(0), Tq = q_in.dim(1), Tk = kv_in.dim(1), D = q_in.dim(2);
  if (heads <= 0 || D % heads != 0)
    throw Error(
        fmt::format("multi_head_attention: model width {} is not divisible by {} heads", D, heads));
  int64_t dh = D / heads;
  auto split = [&](Tensor t, int64_t T) {  // [B, T, D] -> [B, H, T, dh]
    return Tensor(transpose(reshape(t, {B, T, heads, dh}, loc), {0, 2, 1, 3}, loc));
  };
  Tensor q = split(dense(q_in, p, prefix + "/q", loc), Tq);
  Tensor k = split(dense(kv_in, p, prefix + "/k", loc), Tk);
  Tensor v = split(dense(kv_in, p, prefix + "/v", loc), Tk);
  Tensor s = dot_general(q, k,
                         {.lhs_batching_dimensions = {0, 1},
                          .rhs_batching_dimensions = {0, 1},
                          .lhs_contracting_dimensions = {3},
                          .rhs_contracting_dimensions = {3}},
                         {}, loc);
  s = s * (1.0 / std::sqrt(static_cast<double>(dh)));
  if (mask) s = np::where(*mask, s, np::full_like(s, -1e9, loc), loc);
  Tensor a = np::softmax(s, -1, loc);
  Tensor o = dot_general(a, v,
                         {.lhs_batching_dimensions = {0, 1},
                          .rhs_batching_dimensions = {0, 1},
                          .lhs_contracting_dimensions = {3},
                          .rhs_contracting_dimensions = {2}},
                         {}, loc);
  Tensor merged = reshape(transpose(o, {0, 2, 1, 3}, loc), {B, Tq, D}, loc);
  return dense(merged, p, prefix + "/o", loc);
}

}  // namespace hhlo::nn

namespace hhlo::nn {

std::pair<Tensor, Tensor> dropout(Tensor x, double rate, Tensor key, Loc loc) {
  if (rate < 0 || rate >= 1) throw Error(fmt::format("dropout: rate {} outside [0, 1)", rate));
  if (rate == 0) return {x, key};
  Func& f = x.func();
  std::vector<Value> r =
      rng_bit_generator(key, RngAlgorithm::THREE_FRY, {DType::ui32, x.shape()}, loc);
  // Uniform [0, 1) from the top 23 bits: bitcast(0x3f800000 | bits >> 9) - 1.
  Value mant =
      shift_right_logical(r[1], constant(f, uint32_t{9}, DType::ui32, x.shape(), loc), loc);
  Value one_bits = constant(f, uint32_t{0x3f800000u}, DType::ui32, x.shape(), loc);
  Tensor u = Tensor(bitcast_convert(or_(mant, one_bits, loc), DType::f32, loc)) - 1.0;
  Tensor keep = np::greater_equal(u, np::full_like(u, rate, loc), loc);
  Tensor y = np::where(keep, x * (1.0 / (1.0 - rate)), np::full_like(x, 0, loc), loc);
  return {y, r[0]};
}

}  // namespace hhlo::nn
