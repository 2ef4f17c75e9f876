// Shape manipulation, joining/splitting and indexing on Tensors.
#include "hhlo/ops/shape_ops.h"

#include <fmt/format.h>

#include <algorithm>
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

}  // namespace hhlo::np
