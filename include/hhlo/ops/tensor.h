// NumPy-style tensors over the IR: `Tensor` wraps a Value and gives it arithmetic operators with
// implicit NumPy broadcasting (through stablehlo.broadcast_in_dim) and scalar operands.
// Functions live in namespace hhlo::np so they never clash with the exact-shape IR builders of
// hhlo/ir/ops.h (e.g. hhlo::add requires equal shapes; np::add broadcasts).
#pragma once

#include <optional>
#include <vector>

#include "hhlo/ir/ops.h"

namespace hhlo {

/// A value in a function under construction, with NumPy-like operators. Cheap to copy; converts
/// implicitly from and to Value.
class Tensor {
 public:
  Tensor() = default;
  Tensor(Value v) : v_(v) {}             // NOLINT: implicit by design
  operator Value() const { return v_; }  // NOLINT
  Value value() const { return v_; }
  Func& func() const { return v_.func(); }
  const TensorType& type() const { return v_.type(); }
  DType dtype() const { return v_.dtype(); }
  const Dims& shape() const { return v_.dims(); }
  int64_t rank() const { return v_.rank(); }
  /// Size of axis `i` (negative counts from the end).
  int64_t dim(int64_t i) const { return v_.dim(i); }

 private:
  Value v_;
};

namespace np {

/// NumPy broadcast of two shapes (align right; sizes equal or 1). Throws
/// ShapeError("broadcast", "") naming both shapes when incompatible.
Dims broadcast_shapes(const Dims& a, const Dims& b);
/// `x` broadcast to `shape` by NumPy rules (stablehlo.broadcast_in_dim; x itself if equal).
/// Throws ShapeError("broadcast", "") when x's shape cannot broadcast to `shape`.
Tensor broadcast_to(Tensor x, const Dims& shape, Loc loc = Loc::current());
/// Normalizes a possibly negative axis against `rank`; throws ShapeError(op, "") out of range.
int64_t normalize_axis(std::string_view op, int64_t axis, int64_t rank);

/// A splat constant in the function `like` belongs to, with `like`'s element type (or `dtype`).
/// Throws ShapeError("constant", "") when `value` does not fit the element type.
Tensor full_like(Tensor like, Scalar value, Loc loc = Loc::current());
/// tensor<shape x dtype> filled with `value` in function `f`.
Tensor full(Func& f, const Dims& shape, Scalar value, DType dtype, Loc loc = Loc::current());
/// Scalar constant of `dtype` in `f`.
Tensor scalar(Func& f, Scalar value, DType dtype, Loc loc = Loc::current());

/// Broadcasting elementwise binary op by StableHLO name ("add", "maximum", "power", ...):
/// both operands broadcast to broadcast_shapes(a, b); element types must be equal.
Tensor binary(std::string_view op, Tensor a, Tensor b, Loc loc = Loc::current());
Tensor add(Tensor a, Tensor b, Loc loc = Loc::current());
Tensor subtract(Tensor a, Tensor b, Loc loc = Loc::current());
Tensor multiply(Tensor a, Tensor b, Loc loc = Loc::current());
Tensor divide(Tensor a, Tensor b, Loc loc = Loc::current());
Tensor maximum(Tensor a, Tensor b, Loc loc = Loc::current());
Tensor minimum(Tensor a, Tensor b, Loc loc = Loc::current());
Tensor power(Tensor a, Tensor b, Loc loc = Loc::current());

/// Broadcasting comparisons: i1 result of the broadcast shape (stablehlo.compare).
Tensor equal(Tensor a, Tensor b, Loc loc = Loc::current());
Tensor not_equal(Tensor a, Tensor b, Loc loc = Loc::current());
Tensor less(Tensor a, Tensor b, Loc loc = Loc::current());
Tensor less_equal(Tensor a, Tensor b, Loc loc = Loc::current());
Tensor greater(Tensor a, Tensor b, Loc loc = Loc::current());
Tensor greater_equal(Tensor a, Tensor b, Loc loc = Loc::current());

/// `cond ? a : b` elementwise with all three broadcast together (stablehlo.select). cond is i1.
Tensor where(Tensor cond, Tensor a, Tensor b, Loc loc = Loc::current());
/// Element type conversion (stablehlo.convert); identity when already `dtype`.
Tensor astype(Tensor x, DType dtype, Loc loc = Loc::current());

/// Unary math (same shape and dtype; see infer_unary for accepted types).
Tensor exp(Tensor x, Loc loc = Loc::current());
Tensor log(Tensor x, Loc loc = Loc::current());
Tensor tanh(Tensor x, Loc loc = Loc::current());
Tensor sqrt(Tensor x, Loc loc = Loc::current());
Tensor rsqrt(Tensor x, Loc loc = Loc::current());
Tensor abs(Tensor x, Loc loc = Loc::current());
Tensor sigmoid(Tensor x, Loc loc = Loc::current());
/// jnp.square: x * x (stablehlo.multiply), any numeric type.
Tensor square(Tensor x, Loc loc = Loc::current());
/// jnp.log1p / jnp.expm1 (stablehlo.log_plus_one, exponential_minus_one), float and complex.
Tensor log1p(Tensor x, Loc loc = Loc::current());
Tensor expm1(Tensor x, Loc loc = Loc::current());
/// jnp.sign, jnp.floor, jnp.ceil (stablehlo.sign, floor, ceil): derivative 0 (as JAX's).
Tensor sign(Tensor x, Loc loc = Loc::current());
Tensor floor(Tensor x, Loc loc = Loc::current());
Tensor ceil(Tensor x, Loc loc = Loc::current());
/// jnp.conj / jnp.conjugate: complex(real(x), -imag(x)) for complex x (stablehlo.real, imag,
/// negate, complex), x itself for real types, as jnp's. Its VJP and JVP follow from those ops'.
Tensor conj(Tensor x, Loc loc = Loc::current());
/// jnp.real / jnp.imag: the real and imaginary parts (stablehlo.real / imag) of a complex x, in
/// its real dtype; for a real x, x itself and zeros.
Tensor real(Tensor x, Loc loc = Loc::current());
Tensor imag(Tensor x, Loc loc = Loc::current());

/// jnp.sin, jnp.cos, jnp.tan (stablehlo.sine, cosine, tan): same shape and dtype, float or
/// complex; derivatives cos, -sin, 1 + tan^2 (src/autodiff/rules/elementwise.cc).
Tensor sin(Tensor x, Loc loc = Loc::current());
Tensor cos(Tensor x, Loc loc = Loc::current());
Tensor tan(Tensor x, Loc loc = Loc::current());
/// jnp.arctan2(y, x) (stablehlo.atan2, broadcasting): the angle of (x, y) in [-pi, pi]; float.
Tensor arctan2(Tensor y, Tensor x, Loc loc = Loc::current());
/// jnp.arctan: atan2(x, 1), real floats.
Tensor arctan(Tensor x, Loc loc = Loc::current());
/// jnp.arcsin: 2 atan2(x, 1 + sqrt(1 - x^2)) (XLA's and JAX's real formula), real floats; NaN
/// outside [-1, 1]. Derivative 1 / sqrt(1 - x^2) through the atan2 and sqrt rules.
Tensor arcsin(Tensor x, Loc loc = Loc::current());
/// jnp.arccos: 2 atan2(sqrt(1 - x^2), 1 + x) (pi at x = -1), real floats; NaN outside [-1, 1].
Tensor arccos(Tensor x, Loc loc = Loc::current());
/// jnp.sinh: (expm1(x) - expm1(-x)) / 2, accurate near 0; real floats.
Tensor sinh(Tensor x, Loc loc = Loc::current());
/// jnp.cosh: exp(x - log 2) + exp(-x - log 2) (no overflow before cosh itself); real floats.
Tensor cosh(Tensor x, Loc loc = Loc::current());
/// jnp.arcsinh: odd, log1p(t + t^2 / (1 + sqrt(1 + t^2))) for t = |x| (log 2 + log t for
/// t > 1e8), real floats; derivative 1 / sqrt(1 + x^2), 1 at 0.
Tensor arcsinh(Tensor x, Loc loc = Loc::current());
/// jnp.arccosh: log1p(y + sqrt(y (y + 2))) with y = x - 1 (log 2 + log x for x > 1e8), real
/// floats; NaN below 1.
Tensor arccosh(Tensor x, Loc loc = Loc::current());
/// jnp.arctanh: log1p(2x / (1 - x)) / 2, real floats; +-inf at +-1, NaN beyond.
Tensor arctanh(Tensor x, Loc loc = Loc::current());

/// jnp.eye(n, m, k, dtype): tensor<n x m x dtype> (m = n when absent) with ones where
/// column - row == k and zeros elsewhere, built in `f` from two stablehlo.iota, a compare and a
/// select (no host buffer of the full size). Any dtype. Throws ShapeError("eye", "") for a
/// negative n or m.
Tensor eye(Func& f, int64_t n, std::optional<int64_t> m = std::nullopt, int64_t k = 0,
           DType dtype = DType::f32, Loc loc = Loc::current());

/// jax.nn.relu: max(x, 0) elementwise, same shape and dtype (f32, f64), NaN for NaN; its
/// derivative is JAX's select(x > 0, 1, 0), so 0 at 0 (not maximum's tie split 0.5). Emitted as
/// select(x > 0, x, maximum(sign(x), 0)) (stablehlo.compare, select, sign, maximum).
Tensor relu(Tensor x, Loc loc = Loc::current());

}  // namespace np

/// The left (or only tensor) operand of an operator, carrying the source location of the
/// expression it appears in: converting a Tensor or Value to it evaluates `Loc::current()` at the
/// user's expression, so `x + y` records the user's line in the printed `loc(...)`.
struct TensorAt {
  Tensor t;
  Loc loc;
  TensorAt(Tensor t, Loc loc = Loc::current()) : t(t), loc(loc) {}  // NOLINT: implicit
  TensorAt(Value v, Loc loc = Loc::current()) : t(v), loc(loc) {}   // NOLINT: implicit
};

/// Broadcasting arithmetic (np::add, np::subtract, np::multiply, np::divide), recorded at the
/// line of the expression. Throws ShapeError("broadcast") for incompatible shapes and the op's
/// ShapeError for differing element types.
Tensor operator+(TensorAt a, Tensor b);
Tensor operator-(TensorAt a, Tensor b);
Tensor operator*(TensorAt a, Tensor b);
Tensor operator/(TensorAt a, Tensor b);
/// Scalar operands take the tensor's element type (JAX's weak typing): `x * 2`, `1.0 - x`.
/// Throws ShapeError("constant") when the scalar does not fit that type (0.5 for i32).
Tensor operator+(TensorAt a, Scalar b);
Tensor operator-(TensorAt a, Scalar b);
Tensor operator*(TensorAt a, Scalar b);
Tensor operator/(TensorAt a, Scalar b);
Tensor operator+(Scalar a, TensorAt b);
Tensor operator-(Scalar a, TensorAt b);
Tensor operator*(Scalar a, TensorAt b);
Tensor operator/(Scalar a, TensorAt b);
/// stablehlo.negate.
Tensor operator-(TensorAt a);

}  // namespace hhlo
