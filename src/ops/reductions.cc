// Reductions over axes, the cumulative reductions and the softmax family.
#include "hhlo/ops/reductions.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>

namespace hhlo::np {
namespace {

std::vector<int64_t> norm_axes(std::string_view op, const Axes& axes, int64_t rank) {
  std::vector<int64_t> out;
  if (axes.empty())
    for (int64_t i = 0; i < rank; ++i) out.push_back(i);
  for (int64_t a : axes) out.push_back(normalize_axis(op, a, rank));
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end())
    throw ShapeError(std::string(op), "", "repeated axis");
  return out;
}

Dims kept_shape(const Dims& shape, const std::vector<int64_t>& axes) {
  Dims out = shape;
  for (int64_t a : axes) out[static_cast<size_t>(a)] = 1;
  return out;
}

// Lowest (highest=false) or highest value of dtype `t`: +-inf for floats (the largest finite
// values for a narrow float without infinities, as JAX does; f8E8M0FNU's lowest is 2^-127).
Array extreme(DType t, bool highest) {
  Array a(t, {});
  visit_dtype(t, [&](auto zero) {
    using T = decltype(zero);
    T v{};
    if constexpr (std::is_same_v<T, bool>)
      v = highest;
    else if constexpr (std::is_integral_v<T>)
      v = highest ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
    else if constexpr (kIsNarrowInt<T>)
      v = T(highest ? T::kMax : T::kMin);
    else if constexpr (std::is_same_v<T, f16_t> || std::is_same_v<T, bf16_t>)
      v = T(highest ? std::numeric_limits<float>::infinity()
                    : -std::numeric_limits<float>::infinity());
    else if constexpr (kIsFloatStruct<T>) {
      double big = T::has_inf() ? std::numeric_limits<double>::infinity() : T::max();
      v = highest ? T(big) : t == DType::f8E8M0FNU ? T(std::ldexp(1.0, -127)) : T(-big);
    } else if constexpr (std::is_floating_point_v<T>)
      v = highest ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
    else
      throw ShapeError("max", "", "complex tensors have no order");
    *static_cast<T*>(a.data()) = v;
  });
  return a;
}

Tensor reduce_with(std::string_view op, std::string_view body_op, Tensor x, const Axes& axes,
                   bool keepdims, Tensor init, Loc loc) {
  auto ax = norm_axes(op, axes, x.rank());
  Value r = hhlo::reduce(
      x, init, ax, [&](Value a, Value b) { return hhlo::binary(body_op, a, b, loc); }, loc);
  return keepdims ? Tensor(hhlo::reshape(r, kept_shape(x.shape(), ax), loc)) : Tensor(r);
}

Tensor arg_extreme(std::string_view op, Tensor x, int64_t axis, bool keepdims, DType index_type,
                   bool want_max, Loc loc) {
  int64_t ax = normalize_axis(op, axis, x.rank());
  Func& f = x.func();
  Value idx = hhlo::iota(f, {index_type, x.shape()}, ax, loc);
  Value init_v = hhlo::constant(f, extreme(x.dtype(), !want_max), loc);
  Value init_i = hhlo::constant(f, 0, index_type, {}, loc);
  bool fl = is_float(x.dtype());
  auto r = hhlo::reduce(
      {x, idx}, {init_v, init_i}, {ax},
      [&](const std::vector<Value>& a) {
        Value av = a[0], ai = a[1], bv = a[2], bi = a[3];
        Value better =
            hhlo::compare(bv, av, want_max ? ComparisonDirection::GT : ComparisonDirection::LT,
                          std::nullopt, loc);
        Value same = hhlo::compare(bv, av, ComparisonDirection::EQ, std::nullopt, loc);
        if (fl) {
          Value anan = hhlo::compare(av, av, ComparisonDirection::NE, std::nullopt, loc);
          Value bnan = hhlo::compare(bv, bv, ComparisonDirection::NE, std::nullopt, loc);
          Value nota = hhlo::not_(anan, loc);
          better = hhlo::or_(hhlo::and_(bnan, nota, loc), hhlo::and_(nota, better, loc), loc);
          same = hhlo::or_(same, hhlo::and_(anan, bnan, loc), loc);
        }
        Value lower = hhlo::compare(bi, ai, ComparisonDirection::LT, std::nullopt, loc);
        Value take = hhlo::or_(better, hhlo::and_(same, lower, loc), loc);
        return std::vector<Value>{hhlo::select(take, bv, av, loc), hhlo::select(take, bi, ai, loc)};
      },
      loc);
  Tensor out = r[1];
  return keepdims ? Tensor(hhlo::reshape(out, kept_shape(x.shape(), {ax}), loc)) : out;
}

// JAX's cumred_reduce_window_impl: a window of the whole axis, padded so that output i sees
// elements 0..i (or i..n-1), strides 1; `body` combines two scalars.
Tensor cumulative(std::string_view op, Tensor x, std::optional<int64_t> axis, bool reverse,
                  Value init, const std::function<Value(Value, Value)>& body, Loc loc) {
  if (!axis) {
    x = hhlo::reshape(x, {x.type().num_elements()}, loc);
    axis = 0;
  }
  int64_t ax = normalize_axis(op, *axis, x.rank());
  int64_t n = x.dim(ax);
  if (n == 0) return x;
  std::vector<int64_t> window(static_cast<size_t>(x.rank()), 1);
  window[static_cast<size_t>(ax)] = n;
  WindowOptions o;
  o.window_strides.assign(static_cast<size_t>(x.rank()), 1);
  o.base_dilations = o.window_strides;
  o.window_dilations = o.window_strides;
  o.padding.assign(static_cast<size_t>(x.rank()), {0, 0});
  o.padding[static_cast<size_t>(ax)] =
      reverse ? std::pair<int64_t, int64_t>{0, n - 1} : std::pair<int64_t, int64_t>{n - 1, 0};
  return hhlo::reduce_window(
      {x}, {init}, window, o,
      [&](const std::vector<Value>& a) { return std::vector<Value>{body(a[0], a[1])}; }, loc)[0];
}

Tensor ints_for_pred(Tensor x, Loc loc) {
  return x.dtype() == DType::pred ? Tensor(hhlo::convert(x, DType::i32, loc)) : x;
}

}  // namespace

