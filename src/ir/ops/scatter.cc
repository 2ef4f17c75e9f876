// scatter: data-dependent updates combined by a region.
#include <algorithm>
#include <limits>

#include "../infer_util.h"
#include "../op_descriptor.h"
#include "hhlo/ir/ops.h"
#include "start_indices.h"

namespace hhlo {

std::vector<TensorType> infer_scatter(std::span<const TensorType> inputs, const TensorType& si,
                                      std::span<const TensorType> updates,
                                      const ScatterDimensionNumbers& d) {
  constexpr std::string_view op = "scatter";
  // (C5)
  if (inputs.empty() || inputs.size() != updates.size())
    detail::fail(op, "C5", "needs N > 0 inputs and N updates; got {} inputs, {} updates",
                 inputs.size(), updates.size());
  const TensorType& in0 = inputs[0];
  const TensorType& up0 = updates[0];
  // (C1), (C3), (C6)
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!detail::dims_compatible(inputs[i].dims, in0.dims))
      detail::fail(op, "C1", "input {} {} and input 0 {} differ in shape", i, inputs[i].to_string(),
                   in0.to_string());
    if (!detail::dims_compatible(updates[i].dims, up0.dims))
      detail::fail(op, "C3", "update {} {} and update 0 {} differ in shape", i,
                   updates[i].to_string(), up0.to_string());
    if (updates[i].dtype != inputs[i].dtype)
      detail::fail(op, "C6", "update {} {} and input {} {} differ in element type", i,
                   updates[i].to_string(), i, inputs[i].to_string());
  }
  int64_t irank = in0.rank(), srank = si.rank();
  if (!is_integer(si.dtype))
    detail::fail(op, "", "scatter_indices {} must have an integer element type", si.to_string());
  // (C2)
  if (irank != static_cast<int64_t>(d.update_window_dims.size() + d.inserted_window_dims.size() +
                                    d.input_batching_dims.size()))
    detail::fail(op, "C2",
                 "rank(inputs[0]) {} != size(update_window_dims) {} + "
                 "size(inserted_window_dims) {} + size(input_batching_dims) {}",
                 irank, d.update_window_dims.size(), d.inserted_window_dims.size(),
                 d.input_batching_dims.size());
  // (C7), (C8)
  detail::check_unique(op, "C7", "update_window_dims", d.update_window_dims);
  if (!std::is_sorted(d.update_window_dims.begin(), d.update_window_dims.end()))
    detail::fail(op, "C7", "update_window_dims {} must be sorted",
                 detail::list(d.update_window_dims));
  detail::check_in_range(op, "C8", "update_window_dims", d.update_window_dims, up0.rank());
  // (C9)-(C13)
  std::vector<int64_t> ib = d.inserted_window_dims;
  ib.insert(ib.end(), d.input_batching_dims.begin(), d.input_batching_dims.end());
  detail::check_unique(op, "C9", "inserted_window_dims ++ input_batching_dims", ib);
  if (!std::is_sorted(d.inserted_window_dims.begin(), d.inserted_window_dims.end()))
    detail::fail(op, "C10", "inserted_window_dims {} must be sorted",
                 detail::list(d.inserted_window_dims));
  detail::check_in_range(op, "C11", "inserted_window_dims", d.inserted_window_dims, irank);
  if (!std::is_sorted(d.input_batching_dims.begin(), d.input_batching_dims.end()))
    detail::fail(op, "C12", "input_batching_dims {} must be sorted",
                 detail::list(d.input_batching_dims));
  detail::check_in_range(op, "C13", "input_batching_dims", d.input_batching_dims, irank);
  // (C14)-(C18)
  static constexpr std::string_view kBatchingTags[] = {"C14", "C15", "C16", "C17", "C18"};
  detail::check_batching_dims(op, kBatchingTags, "input", in0.dims, d.input_batching_dims,
                              "scatter_indices", si.dims, d.scatter_indices_batching_dims,
                              d.index_vector_dim);
  // (C22)
  if (d.index_vector_dim < 0 || d.index_vector_dim > srank)
    detail::fail(op, "C22", "index_vector_dim {} outside [0, {}]", d.index_vector_dim, srank);
  // (C19)
  int64_t index_len =
      d.index_vector_dim < srank ? si.dims[static_cast<size_t>(d.index_vector_dim)] : 1;
  if (index_len != kDynamic &&
      static_cast<int64_t>(d.scatter_dims_to_operand_dims.size()) != index_len)
    detail::fail(op, "C19",
                 "scatter_dims_to_operand_dims {} has {} entries, index vectors of {} "
                 "have {}",
                 detail::list(d.scatter_dims_to_operand_dims),
                 d.scatter_dims_to_operand_dims.size(), si.to_string(), index_len);
  // (C20), (C21)
  std::vector<int64_t> sb = d.scatter_dims_to_operand_dims;
  sb.insert(sb.end(), d.input_batching_dims.begin(), d.input_batching_dims.end());
  detail::check_unique(op, "C20", "scatter_dims_to_operand_dims ++ input_batching_dims", sb);
  detail::check_in_range(op, "C21", "scatter_dims_to_operand_dims", d.scatter_dims_to_operand_dims,
                         irank);
  // (C4): updates shape = scatter dims (indices without index_vector_dim) ++ window dims
  Dims scatter_sizes, window_bounds;
  for (int64_t i = 0; i < srank; ++i)
    if (i != d.index_vector_dim) scatter_sizes.push_back(si.dims[static_cast<size_t>(i)]);
  for (int64_t i = 0; i < irank; ++i)
    if (std::find(ib.begin(), ib.end(), i) == ib.end())
      window_bounds.push_back(in0.dims[static_cast<size_t>(i)]);
  if (up0.rank() != static_cast<int64_t>(scatter_sizes.size() + d.update_window_dims.size()))
    detail::fail(op, "C4", "updates {} must have rank {} (scatter dims) + {} (window dims)",
                 up0.to_string(), scatter_sizes.size(), d.update_window_dims.size());
  size_t si_i = 0, wi = 0;
  for (int64_t i = 0; i < up0.rank(); ++i) {
    int64_t u = up0.dims[static_cast<size_t>(i)];
    bool is_window = std::find(d.update_window_dims.begin(), d.update_window_dims.end(), i) !=
                     d.update_window_dims.end();
    if (is_window) {
      int64_t bound = window_bounds[wi++];
      if (u != kDynamic && bound != kDynamic && u > bound)
        detail::fail(op, "C4", "updates {} window dim {} of size {} exceeds the input's {}",
                     up0.to_string(), i, u, bound);
    } else {
      int64_t s = scatter_sizes[si_i++];
      if (!detail::dim_compatible(u, s))
        detail::fail(op, "C4", "updates {} scatter dim {} has size {}, scatter_indices {} give {}",
                     up0.to_string(), i, u, si.to_string(), s);
    }
  }
  return {inputs.begin(), inputs.end()};
}

