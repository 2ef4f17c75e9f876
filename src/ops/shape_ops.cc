// Shape manipulation, joining/splitting and indexing on Tensors.
#include "hhlo/ops/shape_ops.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <numeric>

namespace hhlo::np {

Tensor reshape(Tensor x, Dims shape, Loc loc) {
  int64_t known = 1, unknown = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (unknown >= 0) throw ShapeError("reshape", "", "more than one -1 in the new shape");
      unknown = static_cast<int64_t>(i);
    } else {
      known *= shape[i];
    }
  }
  if (unknown >= 0) {
    int64_t n = x.type().num_elements();
    if (known == 0 || n % known != 0)
      throw ShapeError(
          "reshape", "C2",
          fmt::format("cannot reshape {} into [{}]", x.type().to_string(), fmt::join(shape, ", ")));
    shape[static_cast<size_t>(unknown)] = n / known;
  }
  if (shape == x.shape()) return x;
  return hhlo::reshape(x, shape, loc);
}

Tensor transpose(Tensor x, std::vector<int64_t> axes, Loc loc) {
  if (axes.empty())
    for (int64_t i = x.rank() - 1; i >= 0; --i) axes.push_back(i);
  for (auto& a : axes) a = normalize_axis("transpose", a, x.rank());
  bool identity = true;
  for (size_t i = 0; i < axes.size(); ++i) identity &= axes[i] == static_cast<int64_t>(i);
  if (identity && static_cast<int64_t>(axes.size()) == x.rank()) return x;
  return hhlo::transpose(x, axes, loc);
}

Tensor expand_dims(Tensor x, int64_t axis, Loc loc) {
  int64_t a = normalize_axis("expand_dims", axis, x.rank() + 1);
  Dims s = x.shape();
  s.insert(s.begin() + a, 1);
  return hhlo::reshape(x, s, loc);
}

Tensor squeeze(Tensor x, std::vector<int64_t> axes, Loc loc) {
  std::vector<bool> drop(static_cast<size_t>(x.rank()), false);
  if (axes.empty()) {
    for (int64_t i = 0; i < x.rank(); ++i) drop[static_cast<size_t>(i)] = x.dim(i) == 1;
  } else {
    for (int64_t a : axes) {
      int64_t n = normalize_axis("squeeze", a, x.rank());
      if (x.dim(n) != 1)
        throw ShapeError(
            "squeeze", "",
            fmt::format("axis {} of {} has size {}, not 1", a, x.type().to_string(), x.dim(n)));
      drop[static_cast<size_t>(n)] = true;
    }
  }
  Dims s;
  for (int64_t i = 0; i < x.rank(); ++i)
    if (!drop[static_cast<size_t>(i)]) s.push_back(x.dim(i));
  return s == x.shape() ? x : Tensor(hhlo::reshape(x, s, loc));
}

Tensor concatenate(const std::vector<Tensor>& xs, int64_t axis, Loc loc) {
  if (xs.empty()) throw ShapeError("concatenate", "C3", "needs at least one input");
  std::vector<Value> vs(xs.begin(), xs.end());
  return hhlo::concatenate(vs, normalize_axis("concatenate", axis, xs[0].rank()), loc);
}

Tensor stack(const std::vector<Tensor>& xs, int64_t axis, Loc loc) {
  if (xs.empty()) throw ShapeError("stack", "", "needs at least one input");
  int64_t a = normalize_axis("stack", axis, xs[0].rank() + 1);
  std::vector<Tensor> ex;
  for (const Tensor& x : xs) {
    if (x.shape() != xs[0].shape())
      throw ShapeError("stack", "",
                       fmt::format("inputs differ in shape: {} vs {}", x.type().to_string(),
                                   xs[0].type().to_string()));
    ex.push_back(expand_dims(x, a, loc));
  }
  return concatenate(ex, a, loc);
}

std::vector<Tensor> split_at(Tensor x, const std::vector<int64_t>& indices, int64_t axis, Loc loc) {
  int64_t a = normalize_axis("split", axis, x.rank());
  std::vector<int64_t> bounds = {0};
  for (int64_t i : indices) bounds.push_back(std::clamp<int64_t>(i, 0, x.dim(a)));
  bounds.push_back(x.dim(a));
  std::vector<Tensor> out;
  for (size_t i = 0; i + 1 < bounds.size(); ++i) {
    std::vector<int64_t> start(static_cast<size_t>(x.rank()), 0), limit = x.shape();
    start[static_cast<size_t>(a)] = bounds[i];
    limit[static_cast<size_t>(a)] = std::max(bounds[i], bounds[i + 1]);
    out.push_back(hhlo::slice(x, start, limit, {}, loc));
  }
  return out;
}

