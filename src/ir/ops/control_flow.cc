// while, if, case, optimization_barrier; after_all and create_token, which order side effects
// through !stablehlo.token values.
#include "../infer_util.h"
#include "../op_descriptor.h"
#include "hhlo/ir/ops.h"

namespace hhlo {
namespace {

RegionBody no_args(const Branch& b) {
  return [&b](const std::vector<Value>&) { return b(); };
}

}  // namespace

std::vector<Value> while_loop(const std::vector<Value>& operands, const RegionBody& cond,
                              const RegionBody& body, Loc loc) {
  Func& f = detail::func_of("while", operands);
  std::vector<TensorType> types = detail::types_of(operands);
  Location l = Location::from(loc);
  auto c = f.build_region("while", types, cond, l);
  // (C1)
  TensorType pred{DType::pred, {}};
  check_region_results("while", "C1", c->returned_types(), std::span(&pred, 1));
  auto b = f.build_region("while", types, body, l);
  // (C2)
  check_region_results("while", "C2", b->returned_types(), types);
  std::vector<std::unique_ptr<Block>> regions;
  regions.push_back(std::move(c));
  regions.push_back(std::move(b));
  // (C3)
  return f.append({"stablehlo.while", operands, types, {}, std::move(regions), l});
}

std::vector<Value> if_(Value pred, const Branch& true_branch, const Branch& false_branch, Loc loc) {
  Value ops[] = {pred};
  Func& f = detail::func_of("if", ops);
  if (pred.type() != TensorType{DType::pred, {}})
    detail::fail("if", "", "pred {} must be tensor<i1>", pred.type().to_string());
  Location l = Location::from(loc);
  auto t = f.build_region("if", {}, no_args(true_branch), l);
  auto e = f.build_region("if", {}, no_args(false_branch), l);
  std::vector<TensorType> results = t->returned_types();
  // (C2)
  check_region_results("if", "C2", e->returned_types(), results);
  std::vector<std::unique_ptr<Block>> regions;
  regions.push_back(std::move(t));
  regions.push_back(std::move(e));
  // (C3)
  return f.append({"stablehlo.if", {pred}, results, {}, std::move(regions), l});
}

std::vector<Value> case_(Value index, const std::vector<Branch>& branches, Loc loc) {
  Value ops[] = {index};
  Func& f = detail::func_of("case", ops);
  if (index.type() != TensorType{DType::i32, {}})
    detail::fail("case", "", "index {} must be tensor<i32>", index.type().to_string());
  // (C1)
  if (branches.empty()) detail::fail("case", "C1", "needs at least one branch");
  Location l = Location::from(loc);
  std::vector<std::unique_ptr<Block>> regions;
  for (const Branch& b : branches) regions.push_back(f.build_region("case", {}, no_args(b), l));
  std::vector<TensorType> results = regions[0]->returned_types();
  // (C3)
  for (size_t i = 1; i < regions.size(); ++i)
    check_region_results("case", "C3", regions[i]->returned_types(), results);
  // (C4)
  return f.append({"stablehlo.case", {index}, results, {}, std::move(regions), l});
}

std::vector<Value> optimization_barrier(const std::vector<Value>& operands, Loc loc) {
  Func& f = detail::func_of("optimization_barrier", operands);
  return f.append({"stablehlo.optimization_barrier",
                   operands,
                   detail::types_of(operands),
                   {},
                   {},
                   Location::from(loc)});
}

// Descriptors (op_descriptor.h): the shape rules on recorded ops. stablehlo.return, which ends
// every region (Func::build_region), has none: the op owning the region checks what it returns.
namespace {

std::vector<TensorType> infer_while_op(const detail::OpInfo& op) {
  const std::vector<TensorType>& in = op.operands;
  op.region_sig(0, in, {TensorType{DType::pred, {}}}, "C1");
  op.region_sig(1, in, in, "C2");
  return in;
}

// if (C2) and case (C3): at least one branch, each taking nothing and returning what the first
// returns.
std::vector<TensorType> branches(const detail::OpInfo& op, std::string_view s, std::string_view c) {
  if (op.regions->empty()) detail::fail(s, "C1", "needs at least one branch");
  auto out = (*op.regions)[0]->returned_types();
  for (size_t r = 0; r < op.regions->size(); ++r) op.region_sig(r, {}, out, c);
  return out;
}

std::vector<TensorType> infer_if_op(const detail::OpInfo& op) { return branches(op, "if", "C2"); }

std::vector<TensorType> infer_case_op(const detail::OpInfo& op) {
  return branches(op, "case", "C3");
}

std::vector<TensorType> infer_optimization_barrier_op(const detail::OpInfo& op) {
  return op.operands;
}

// after_all (C1: operands are tokens; the result is a token) and create_token (no operands).
std::vector<TensorType> infer_after_all_op(const detail::OpInfo& op) {
  for (size_t i = 0; i < op.operands.size(); ++i)
    if (!is_token(op.operands[i].dtype))
      detail::fail("after_all", "", "operand {} is {}, not !stablehlo.token", i,
                   op.operands[i].to_string());
  return {TensorType{DType::token, {}}};
}

std::vector<TensorType> infer_create_token_op(const detail::OpInfo& op) {
  op.need(0);
  return {TensorType{DType::token, {}}};
}

constexpr detail::OpDescriptor kOps[] = {
    {"stablehlo.after_all", infer_after_all_op},
    {"stablehlo.case", infer_case_op},
    {"stablehlo.create_token", infer_create_token_op},
    {"stablehlo.if", infer_if_op},
    {"stablehlo.optimization_barrier", infer_optimization_barrier_op},
    {"stablehlo.return", nullptr},
    {"stablehlo.while", infer_while_op},
};

}  // namespace

std::span<const detail::OpDescriptor> detail::control_flow_ops() { return kOps; }

}  // namespace hhlo
