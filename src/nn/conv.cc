// conv2d and pooling over stablehlo.convolution / stablehlo.reduce_window.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "hhlo/ir/conv_dimension_numbers.h"
#include "hhlo/nn/layers.h"

namespace hhlo::nn {
namespace {

std::vector<int64_t> spatial(Layout l) {
  return l == Layout::NHWC ? std::vector<int64_t>{1, 2} : std::vector<int64_t>{2, 3};
}

std::vector<std::pair<int64_t, int64_t>> resolve_padding(const Padding& p,
                                                         const std::vector<int64_t>& in,
                                                         const std::vector<int64_t>& window,
                                                         const std::vector<int64_t>& stride,
                                                         const std::vector<int64_t>& dilation) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (p.kind == Padding::Kind::valid) {
      out.emplace_back(0, 0);
    } else if (p.kind == Padding::Kind::explicit_) {
      if (p.pads.size() != in.size())
        throw ShapeError(
            "conv2d", "",
            fmt::format("explicit padding needs {} pairs, got {}", in.size(), p.pads.size()));
      out.push_back(p.pads[i]);
    } else {
      int64_t o = (in[i] + stride[i] - 1) / stride[i];
      int64_t ek = (window[i] - 1) * dilation[i] + 1;
      int64_t total = std::max<int64_t>((o - 1) * stride[i] + ek - in[i], 0);
      out.emplace_back(total / 2, total - total / 2);
    }
  }
  return out;
}

}  // namespace

namespace {
/// Dimension numbers of a 2-D convolution of an NHWC or NCHW input with an HWIO kernel; the
/// output has the input's layout.
ConvDimensionNumbers hwio_dimension_numbers(Layout layout) {
  return layout == Layout::NHWC ? conv_dimension_numbers("NHWC", "HWIO", "NHWC")
                                : conv_dimension_numbers("NCHW", "HWIO", "NCHW");
}
}  // namespace

Tensor conv2d(Tensor x, Tensor w, std::optional<Tensor> b, const Conv2dOptions& o, Loc loc) {
  if (x.rank() != 4 || w.rank() != 4)
    throw ShapeError("conv2d", "",
                     fmt::format("expected a rank-4 input and HWIO kernel, got {} and {}",
                                 x.type().to_string(), w.type().to_string()));
  auto sp = spatial(o.layout);
  ConvDimensionNumbers dn = hwio_dimension_numbers(o.layout);
  ConvOptions co;
  co.window_strides = o.stride;
  co.rhs_dilation = o.dilation;
  co.feature_group_count = o.groups;
  co.padding = resolve_padding(o.padding, {x.dim(sp[0]), x.dim(sp[1])}, {w.dim(0), w.dim(1)},
                               o.stride, o.dilation);
  Tensor y = convolution(x, w, dn, co, loc);
  if (b) {
    Dims bd(4, 1);
    bd[static_cast<size_t>(dn.output_feature_dimension)] = b->dim(0);
    y = np::add(y, reshape(*b, bd, loc), loc);
  }
  return y;
}

Tensor conv2d_transpose(Tensor x, Tensor w, std::optional<Tensor> b, const Conv2dOptions& o,
                        Loc loc) {
  auto sp = spatial(o.layout);
  ConvDimensionNumbers dn = hwio_dimension_numbers(o.layout);
  ConvOptions co;
  co.lhs_dilation = o.stride;
  for (size_t i = 0; i < 2; ++i) {
    int64_t k = w.dim(static_cast<int64_t>(i)), s = o.stride[i];
    if (o.padding.kind == Padding::Kind::explicit_) {
      co.padding.push_back(o.padding.pads.at(i));
    } else if (o.padding.kind == Padding::Kind::same) {
      int64_t len = k + s - 2, a = s > k - 1 ? k - 1 : (len + 1) / 2;
      co.padding.emplace_back(a, len - a);
    } else {
      int64_t len = k + s - 2 + std::max<int64_t>(k - s, 0), a = k - 1;
      co.padding.emplace_back(a, len - a);
    }
  }
  Tensor y = convolution(x, w, dn, co, loc);
  if (b) {
    Dims bd(4, 1);
    bd[static_cast<size_t>(dn.output_feature_dimension)] = b->dim(0);
    y = np::add(y, reshape(*b, bd, loc), loc);
  }
  return y;
}

namespace {

Tensor pool(Tensor x, const PoolOptions& o, bool is_max, Loc loc) {
  if (x.rank() != 4)
    throw ShapeError(is_max ? "max_pool" : "avg_pool", "",
                     "expected a rank-4 input, got " + x.type().to_string());
  auto sp = spatial(o.layout);
  std::vector<int64_t> stride = o.stride.empty() ? o.window : o.stride;
  std::vector<int64_t> win(4, 1), strides(4, 1);
  std::vector<std::pair<int64_t, int64_t>> padding(4, {0, 0});
  auto sp_pad = resolve_padding(o.padding, {x.dim(sp[0]), x.dim(sp[1])}, o.window, stride, {1, 1});
  for (size_t i = 0; i < 2; ++i) {
    auto d = static_cast<size_t>(sp[i]);
    win[d] = o.window[i];
    strides[d] = stride[i];
    padding[d] = sp_pad[i];
  }
  WindowOptions wo;
  wo.window_strides = strides;
  wo.padding = padding;
  Func& f = x.func();
  double init = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
  Value y = reduce_window(
      {x}, {constant(f, init, x.dtype(), {}, loc)}, win, wo,
      [is_max](const std::vector<Value>& a) {
        return std::vector<Value>{is_max ? maximum(a[0], a[1]) : add(a[0], a[1])};
      },
      loc)[0];
  if (is_max) return y;
  return Tensor(y) * (1.0 / static_cast<double>(o.window[0] * o.window[1]));
}

}  // namespace

Tensor max_pool(Tensor x, const PoolOptions& o, Loc loc) { return pool(x, o, true, loc); }
Tensor avg_pool(Tensor x, const PoolOptions& o, Loc loc) { return pool(x, o, false, loc); }

}  // namespace hhlo::nn