std::vector<Tensor> split(Tensor x, int64_t sections, int64_t axis, Loc loc) {
  int64_t a = normalize_axis("split", axis, x.rank());
  if (sections <= 0 || x.dim(a) % sections != 0)
    throw ShapeError("split", "",
                     fmt::format("axis {} of size {} does not split into {} equal "
                                 "sections",
                                 axis, x.dim(a), sections));
  std::vector<int64_t> idx;
  for (int64_t i = 1; i < sections; ++i) idx.push_back(i * (x.dim(a) / sections));
  return split_at(x, idx, a, loc);
}

Tensor take(Tensor x, Tensor indices, int64_t axis, Loc loc) {
  int64_t a = normalize_axis("take", axis, x.rank());
  int64_t ir = indices.rank();
  GatherDimensionNumbers dn;
  for (int64_t i = 0; i < x.rank(); ++i) {
    if (i < a) dn.offset_dims.push_back(i);
    if (i > a) dn.offset_dims.push_back(i - 1 + ir);
  }
  dn.collapsed_slice_dims = {a};
  dn.start_index_map = {a};
  dn.index_vector_dim = ir;
  std::vector<int64_t> sizes = x.shape();
  sizes[static_cast<size_t>(a)] = 1;
  if (is_signed_int(indices.dtype())) {
    // NumPy: negative indices count from the end of the axis.
    Tensor zero = full_like(indices, 0, loc), n = full_like(indices, x.dim(a), loc);
    indices = where(less(indices, zero, loc), add(indices, n, loc), indices, loc);
  }
  return hhlo::gather(x, indices, dn, sizes, false, loc);
}

std::pair<Tensor, Tensor> topk(Tensor x, int64_t k, Loc loc) {
  if (x.rank() == 0) throw ShapeError("topk", "", "needs rank >= 1");
  int64_t n = x.dim(-1), last = x.rank() - 1;
  if (k < 0 || k > n)
    throw ShapeError("topk", "",
                     fmt::format("k = {} outside [0, {}] for {}", k, n, x.type().to_string()));
  Value idx = hhlo::iota(x.func(), {DType::i32, x.shape()}, last, loc);
  auto s = hhlo::sort(
      {x, idx}, last,
      [&](const std::vector<Value>& a) {
        return std::vector<Value>{
            hhlo::compare(a[0], a[1], ComparisonDirection::GT, std::nullopt, loc)};
      },
      true, loc);
  std::vector<int64_t> start(static_cast<size_t>(x.rank()), 0), limit = x.shape();
  limit.back() = k;
  return {hhlo::slice(s[0], start, limit, {}, loc), hhlo::slice(s[1], start, limit, {}, loc)};
}

namespace {

std::vector<int64_t> iota_dims(int64_t n) {
  std::vector<int64_t> d(static_cast<size_t>(n));
  std::iota(d.begin(), d.end(), 0);
  return d;
}

// x flattened when `axis` is absent (then axis 0), and the normalized axis.
std::pair<Tensor, int64_t> sort_axis(std::string_view op, Tensor x, std::optional<int64_t> axis,
                                     Loc loc) {
  if (!axis) return {hhlo::reshape(x, {x.type().num_elements()}, loc), 0};
  if (x.rank() == 0) throw ShapeError(std::string(op), "", "a rank-0 tensor has no axis to sort");
  return {x, normalize_axis(op, *axis, x.rank())};
}

// JAX's _sort_lt_comparator for one key: floats with -0.0 as 0.0 and NaNs as one NaN, compared
// in TOTALORDER (NaNs last); complex values by (real, imaginary) part so canonicalized,
// lexicographically; other types compared directly.
Value sort_less(Value a, Value b, Loc loc) {
  if (is_complex(a.dtype())) {
    Value ra = hhlo::real(a, loc), rb = hhlo::real(b, loc);
    Value lt_im = sort_less(hhlo::imag(a, loc), hhlo::imag(b, loc), loc);
    Value lt_re = sort_less(ra, rb, loc);
    Value eq_re = hhlo::not_(hhlo::or_(lt_re, sort_less(rb, ra, loc), loc), loc);
    return hhlo::or_(lt_re, hhlo::and_(eq_re, lt_im, loc), loc);
  }
  if (!is_float(a.dtype())) return hhlo::compare(a, b, ComparisonDirection::LT, std::nullopt, loc);
  auto canon = [&](Value v) {
    Func& f = v.func();
    Value zero = hhlo::constant(f, 0.0, v.dtype(), {}, loc);
    Value z = hhlo::select(hhlo::compare(v, zero, ComparisonDirection::EQ, std::nullopt, loc), zero,
                           v, loc);
    Value nan = hhlo::constant(f, std::numeric_limits<double>::quiet_NaN(), v.dtype(), {}, loc);
    return hhlo::select(hhlo::compare(v, v, ComparisonDirection::NE, std::nullopt, loc), nan, z,
                        loc);
  };
  return hhlo::compare(canon(a), canon(b), ComparisonDirection::LT, ComparisonType::TOTALORDER,
                       loc);
}

// The fill value of jnp's mode "fill": NaN for inexact types, the lowest value for signed
// integers, the highest for unsigned ones, true for pred.
Tensor fill_value(Tensor like, Loc loc) {
  DType t = like.dtype();
  if (is_float(t) || is_complex(t))
    return full_like(like, std::numeric_limits<double>::quiet_NaN(), loc);
  Array a(t, {});
  visit_dtype(t, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, bool>)
      *static_cast<T*>(a.data()) = true;
    else if constexpr (std::is_integral_v<T>)
      *static_cast<T*>(a.data()) =
          std::is_signed_v<T> ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
    else if constexpr (kIsNarrowInt<T>)
      *static_cast<T*>(a.data()) = T(T::kSigned ? T::kMin : T::kMax);
  });
  return hhlo::broadcast_in_dim(hhlo::constant(like.func(), a, loc), like.shape(), {}, loc);
}

