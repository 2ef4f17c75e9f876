// Result types of one recorded op: OpInfo's decoding of attributes and regions, and the dispatch
// from op names to the families' descriptors (op_descriptor.h), shared by the verifier and shape
// refinement (internal to src/ir).
#include "infer_op.h"

#include <fmt/format.h>

#include "hhlo/ir/infer.h"
#include "hhlo/ir/ops.h"
#include "infer_util.h"
#include "op_attributes.h"
#include "op_descriptor.h"

namespace hhlo::detail {

void fail_struct(const std::string& what) { throw OpStructureError(what); }

void OpInfo::missing(std::string_view n) {
  fail_struct(fmt::format("missing or mistyped attribute '{}'", n));
}

const Attribute* OpInfo::attr(std::string_view n) const {
  if (AttrReadObserver seen = attr_read_observer()) seen(name, n);
  for (const auto& a : *attrs)
    if (a.name == n) return &a.value;
  return nullptr;
}

std::vector<std::pair<int64_t, int64_t>> OpInfo::padding() const {
  std::vector<std::pair<int64_t, int64_t>> out;
  const Attribute* a = attr("padding");
  if (!a) return out;
  const DenseAttr* d = a->get_if<DenseAttr>();
  if (!d || d->array->dtype() != DType::i64) fail_struct("padding must be a dense i64 tensor");
  auto v = d->array->values<int64_t>();
  for (size_t i = 0; i + 1 < v.size(); i += 2) out.push_back({v[i], v[i + 1]});
  return out;
}

void OpInfo::need(size_t k) const {
  if (operands.size() != k)
    fail_struct(fmt::format("expects {} operands, has {}", k, operands.size()));
}

DType OpInfo::result_dtype() const {
  if (results.empty()) fail_struct("has no result");
  return results[0].dtype;
}

void OpInfo::region_sig(size_t r, const std::vector<TensorType>& args,
                        const std::vector<TensorType>& rets, std::string_view c) const {
  if (regions->size() <= r) fail_struct(fmt::format("needs region {}", r));
  const Block& b = *(*regions)[r];
  auto got = types_of(b.args());
  if (got != args)
    detail::fail(std::string(name).substr(10), c, "region {} takes {}, expected {}", r,
                 types_to_string(got), types_to_string(args));
  check_region_results(std::string(name).substr(10), c, b.returned_types(), rets);
}

std::vector<TensorType> scalar_types(const std::vector<TensorType>& ts) {
  std::vector<TensorType> out;
  for (const auto& t : ts) out.push_back({t.dtype, {}});
  return out;
}

std::vector<TensorType> infer_op_results(const OpInfo& op) {
  std::string_view n = op.name;
  if (!n.starts_with("stablehlo.")) fail_struct("unknown dialect");
  const OpDescriptor* d = find_op_descriptor(n);
  if (!d || !d->infer) fail_struct("unknown op");
  return d->infer(op);
}

}  // namespace hhlo::detail
