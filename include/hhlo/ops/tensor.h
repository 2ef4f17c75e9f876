// NumPy-style tensors over the IR: `Tensor` wraps a Value and gives it arithmetic operators with
// implicit NumPy broadcasting (through stablehlo.broadcast_in_dim) and scalar operands.
// Functions live in namespace hhlo::np so they never clash with the exact-shape IR builders of
// hhlo/ir/ops.h (e.g. hhlo::add requires equal shapes; np::add broadcasts).
#pragma once

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