// Indices with negative entries counted from the end of an axis of size n.
Tensor wrap_negative(Tensor idx, int64_t n, Loc loc) {
  if (!is_signed_int(idx.dtype())) return idx;
  Tensor neg = less(idx, full_like(idx, 0, loc), loc);
  return where(neg, add(idx, full_like(idx, n, loc), loc), idx, loc);
}

Tensor scatter_update(std::string_view op, std::string_view body, Tensor x, Tensor indices,
                      Tensor values, bool unique, Loc loc) {
  if (x.rank() == 0) throw ShapeError(std::string(op), "", "needs a tensor of rank >= 1");
  if (!is_integer(indices.dtype()))
    throw ShapeError(std::string(op), "",
                     fmt::format("indices must be integers, got {}", indices.type().to_string()));
  int64_t k = indices.rank();
  Dims ishape = indices.shape();
  Tensor idx = wrap_negative(indices, x.dim(0), loc);
  Dims with_vector = ishape;
  with_vector.push_back(1);
  idx = hhlo::reshape(idx, with_vector, loc);
  Dims ushape = ishape;
  ushape.insert(ushape.end(), x.shape().begin() + 1, x.shape().end());
  Tensor upd = broadcast_to(astype(values, x.dtype(), loc), ushape, loc);
  ScatterDimensionNumbers dn;
  for (int64_t d = 1; d < x.rank(); ++d) dn.update_window_dims.push_back(k + d - 1);
  dn.inserted_window_dims = {0};
  dn.scatter_dims_to_operand_dims = {0};
  dn.index_vector_dim = k;
  return hhlo::scatter(
      {x}, idx, {upd}, dn,
      [&](const std::vector<Value>& a) {
        if (body == "set") return std::vector<Value>{a[1]};
        return std::vector<Value>{hhlo::binary(body, a[0], a[1], loc)};
      },
      false, unique, loc)[0];
}

// Scalar start indices of one integer type (i32 when they differ, as JAX's common type).
std::vector<Value> start_values(std::string_view op, const std::vector<Tensor>& starts, Loc loc) {
  std::vector<Value> out;
  bool same = true;
  for (const Tensor& t : starts) {
    if (t.rank() != 0 || !is_integer(t.dtype()))
      throw ShapeError(
          std::string(op), "",
          fmt::format("start indices must be integer scalars, got {}", t.type().to_string()));
    same = same && t.dtype() == starts[0].dtype();
  }
  for (const Tensor& t : starts) out.push_back(same ? Value(t) : Value(astype(t, DType::i32, loc)));
  return out;
}

}  // namespace

Tensor sort(Tensor x, std::optional<int64_t> axis, bool descending, Loc loc) {
  auto [v, ax] = sort_axis("sort", x, axis, loc);
  Value s = hhlo::sort(
      {v}, ax,
      [&](const std::vector<Value>& a) { return std::vector<Value>{sort_less(a[0], a[1], loc)}; },
      true, loc)[0];
  return descending ? Tensor(hhlo::reverse(s, {ax}, loc)) : Tensor(s);
}

