// Tensor arithmetic with NumPy broadcasting.
#include "hhlo/ops/tensor.h"

#include <fmt/format.h>

namespace hhlo::np {

Dims broadcast_shapes(const Dims& a, const Dims& b) {
  size_t r = std::max(a.size(), b.size());
  Dims out(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1)
      throw ShapeError("broadcast", "",
                       fmt::format("shapes [{}] and [{}] do not broadcast (axis {}: {} vs {})",
                                   fmt::join(a, ", "), fmt::join(b, ", "), i, da, db));
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Tensor broadcast_to(Tensor x, const Dims& shape, Loc loc) {
  if (x.shape() == shape) return x;
  if (broadcast_shapes(x.shape(), shape) != shape)
    throw ShapeError(
        "broadcast", "",
        fmt::format("{} cannot broadcast to [{}]", x.type().to_string(), fmt::join(shape, ", ")));
  std::vector<int64_t> dims;
  int64_t off = static_cast<int64_t>(shape.size()) - x.rank();
  for (int64_t i = 0; i < x.rank(); ++i) dims.push_back(off + i);
  return hhlo::broadcast_in_dim(x, shape, dims, loc);
}

int64_t normalize_axis(std::string_view op, int64_t axis, int64_t rank) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    throw ShapeError(std::string(op), "",
                     fmt::format("axis {} out of range for rank {}", axis, rank));
  return a;
}

Tensor full(Func& f, const Dims& shape, Scalar value, DType dtype, Loc loc) {
  // A scalar constant broadcast to the shape: no host buffer of the full size is built.
  Value s = hhlo::constant(f, value, dtype, {}, loc);
  return shape.empty() ? Tensor(s) : Tensor(hhlo::broadcast_in_dim(s, shape, {}, loc));
}
Tensor full_like(Tensor like, Scalar value, Loc loc) {
  return full(like.func(), like.shape(), value, like.dtype(), loc);
}
Tensor scalar(Func& f, Scalar value, DType dtype, Loc loc) {
  return hhlo::constant(f, value, dtype, {}, loc);
}

Tensor binary(std::string_view op, Tensor a, Tensor b, Loc loc) {
  Dims s = broadcast_shapes(a.shape(), b.shape());
  return hhlo::binary(op, broadcast_to(a, s, loc), broadcast_to(b, s, loc), loc);
}

Tensor add(Tensor a, Tensor b, Loc loc) { return binary("add", a, b, loc); }
Tensor subtract(Tensor a, Tensor b, Loc loc) { return binary("subtract", a, b, loc); }
Tensor multiply(Tensor a, Tensor b, Loc loc) { return binary("multiply", a, b, loc); }
Tensor divide(Tensor a, Tensor b, Loc loc) { return binary("divide", a, b, loc); }
Tensor maximum(Tensor a, Tensor b, Loc loc) { return binary("maximum", a, b, loc); }
Tensor minimum(Tensor a, Tensor b, Loc loc) { return binary("minimum", a, b, loc); }
Tensor power(Tensor a, Tensor b, Loc loc) { return binary("power", a, b, loc); }

static Tensor cmp(Tensor a, Tensor b, ComparisonDirection d, Loc loc) {
  Dims s = broadcast_shapes(a.shape(), b.shape());
  return hhlo::compare(broadcast_to(a, s, loc), broadcast_to(b, s, loc), d, std::nullopt, loc);
}
Tensor equal(Tensor a, Tensor b, Loc loc) { return cmp(a, b, ComparisonDirection::EQ, loc); }
Tensor not_equal(Tensor a, Tensor b, Loc loc) { return cmp(a, b, ComparisonDirection::NE, loc); }
Tensor less(Tensor a, Tensor b, Loc loc) { return cmp(a, b, ComparisonDirection::LT, loc); }
Tensor less_equal(Tensor a, Tensor b, Loc loc) { return cmp(a, b, ComparisonDirection::LE, loc); }
Tensor greater(Tensor a, Tensor b, Loc loc) { return cmp(a, b, ComparisonDirection::GT, loc); }
Tensor greater_equal(Tensor a, Tensor b, Loc loc) {
  return cmp(a, b, ComparisonDirection::GE, loc);
}

Tensor where(Tensor cond, Tensor a, Tensor b, Loc loc) {
  Dims s = broadcast_shapes(broadcast_shapes(cond.shape(), a.shape()), b.shape());
  return hhlo::select(broadcast_to(cond, s, loc), broadcast_to(a, s, loc), broadcast_to(b, s, loc),
                      loc);
}

Tensor astype(Tensor x, DType dtype, Loc loc) {
  return x.dtype() == dtype ? x : Tensor(hhlo::convert(x, dtype, loc));
}

Tensor exp(Tensor x, Loc loc) { return hhlo::exponential(x, loc); }
Tensor log(Tensor x, Loc loc) { return hhlo::log(x, loc); }
Tensor tanh(Tensor x, Loc loc) { return hhlo::tanh(x, loc); }
Tensor sqrt(Tensor x, Loc loc) { return hhlo::sqrt(x, loc); }
Tensor rsqrt(Tensor x, Loc loc) { return hhlo::rsqrt(x, loc); }
Tensor abs(Tensor x, Loc loc) { return hhlo::abs(x, loc); }
Tensor sigmoid(Tensor x, Loc loc) { return hhlo::logistic(x, loc); }
Tensor relu(Tensor x, Loc loc) {
  // jax.nn.relu is maximum(x, 0) with a custom_jvp select(x > 0, t, 0): derivative 0 at 0, where
  // maximum's tie rule (lax.max's) would give 0.5. Here select(x > 0, x, maximum(sign(x), 0)):
  // the same value everywhere (x where x > 0, else maximum(sign(x), 0) = maximum(x, 0): 0, and NaN
  // for NaN), and the ordinary rules give JAX's derivative, since the else branch reaches x only
  // through sign, whose derivative is 0. Elementwise ops only, so vmap and higher orders apply.
  Value zero = full_like(x, 0, loc);
  Value positive = hhlo::compare(x, zero, ComparisonDirection::GT, std::nullopt, loc);
  return hhlo::select(positive, x, hhlo::maximum(hhlo::sign(x, loc), zero, loc), loc);
}

}  // namespace hhlo::np