Tensor cumsum(Tensor x, std::optional<int64_t> axis, bool reverse, Loc loc) {
  x = ints_for_pred(x, loc);
  return cumulative(
      "cumsum", x, axis, reverse, scalar(x.func(), 0, x.dtype(), loc),
      [&](Value a, Value b) { return hhlo::add(a, b, loc); }, loc);
}

Tensor cumprod(Tensor x, std::optional<int64_t> axis, bool reverse, Loc loc) {
  x = ints_for_pred(x, loc);
  return cumulative(
      "cumprod", x, axis, reverse, scalar(x.func(), 1, x.dtype(), loc),
      [&](Value a, Value b) { return hhlo::multiply(a, b, loc); }, loc);
}

Tensor cummax(Tensor x, std::optional<int64_t> axis, bool reverse, Loc loc) {
  if (x.dtype() == DType::pred) throw ShapeError("cummax", "", "pred tensors are not accepted");
  return cumulative(
      "cummax", x, axis, reverse, hhlo::constant(x.func(), extreme(x.dtype(), false), loc),
      [&](Value a, Value b) { return hhlo::maximum(a, b, loc); }, loc);
}

Tensor cummin(Tensor x, std::optional<int64_t> axis, bool reverse, Loc loc) {
  if (x.dtype() == DType::pred) throw ShapeError("cummin", "", "pred tensors are not accepted");
  return cumulative(
      "cummin", x, axis, reverse, hhlo::constant(x.func(), extreme(x.dtype(), true), loc),
      [&](Value a, Value b) { return hhlo::minimum(a, b, loc); }, loc);
}

