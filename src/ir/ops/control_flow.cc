// while, if, case, optimization_barrier.
#include "../infer_util.h"
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

}  // namespace hhlo