Tensor argsort(Tensor x, std::optional<int64_t> axis, bool descending, DType index_type, Loc loc) {
  auto [v, ax] = sort_axis("argsort", x, axis, loc);
  if (!is_integer(index_type))
    throw ShapeError("argsort", "",
                     fmt::format("index type {} is not an integer type", dtype_name(index_type)));
  Value idx = hhlo::iota(v.func(), {index_type, v.shape()}, ax, loc);
  Value keys = v;
  if (descending) {
    keys = hhlo::reverse(keys, {ax}, loc);
    idx = hhlo::reverse(idx, {ax}, loc);
  }
  Value r = hhlo::sort(
      {keys, idx}, ax,
      [&](const std::vector<Value>& a) { return std::vector<Value>{sort_less(a[0], a[1], loc)}; },
      true, loc)[1];
  return descending ? Tensor(hhlo::reverse(r, {ax}, loc)) : Tensor(r);
}

Tensor take_along_axis(Tensor x, Tensor indices, int64_t axis, Loc loc) {
  if (!is_integer(indices.dtype()))
    throw ShapeError("take_along_axis", "",
                     fmt::format("indices must be integers, got {}", indices.type().to_string()));
  if (indices.rank() != x.rank())
    throw ShapeError("take_along_axis", "",
                     fmt::format("indices {} and x {} differ in rank", indices.type().to_string(),
                                 x.type().to_string()));
  int64_t r = x.rank(), ax = normalize_axis("take_along_axis", axis, r), n = x.dim(ax);
  Dims xs = x.shape(), is = indices.shape();
  for (int64_t d = 0; d < r; ++d) {
    if (d == ax) continue;
    size_t i = static_cast<size_t>(d);
    if (xs[i] != is[i] && xs[i] != 1 && is[i] != 1)
      throw ShapeError("take_along_axis", "",
                       fmt::format("axis {} of x {} and indices {} do not broadcast", d,
                                   x.type().to_string(), indices.type().to_string()));
    xs[i] = is[i] = std::max(xs[i], is[i]);
  }
  Tensor xb = x.shape() == xs ? x : Tensor(hhlo::broadcast_in_dim(x, xs, iota_dims(r), loc));
  Tensor ib = indices.shape() == is
                  ? indices
                  : Tensor(hhlo::broadcast_in_dim(indices, is, iota_dims(r), loc));
  Tensor idx = wrap_negative(ib, n, loc);
  Dims with_vector = is;
  with_vector.push_back(1);
  GatherDimensionNumbers dn;
  dn.collapsed_slice_dims = {ax};
  for (int64_t d = 0; d < r; ++d)
    if (d != ax) {
      dn.operand_batching_dims.push_back(d);
      dn.start_indices_batching_dims.push_back(d);
    }
  dn.start_index_map = {ax};
  dn.index_vector_dim = r;
  Tensor g = hhlo::gather(xb, hhlo::reshape(idx, with_vector, loc), dn,
                          std::vector<int64_t>(static_cast<size_t>(r), 1), false, loc);
  Tensor ok = hhlo::and_(greater_equal(idx, full_like(idx, 0, loc), loc),
                         less(idx, full_like(idx, n, loc), loc), loc);
  return where(ok, g, fill_value(g, loc), loc);
}

Tensor at_set(Tensor x, Tensor indices, Tensor values, bool unique_indices, Loc loc) {
  return scatter_update("at_set", "set", x, indices, values, unique_indices, loc);
}
Tensor at_add(Tensor x, Tensor indices, Tensor values, bool unique_indices, Loc loc) {
  return scatter_update("at_add", "add", x, indices, values, unique_indices, loc);
}
Tensor at_mul(Tensor x, Tensor indices, Tensor values, bool unique_indices, Loc loc) {
  return scatter_update("at_mul", "multiply", x, indices, values, unique_indices, loc);
}
Tensor at_min(Tensor x, Tensor indices, Tensor values, bool unique_indices, Loc loc) {
  return scatter_update("at_min", "minimum", x, indices, values, unique_indices, loc);
}
Tensor at_max(Tensor x, Tensor indices, Tensor values, bool unique_indices, Loc loc) {
  return scatter_update("at_max", "maximum", x, indices, values, unique_indices, loc);
}

Tensor dynamic_slice(Tensor x, const std::vector<Tensor>& start_indices, const Dims& slice_sizes,
                     Loc loc) {
  return hhlo::dynamic_slice(x, start_values("dynamic_slice", start_indices, loc), slice_sizes,
                             loc);
}

Tensor dynamic_update_slice(Tensor x, Tensor update, const std::vector<Tensor>& start_indices,
                            Loc loc) {
  return hhlo::dynamic_update_slice(x, astype(update, x.dtype(), loc),
                                    start_values("dynamic_update_slice", start_indices, loc), loc);
}

}  // namespace hhlo::np