namespace hhlo {

Tensor operator+(TensorAt a, Tensor b) { return np::add(a.t, b, a.loc); }
Tensor operator-(TensorAt a, Tensor b) { return np::subtract(a.t, b, a.loc); }
Tensor operator*(TensorAt a, Tensor b) { return np::multiply(a.t, b, a.loc); }
Tensor operator/(TensorAt a, Tensor b) { return np::divide(a.t, b, a.loc); }
static Tensor sc(const TensorAt& like, Scalar s) {
  return np::scalar(like.t.func(), s, like.t.dtype(), like.loc);
}
Tensor operator+(TensorAt a, Scalar b) { return np::add(a.t, sc(a, b), a.loc); }
Tensor operator-(TensorAt a, Scalar b) { return np::subtract(a.t, sc(a, b), a.loc); }
Tensor operator*(TensorAt a, Scalar b) { return np::multiply(a.t, sc(a, b), a.loc); }
Tensor operator/(TensorAt a, Scalar b) { return np::divide(a.t, sc(a, b), a.loc); }
Tensor operator+(Scalar a, TensorAt b) { return np::add(sc(b, a), b.t, b.loc); }
Tensor operator-(Scalar a, TensorAt b) { return np::subtract(sc(b, a), b.t, b.loc); }
Tensor operator*(Scalar a, TensorAt b) { return np::multiply(sc(b, a), b.t, b.loc); }
Tensor operator/(Scalar a, TensorAt b) { return np::divide(sc(b, a), b.t, b.loc); }
Tensor operator-(TensorAt a) { return hhlo::negate(a.t, a.loc); }

}  // namespace hhlo