std::vector<Value> scatter(const std::vector<Value>& inputs, Value scatter_indices,
                           const std::vector<Value>& updates, const ScatterDimensionNumbers& dims,
                           const RegionBody& body, bool indices_are_sorted, bool unique_indices,
                           Loc loc) {
  std::vector<Value> all = inputs;
  all.push_back(scatter_indices);
  all.insert(all.end(), updates.begin(), updates.end());
  Func& f = detail::func_of("scatter", all);
  std::vector<TensorType> results = infer_scatter(detail::types_of(inputs), scatter_indices.type(),
                                                  detail::types_of(updates), dims);
  std::vector<TensorType> scalars;
  for (const TensorType& t : results) scalars.push_back({t.dtype, {}});
  std::vector<TensorType> args = scalars;
  args.insert(args.end(), scalars.begin(), scalars.end());
  Location l = Location::from(loc);
  auto region = f.build_region("scatter", args, body, l);
  // (C23)
  check_region_results("scatter", "C23", region->returned_types(), scalars);
  std::vector<std::unique_ptr<Block>> regions;
  regions.push_back(std::move(region));
  // Unsigned indices made signed (start_indices.h). Scatter does not clamp: an update whose window
  // leaves the input is skipped (implementation-defined in the spec, skipped by XLA). So no
  // clamping to dim - size here, only what keeps an index above INT64_MAX out of bounds rather
  // than negative after the conversion.
  all[inputs.size()] =
      detail::signed_start_indices(scatter_indices, dims.index_vector_dim,
                                   std::vector<int64_t>(dims.scatter_dims_to_operand_dims.size(),
                                                        std::numeric_limits<int64_t>::max()),
                                   loc);
  return f.append({"stablehlo.scatter",
                   all,
                   results,
                   {{"scatter_dimension_numbers", dims},
                    {"indices_are_sorted", BoolAttr{indices_are_sorted}},
                    {"unique_indices", BoolAttr{unique_indices}}},
                   std::move(regions),
                   l});
}

// Descriptors (op_descriptor.h): the shape rule on a recorded op.
namespace {

std::vector<TensorType> infer_scatter_op(const detail::OpInfo& op) {
  const std::vector<TensorType>& in = op.operands;
  size_t nin = (in.size() - 1) / 2;
  std::vector<TensorType> inputs(in.begin(), in.begin() + static_cast<long>(nin)),
      updates(in.begin() + static_cast<long>(nin) + 1, in.end());
  auto out = infer_scatter(inputs, in.at(nin), updates,
                           op.get<ScatterDimensionNumbers>("scatter_dimension_numbers"));
  auto sc = detail::scalar_types(inputs), args = sc;
  args.insert(args.end(), sc.begin(), sc.end());
  op.region_sig(0, args, sc, "C23");
  return out;
}

constexpr detail::OpDescriptor kOps[] = {{"stablehlo.scatter", infer_scatter_op}};

}  // namespace

std::span<const detail::OpDescriptor> detail::scatter_ops() { return kOps; }

}  // namespace hhlo
