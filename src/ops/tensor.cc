// Tensor arithmetic with NumPy broadcasting.
#include "hhlo/ops/tensor.h"

#include <fmt/format.h>

#include <functional>

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
Tensor square(Tensor x, Loc loc) { return hhlo::multiply(x, x, loc); }
Tensor log1p(Tensor x, Loc loc) { return hhlo::log_plus_one(x, loc); }
Tensor expm1(Tensor x, Loc loc) { return hhlo::exponential_minus_one(x, loc); }
Tensor sign(Tensor x, Loc loc) { return hhlo::sign(x, loc); }
Tensor floor(Tensor x, Loc loc) { return hhlo::floor(x, loc); }
Tensor ceil(Tensor x, Loc loc) { return hhlo::ceil(x, loc); }
Tensor conj(Tensor x, Loc loc) {
  if (!is_complex(x.dtype())) return x;
  return hhlo::complex(hhlo::real(x, loc), hhlo::negate(hhlo::imag(x, loc), loc), loc);
}
Tensor real(Tensor x, Loc loc) { return is_complex(x.dtype()) ? Tensor(hhlo::real(x, loc)) : x; }
Tensor imag(Tensor x, Loc loc) {
  return is_complex(x.dtype()) ? Tensor(hhlo::imag(x, loc)) : full_like(x, 0, loc);
}

Tensor sin(Tensor x, Loc loc) { return hhlo::sine(x, loc); }
Tensor cos(Tensor x, Loc loc) { return hhlo::cosine(x, loc); }
Tensor tan(Tensor x, Loc loc) { return hhlo::tan(x, loc); }
Tensor arctan2(Tensor y, Tensor x, Loc loc) { return binary("atan2", y, x, loc); }
Tensor arctan(Tensor x, Loc loc) { return hhlo::atan2(x, full_like(x, 1, loc), loc); }
Tensor arcsin(Tensor x, Loc loc) {
  Value one = full_like(x, 1, loc);
  Value s = hhlo::sqrt(hhlo::subtract(one, hhlo::multiply(x, x, loc), loc), loc);
  Value a = hhlo::atan2(x, hhlo::add(one, s, loc), loc);
  return hhlo::add(a, a, loc);
}
Tensor arccos(Tensor x, Loc loc) {
  Value one = full_like(x, 1, loc);
  Value s = hhlo::sqrt(hhlo::subtract(one, hhlo::multiply(x, x, loc), loc), loc);
  Value a = hhlo::atan2(s, hhlo::add(one, x, loc), loc);
  Value at_minus_one =
      hhlo::compare(x, full_like(x, -1, loc), ComparisonDirection::EQ, std::nullopt, loc);
  return hhlo::select(at_minus_one, full_like(x, 3.14159265358979323846, loc), hhlo::add(a, a, loc),
                      loc);
}
Tensor sinh(Tensor x, Loc loc) {
  Value d = hhlo::subtract(hhlo::exponential_minus_one(x, loc),
                           hhlo::exponential_minus_one(hhlo::negate(x, loc), loc), loc);
  return hhlo::multiply(d, full_like(x, 0.5, loc), loc);
}
Tensor cosh(Tensor x, Loc loc) {
  Value ln2 = full_like(x, 0.69314718055994530942, loc);
  return hhlo::add(hhlo::exponential(hhlo::subtract(x, ln2, loc), loc),
                   hhlo::exponential(hhlo::subtract(hhlo::negate(x, loc), ln2, loc), loc), loc);
}
namespace {
// log(2 t) where t > 1e8 (the square root's correction below 1e-16 relative), else `small(t)`;
// each branch reads t only where it is selected (the other gets 1, or `safe`), so no infinity or
// NaN of the unselected branch reaches a derivative.
Value large_or(Value t, double safe, const std::function<Value(Value)>& small, Loc loc) {
  Value big = hhlo::compare(t, full_like(t, 1e8, loc), ComparisonDirection::GT, std::nullopt, loc);
  Value tb = hhlo::select(big, t, full_like(t, 1, loc), loc);
  Value ts = hhlo::select(big, full_like(t, safe, loc), t, loc);
  Value lg = hhlo::add(hhlo::log(tb, loc), full_like(t, 0.69314718055994530942, loc), loc);
  return hhlo::select(big, lg, small(ts), loc);
}
}  // namespace
Tensor arcsinh(Tensor x, Loc loc) {
  // asinh(t) for t >= 0, applied to x and -x so that the derivative at 0 is 1 (sign(x) * ...
  // would give 0 there).
  auto pos = [loc](Value t) {
    return large_or(
        t, 0.0,
        [loc](Value u) {
          Value one = full_like(u, 1, loc);
          Value u2 = hhlo::multiply(u, u, loc);
          Value r =
              hhlo::divide(u2, hhlo::add(one, hhlo::sqrt(hhlo::add(one, u2, loc), loc), loc), loc);
          return hhlo::log_plus_one(hhlo::add(u, r, loc), loc);
        },
        loc);
  };
  Value nonneg = hhlo::compare(x, full_like(x, 0, loc), ComparisonDirection::GE, std::nullopt, loc);
  Value xp = hhlo::select(nonneg, x, full_like(x, 0, loc), loc);
  Value xn = hhlo::select(nonneg, full_like(x, 0, loc), hhlo::negate(x, loc), loc);
  return hhlo::select(nonneg, pos(xp), hhlo::negate(pos(xn), loc), loc);
}
Tensor arccosh(Tensor x, Loc loc) {
  return large_or(
      x, 2.0,
      [loc](Value u) {
        Value y = hhlo::subtract(u, full_like(u, 1, loc), loc);
        Value s = hhlo::sqrt(hhlo::multiply(y, hhlo::add(y, full_like(u, 2, loc), loc), loc), loc);
        return hhlo::log_plus_one(hhlo::add(y, s, loc), loc);
      },
      loc);
}
Tensor arctanh(Tensor x, Loc loc) {
  Value one = full_like(x, 1, loc);
  Value q = hhlo::divide(hhlo::add(x, x, loc), hhlo::subtract(one, x, loc), loc);
  return hhlo::multiply(hhlo::log_plus_one(q, loc), full_like(x, 0.5, loc), loc);
}

Tensor eye(Func& f, int64_t n, std::optional<int64_t> m, int64_t k, DType dtype, Loc loc) {
  int64_t cols = m.value_or(n);
  if (n < 0 || cols < 0)
    throw ShapeError("eye", "", fmt::format("negative size ({}, {})", n, cols));
  TensorType t{DType::i64, {n, cols}};
  Value row = hhlo::iota(f, t, 0, loc), col = hhlo::iota(f, t, 1, loc);
  Value on =
      hhlo::compare(hhlo::subtract(col, row, loc), hhlo::constant(f, k, DType::i64, {n, cols}, loc),
                    ComparisonDirection::EQ, std::nullopt, loc);
  return hhlo::select(on, full(f, {n, cols}, 1, dtype, loc), full(f, {n, cols}, 0, dtype, loc),
                      loc);
}

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
