// A `stablehlo.dot_general` as a call of oneDNN's matmul (onednn_calls.h): the batch, free and
// contracting dimensions of its row-major operands seen as src [B..., M, K] x weights [B..., K, N]
// -> dst [B..., M, N] with strides, so that the kernel reads the operands where they lie (no
// transpose): each group of free or contracting dimensions must lie as one dimension (each
// dimension's stride the next one's times its size; dimensions of size 1 lie anywhere).
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "hhlo/onednn/kernels.h"
#include "onednn_calls.h"

namespace hhlo::detail {
namespace {

/// One logical dimension of the kernel: its size and its stride in the operand's buffer (0 for
/// a dimension of size 1, whose stride is free).
struct Logical {
  int64_t size = 1, stride = 0;
};

std::vector<int64_t> row_major_strides(const Dims& shape) {
  std::vector<int64_t> s(shape.size());
  int64_t step = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = step;
    step *= shape[i];
  }
  return s;
}

/// Tensor dimensions `ds` (major to minor) of a row-major tensor of `shape` as one logical
/// dimension; nothing when they do not lie as one.
std::optional<Logical> merged(const std::vector<int64_t>& ds, const Dims& shape) {
  std::vector<int64_t> strides = row_major_strides(shape);
  Logical l;
  for (int64_t d : ds) {
    if (shape[d] == 1) continue;
    if (l.stride != 0 && l.stride != strides[d] * shape[d]) return std::nullopt;
    l.size *= shape[d];
    l.stride = strides[d];
  }
  return l;
}

/// Strides for the size-1 dimensions of a matrix (rows, cols), the ones oneDNN's plain layouts
/// would give them: row-major unless the rows are the dense dimension.
void settle(Logical& rows, Logical& cols) {
  if (rows.stride == 0 && cols.stride == 0) {
    rows.stride = cols.stride = 1;
  } else if (cols.stride == 0) {
    cols.stride = rows.stride == 1 ? rows.size : 1;
  } else if (rows.stride == 0) {
    rows.stride = cols.stride * cols.size;
  }
}

/// The dimensions of a tensor of `rank` in none of `a` and `b`, in order (dot_general's free
/// dimensions).
std::vector<int64_t> free_dims(size_t rank, const std::vector<int64_t>& a,
                               const std::vector<int64_t>& b) {
  std::vector<int64_t> f;
  for (int64_t d = 0; d < static_cast<int64_t>(rank); ++d)
    if (std::find(a.begin(), a.end(), d) == a.end() && std::find(b.begin(), b.end(), d) == b.end())
      f.push_back(d);
  return f;
}

/// The kernel's attributes for `op`; empty `why` when it has them.
struct Described {
  std::vector<int64_t> src_dims, src_strides, weights_dims, weights_strides, dst_dims;
};

std::string describe(const Op& op, Described& d) {
  for (Value v : op.operands())
    if (v.dtype() != DType::f32) return fmt::format("a {} operand", dtype_name(v.dtype()));
  if (op.result(0).dtype() != DType::f32) return "a result that is not f32";
  if (op.attr("algorithm")) return "a dot algorithm";
  const Dims ls = op.operands()[0].type().dims;
  const Dims rs = op.operands()[1].type().dims;
  for (const Dims* s : {&ls, &rs})
    for (int64_t n : *s)
      if (n == 0) return "an empty operand";
  const auto& dn = *op.attr("dot_dimension_numbers")->get_if<DotDimensionNumbers>();
  std::vector<int64_t> ls_strides = row_major_strides(ls), rs_strides = row_major_strides(rs);
  for (size_t i = 0; i < dn.lhs_batching_dimensions.size(); ++i) {
    int64_t lb = dn.lhs_batching_dimensions[i], rb = dn.rhs_batching_dimensions[i];
    if (ls[lb] == 1) continue;
    d.src_dims.push_back(ls[lb]);
    d.src_strides.push_back(ls_strides[lb]);
    d.weights_dims.push_back(ls[lb]);
    d.weights_strides.push_back(rs_strides[rb]);
  }
  if (d.src_dims.size() + 2 > 12) return "more than 10 batch dimensions";
  std::optional<Logical> m =
      merged(free_dims(ls.size(), dn.lhs_batching_dimensions, dn.lhs_contracting_dimensions), ls);
  std::optional<Logical> kl = merged(dn.lhs_contracting_dimensions, ls);
  std::optional<Logical> kr = merged(dn.rhs_contracting_dimensions, rs);
  std::optional<Logical> n =
      merged(free_dims(rs.size(), dn.rhs_batching_dimensions, dn.rhs_contracting_dimensions), rs);
  if (!m || !kl || !kr || !n) return "free or contracting dimensions that do not lie as one";
  settle(*m, *kl);
  settle(*kr, *n);
  d.dst_dims = d.src_dims;
  d.src_dims.insert(d.src_dims.end(), {m->size, kl->size});
  d.src_strides.insert(d.src_strides.end(), {m->stride, kl->stride});
  d.weights_dims.insert(d.weights_dims.end(), {kr->size, n->size});
  d.weights_strides.insert(d.weights_strides.end(), {kr->stride, n->stride});
  d.dst_dims.insert(d.dst_dims.end(), {m->size, n->size});
  return "";
}

}  // namespace

std::optional<Value> onednn_matmul_call(const Op& op, const std::vector<Value>& operands,
                                        int threads, std::string& why) {
  Described d;
  why = describe(op, d);
  if (!why.empty()) return std::nullopt;
  DictAttr config;
  auto add = [&](const char* name, std::vector<int64_t> v) {
    config.entries.emplace_back(name, I64ArrayAttr{std::move(v)});
  };
  add("src_dims", std::move(d.src_dims));
  add("src_strides", std::move(d.src_strides));
  add("weights_dims", std::move(d.weights_dims));
  add("weights_strides", std::move(d.weights_strides));
  add("dst_dims", std::move(d.dst_dims));
  config.entries.emplace_back("threads", IntAttr{threads});
  return onednn_kernel_call(op, operands, kOneDnnMatmulTarget, std::move(config));
}

}  // namespace hhlo::detail
