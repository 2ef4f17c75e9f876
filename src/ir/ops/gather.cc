// gather: slices at data-dependent start indices.
#include <algorithm>
#include <limits>

#include "../infer_util.h"
#include "../op_descriptor.h"
#include "hhlo/ir/ops.h"
#include "start_indices.h"

namespace hhlo {
namespace {

void check_sorted(std::string_view op, std::string_view c, std::string_view what,
                  std::span<const int64_t> v) {
  if (!std::is_sorted(v.begin(), v.end()))
    detail::fail(op, c, "{} {} must be sorted", what, detail::list(v));
}

}  // namespace

TensorType infer_gather(const TensorType& operand, const TensorType& si,
                        const GatherDimensionNumbers& d, std::span<const int64_t> slice_sizes) {
  constexpr std::string_view op = "gather";
  int64_t orank = operand.rank(), irank = si.rank();
  // (C1)
  if (orank != static_cast<int64_t>(d.offset_dims.size() + d.collapsed_slice_dims.size() +
                                    d.operand_batching_dims.size()))
    detail::fail(op, "C1",
                 "rank(operand) {} != size(offset_dims) {} + size(collapsed_slice_dims) "
                 "{} + size(operand_batching_dims) {}",
                 orank, d.offset_dims.size(), d.collapsed_slice_dims.size(),
                 d.operand_batching_dims.size());
  // (C2)
  if (d.index_vector_dim < 0 || d.index_vector_dim > irank)
    detail::fail(op, "C2", "index_vector_dim {} outside [0, {}]", d.index_vector_dim, irank);
  // (C3)
  int64_t index_len =
      d.index_vector_dim < irank ? si.dims[static_cast<size_t>(d.index_vector_dim)] : 1;
  if (static_cast<int64_t>(d.start_index_map.size()) != index_len && index_len != kDynamic)
    detail::fail(op, "C3", "start_index_map {} has {} entries, index vectors of {} have {}",
                 detail::list(d.start_index_map), d.start_index_map.size(), si.to_string(),
                 index_len);
  // (C4)
  detail::check_unique(op, "C4", "offset_dims", d.offset_dims);
  check_sorted(op, "C4", "offset_dims", d.offset_dims);
  int64_t batch_rank = irank - (d.index_vector_dim < irank ? 1 : 0);
  int64_t rrank = batch_rank + static_cast<int64_t>(d.offset_dims.size());
  // (C5)
  detail::check_in_range(op, "C5", "offset_dims", d.offset_dims, rrank);
  // (C6)
  std::vector<int64_t> cb = d.collapsed_slice_dims;
  cb.insert(cb.end(), d.operand_batching_dims.begin(), d.operand_batching_dims.end());
  detail::check_unique(op, "C6", "collapsed_slice_dims ++ operand_batching_dims", cb);
  // (C7), (C8)
  check_sorted(op, "C7", "collapsed_slice_dims", d.collapsed_slice_dims);
  detail::check_in_range(op, "C8", "collapsed_slice_dims", d.collapsed_slice_dims, orank);
  // (C20) checked before indexing slice_sizes
  if (static_cast<int64_t>(slice_sizes.size()) != orank)
    detail::fail(op, "C20", "slice_sizes {} must have rank(operand) = {} entries",
                 detail::list(slice_sizes), orank);
  // (C9)
  for (int64_t c : d.collapsed_slice_dims)
    if (slice_sizes[static_cast<size_t>(c)] > 1)
      detail::fail(op, "C9", "collapsed dim {} has slice size {}; it must be 0 or 1", c,
                   slice_sizes[static_cast<size_t>(c)]);
  // (C10), (C11), (C12)
  check_sorted(op, "C10", "operand_batching_dims", d.operand_batching_dims);
  detail::check_in_range(op, "C11", "operand_batching_dims", d.operand_batching_dims, orank);
  for (int64_t c : d.operand_batching_dims)
    if (slice_sizes[static_cast<size_t>(c)] > 1)
      detail::fail(op, "C12", "operand batching dim {} has slice size {}; it must be 0 or 1", c,
                   slice_sizes[static_cast<size_t>(c)]);
  // (C13)-(C17)
  static constexpr std::string_view kBatchingTags[] = {"C13", "C14", "C15", "C16", "C17"};
  detail::check_batching_dims(op, kBatchingTags, "operand", operand.dims, d.operand_batching_dims,
                              "start_indices", si.dims, d.start_indices_batching_dims,
                              d.index_vector_dim);
  // (C18), (C19)
  std::vector<int64_t> sb = d.start_index_map;
  sb.insert(sb.end(), d.operand_batching_dims.begin(), d.operand_batching_dims.end());
  detail::check_unique(op, "C18", "start_index_map ++ operand_batching_dims", sb);
  detail::check_in_range(op, "C19", "start_index_map", d.start_index_map, orank);
  // (C21)
  for (int64_t i = 0; i < orank; ++i) {
    int64_t s = slice_sizes[static_cast<size_t>(i)], od = operand.dims[static_cast<size_t>(i)];
    if (s < 0 || (od != kDynamic && s > od))
      detail::fail(op, "C21", "slice size {} of dim {} outside [0, {}] for operand {}", s, i, od,
                   operand.to_string());
  }
  // (C22)
  Dims batch, offset;
  for (int64_t i = 0; i < irank; ++i)
    if (i != d.index_vector_dim) batch.push_back(si.dims[static_cast<size_t>(i)]);
  for (int64_t i = 0; i < orank; ++i)
    if (std::find(cb.begin(), cb.end(), i) == cb.end())
      offset.push_back(slice_sizes[static_cast<size_t>(i)]);
  Dims result(static_cast<size_t>(rrank));
  size_t bi = 0, oi = 0;
  for (int64_t i = 0; i < rrank; ++i) {
    bool is_off = std::find(d.offset_dims.begin(), d.offset_dims.end(), i) != d.offset_dims.end();
    result[static_cast<size_t>(i)] = is_off ? offset[oi++] : batch[bi++];
  }
  return TensorType{operand.dtype, result};
}

Value gather(Value operand, Value start_indices, const GatherDimensionNumbers& dims,
             std::vector<int64_t> slice_sizes, bool indices_are_sorted, Loc loc) {
  Value ops[] = {operand, start_indices};
  Func& f = detail::func_of("gather", ops);
  if (!is_integer(start_indices.dtype()))
    detail::fail("gather", "", "start_indices {} must have an integer element type",
                 start_indices.type().to_string());
  TensorType t = infer_gather(operand.type(), start_indices.type(), dims, slice_sizes);
  // Unsigned indices made signed (start_indices.h); component k starts operand dimension
  // start_index_map[k], whose largest useful start is its size minus the slice size.
  std::vector<int64_t> bounds;
  for (int64_t od : dims.start_index_map) {
    int64_t size = operand.type().dims[od];
    bounds.push_back(size == kDynamic ? std::numeric_limits<int64_t>::max()
                                      : size - slice_sizes[od]);
  }
  Value indices = detail::signed_start_indices(start_indices, dims.index_vector_dim, bounds, loc);
  return f.append({"stablehlo.gather",
                   {operand, indices},
                   {t},
                   {{"dimension_numbers", dims},
                    {"slice_sizes", i64_array(std::move(slice_sizes))},
                    {"indices_are_sorted", BoolAttr{indices_are_sorted}}},
                   {},
                   Location::from(loc)})[0];
}

// Descriptors (op_descriptor.h): the shape rule on a recorded op.
namespace {

std::vector<TensorType> infer_gather_op(const detail::OpInfo& op) {
  op.need(2);
  return {infer_gather(op.operands[0], op.operands[1],
                       op.get<GatherDimensionNumbers>("dimension_numbers"),
                       op.i64s("slice_sizes"))};
}

constexpr detail::OpDescriptor kOps[] = {{"stablehlo.gather", infer_gather_op}};

}  // namespace

std::span<const detail::OpDescriptor> detail::gather_ops() { return kOps; }

}  // namespace hhlo
