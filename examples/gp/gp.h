// Gaussian-process regression in the EDSL: the log marginal likelihood of a squared-exponential
// GP, built from a kernel matrix, a Cholesky factorisation and two triangular solves, and
// differentiated w.r.t. the log length scale by hhlo::ad::grad (the VJPs of cholesky and
// triangular_solve). The same computation as tests/autodiff/gen_gp_vectors.py does in JAX.
#pragma once

#include <cmath>
#include <numbers>

#include "hhlo/ops/ops.h"

namespace hhlo::examples {

/// log p(y | x, l) = -y^T K^{-1} y / 2 - log det(K) / 2 - n/2 log(2 pi) with
/// K_ij = sf2 exp(-|x_i - x_j|^2 / (2 l^2)) + sn2 delta_ij, l = exp(log_l).
/// log_l: f64 scalar; x: f64 [n, d] inputs; y: f64 [n] targets. Returns an f64 scalar.
/// Throws ShapeError when the shapes do not fit.
inline Tensor gp_log_marginal_likelihood(Tensor log_l, Tensor x, Tensor y, double sf2, double sn2) {
  namespace la = np::linalg;
  const int64_t n = x.dim(0);
  Tensor l = np::exp(log_l);
  Tensor diff = np::expand_dims(x, 1) - np::expand_dims(x, 0);  // [n, n, d]
  Tensor d2 = np::sum(diff * diff, {2});
  TensorType it{DType::i32, {n, n}};
  Tensor eye = np::astype(np::equal(iota(x.func(), it, 0), iota(x.func(), it, 1)), DType::f64);
  Tensor k = sf2 * np::exp(d2 / ((-2.0) * l * l)) + sn2 * eye;
  Tensor c = la::cholesky(k);
  Tensor yc = np::reshape(y, {n, 1});
  Tensor z = la::triangular_solve(c, yc, {.lower = true});
  Tensor alpha = la::triangular_solve(c, z, {.lower = true, .transpose = true});
  Tensor quad = np::sum(yc * alpha);
  Tensor logdet = np::sum(np::log(np::sum(c * eye, {1})));
  return (-0.5) * quad - logdet - 0.5 * double(n) * std::log(2 * std::numbers::pi);
}

}  // namespace hhlo::examples