Tensor cumlogsumexp(Tensor x, std::optional<int64_t> axis, bool reverse, Loc loc) {
  if (!is_float(x.dtype()))
    throw ShapeError("cumlogsumexp", "",
                     fmt::format("needs a float tensor, got {}", x.type().to_string()));
  // The op sequence of jax.lax.logaddexp for real floats, as jnp.cumlogsumexp's body.
  auto logaddexp = [&](Value a, Value b) {
    Value m = hhlo::maximum(a, b, loc);
    Value d = hhlo::subtract(a, b, loc);
    Value nan = hhlo::compare(d, d, ComparisonDirection::NE, std::nullopt, loc);
    Value sum = hhlo::add(a, b, loc);
    Value t = hhlo::log_plus_one(hhlo::exponential(hhlo::negate(hhlo::abs(d, loc), loc), loc), loc);
    return hhlo::select(nan, sum, hhlo::add(m, t, loc), loc);
  };
  return cumulative("cumlogsumexp", x, axis, reverse,
                    hhlo::constant(x.func(), extreme(x.dtype(), false), loc), logaddexp, loc);
}

Tensor sum(Tensor x, Axes axes, bool keepdims, Loc loc) {
  return reduce_with("sum", "add", x, axes, keepdims, scalar(x.func(), 0, x.dtype(), loc), loc);
}

Tensor mean(Tensor x, Axes axes, bool keepdims, Loc loc) {
  auto ax = norm_axes("mean", axes, x.rank());
  int64_t n = 1;
  for (int64_t a : ax) n *= x.dim(a);
  Tensor s = sum(x, axes, keepdims, loc);
  return divide(s, scalar(x.func(), n, x.dtype(), loc), loc);
}

Tensor max(Tensor x, Axes axes, bool keepdims, Loc loc) {
  return reduce_with("max", "maximum", x, axes, keepdims,
                     hhlo::constant(x.func(), extreme(x.dtype(), false), loc), loc);
}

Tensor min(Tensor x, Axes axes, bool keepdims, Loc loc) {
  return reduce_with("min", "minimum", x, axes, keepdims,
                     hhlo::constant(x.func(), extreme(x.dtype(), true), loc), loc);
}

Tensor argmax(Tensor x, int64_t axis, bool keepdims, DType index_type, Loc loc) {
  return arg_extreme("argmax", x, axis, keepdims, index_type, true, loc);
}

Tensor argmin(Tensor x, int64_t axis, bool keepdims, DType index_type, Loc loc) {
  return arg_extreme("argmin", x, axis, keepdims, index_type, false, loc);
}

Tensor softmax(Tensor x, int64_t axis, Loc loc) {
  Tensor m = max(x, {axis}, true, loc);
  Tensor e = exp(subtract(x, m, loc), loc);
  return divide(e, sum(e, {axis}, true, loc), loc);
}

Tensor log_softmax(Tensor x, int64_t axis, Loc loc) {
  Tensor shifted = subtract(x, max(x, {axis}, true, loc), loc);
  return subtract(shifted, log(sum(exp(shifted, loc), {axis}, true, loc), loc), loc);
}

Tensor logsumexp(Tensor x, Axes axes, bool keepdims, Loc loc) {
  Tensor m = max(x, axes, true, loc);
  // Guard against -inf max (all -inf): use 0 there.
  Tensor finite = hhlo::is_finite(m, loc);
  m = where(finite, m, full_like(m, 0, loc), loc);
  Tensor r = add(log(sum(exp(subtract(x, m, loc), loc), axes, true, loc), loc), m, loc);
  if (keepdims) return r;
  auto ax = norm_axes("logsumexp", axes, x.rank());
  Dims out;
  for (int64_t i = 0; i < x.rank(); ++i)
    if (std::find(ax.begin(), ax.end(), i) == ax.end()) out.push_back(x.dim(i));
  return hhlo::reshape(r, out, loc);
}

}  // namespace hhlo::np
