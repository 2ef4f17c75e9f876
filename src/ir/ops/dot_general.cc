// dot_general: batched tensor contraction.
#include <algorithm>

#include "../infer_util.h"
#include "../op_descriptor.h"
#include "hhlo/ir/ops.h"

namespace hhlo {

TensorType infer_dot_general(const TensorType& lhs, const TensorType& rhs,
                             const DotDimensionNumbers& dn, size_t precision_config_size,
                             std::optional<DType> preferred) {
  constexpr std::string_view op = "dot_general";
  const auto &lb = dn.lhs_batching_dimensions, &rb = dn.rhs_batching_dimensions;
  const auto &lc = dn.lhs_contracting_dimensions, &rc = dn.rhs_contracting_dimensions;
  // (C1)
  if (lb.size() != rb.size())
    detail::fail(op, "C1",
                 "lhs_batching_dimensions {} and rhs_batching_dimensions {} differ in size",
                 detail::list(lb), detail::list(rb));
  // (C2)
  if (lc.size() != rc.size())
    detail::fail(op, "C2",
                 "lhs_contracting_dimensions {} and rhs_contracting_dimensions {} differ "
                 "in size",
                 detail::list(lc), detail::list(rc));
  std::vector<int64_t> l = lb, r = rb;
  l.insert(l.end(), lc.begin(), lc.end());
  r.insert(r.end(), rc.begin(), rc.end());
  // (C3), (C4)
  detail::check_unique(op, "C3", "lhs batching ++ contracting dimensions", l);
  detail::check_unique(op, "C4", "rhs batching ++ contracting dimensions", r);
  // (C5)-(C8)
  detail::check_in_range(op, "C5", "lhs_batching_dimensions", lb, lhs.rank());
  detail::check_in_range(op, "C6", "lhs_contracting_dimensions", lc, lhs.rank());
  detail::check_in_range(op, "C7", "rhs_batching_dimensions", rb, rhs.rank());
  detail::check_in_range(op, "C8", "rhs_contracting_dimensions", rc, rhs.rank());
  auto ld = [&](int64_t d) { return lhs.dims[static_cast<size_t>(d)]; };
  auto rd = [&](int64_t d) { return rhs.dims[static_cast<size_t>(d)]; };
  // (C9)
  for (size_t i = 0; i < lb.size(); ++i)
    if (!detail::dim_compatible(ld(lb[i]), rd(rb[i])))
      detail::fail(op, "C9",
                   "lhs batching dim {} has size {}, rhs batching dim {} has size {}; lhs "
                   "{}, rhs {}",
                   lb[i], ld(lb[i]), rb[i], rd(rb[i]), lhs.to_string(), rhs.to_string());
  // (C10)
  for (size_t i = 0; i < lc.size(); ++i)
    if (!detail::dim_compatible(ld(lc[i]), rd(rc[i])))
      detail::fail(op, "C10",
                   "lhs contracting dim {} has size {}, rhs contracting dim {} has size "
                   "{}; lhs {}, rhs {}",
                   lc[i], ld(lc[i]), rc[i], rd(rc[i]), lhs.to_string(), rhs.to_string());
  // (C11)
  if (precision_config_size != 0 && precision_config_size != 2)
    detail::fail(op, "C11", "precision_config has {} entries; it needs 0 or 2",
                 precision_config_size);
  if (lhs.dtype != rhs.dtype && !preferred)
    detail::fail(op, "C13",
                 "element types differ: lhs {}, rhs {}; convert one operand or pass "
                 "preferred_element_type",
                 lhs.to_string(), rhs.to_string());
  Dims dims;
  for (int64_t d : lb) dims.push_back(ld(d));
  for (int64_t d = 0; d < lhs.rank(); ++d)
    if (std::find(l.begin(), l.end(), d) == l.end()) dims.push_back(ld(d));
  for (int64_t d = 0; d < rhs.rank(); ++d)
    if (std::find(r.begin(), r.end(), d) == r.end()) dims.push_back(rd(d));
  return TensorType{preferred.value_or(lhs.dtype), dims};
}

Value dot_general(Value lhs, Value rhs, const DotDimensionNumbers& dims, const DotOptions& options,
                  Loc loc) {
  Value ops[] = {lhs, rhs};
  Func& f = detail::func_of("dot_general", ops);
  TensorType t = infer_dot_general(lhs.type(), rhs.type(), dims, options.precision_config.size(),
                                   options.preferred_element_type);
  std::vector<NamedAttr> attrs = {{"dot_dimension_numbers", dims}};
  if (!options.precision_config.empty()) {
    ArrayAttr pc;
    for (Precision p : options.precision_config) pc.values.push_back(p);
    attrs.push_back({"precision_config", std::move(pc)});
  }
  return f.append(
      {"stablehlo.dot_general", {lhs, rhs}, {t}, std::move(attrs), {}, Location::from(loc)})[0];
}

// Descriptors (op_descriptor.h): the shape rule on a recorded op.
namespace {

std::vector<TensorType> infer_dot_general_op(const detail::OpInfo& op) {
  op.need(2);
  const std::vector<TensorType>& in = op.operands;
  const Attribute* pc = op.attr("precision_config");
  size_t npc = pc && pc->get_if<ArrayAttr>() ? pc->get_if<ArrayAttr>()->values.size() : 0;
  // The result element type is the builder's preferred_element_type when it differs from the
  // lhs type, and also when the operand types differ (the builder takes mixed operands only
  // with one, which may equal the lhs type).
  DType rd = op.result_dtype();
  bool preferred = rd != in[0].dtype || in[0].dtype != in[1].dtype;
  return {infer_dot_general(in[0], in[1], op.get<DotDimensionNumbers>("dot_dimension_numbers"), npc,
                            preferred ? std::optional<DType>(rd) : std::nullopt)};
}

constexpr detail::OpDescriptor kOps[] = {{"stablehlo.dot_general", infer_dot_general_op}};

}  // namespace

std::span<const detail::OpDescriptor> detail::dot_general_ops() { return kOps; }

}  // namespace hhlo
