// Module::erase_unreferenced_funcs: private functions nothing refers to (as callee or as a
// composite's decomposition) are removed from a position on, transitively; public ones and the
// referenced stay, and what is left prints and verifies.
#include <gtest/gtest.h>

#include "hhlo/ir/ops.h"
#include "hhlo/ir/printer.h"
#include "hhlo/ir/verifier.h"

namespace hhlo {
namespace {

const TensorType kF32{DType::f32, {2}};

/// A private function @name returning its argument negated (through `inner` when given).
Func& neg_func(Module& m, const std::string& name, const Func* inner = nullptr) {
  Func& f = m.add_func(name, {kF32}, Visibility::private_);
  Value x = inner ? call(*inner, {f.arg(0)})[0] : f.arg(0);
  f.ret({negate(x)});
  return f;
}

std::vector<std::string> names(const Module& m) {
  std::vector<std::string> out;
  for (const auto& f : m.funcs()) out.push_back(f->name());
  return out;
}

TEST(EraseUnreferencedFuncs, RemovesTheUnreferencedFromAPositionOnTransitively) {
  Module m;
  Func& called = neg_func(m, "called");
  Func& decomposition = neg_func(m, "decomposition");
  Func& main = m.add_func("main", {kF32});
  Value y = call(called, {main.arg(0)})[0];
  main.ret(composite("test.neg", {y}, decomposition));
  Func& leaf = neg_func(m, "only_dead_calls_me");
  neg_func(m, "dead", &leaf);
  Func& unused = m.add_func("public_unused", {kF32});
  unused.ret({unused.arg(0)});
  EXPECT_EQ(m.erase_unreferenced_funcs(3), 2u);
  EXPECT_EQ(names(m),
            (std::vector<std::string>{"called", "decomposition", "main", "public_unused"}));
  EXPECT_NO_THROW(verify(m));
  EXPECT_EQ(m.erase_unreferenced_funcs(0), 0u);
}

TEST(EraseUnreferencedFuncs, LeavesFunctionsBeforeTheFirstPosition) {
  Module m;
  neg_func(m, "old_dead");
  Func& main = m.add_func("main", {kF32});
  main.ret({main.arg(0)});
  neg_func(m, "new_dead");
  EXPECT_EQ(m.erase_unreferenced_funcs(1), 1u);
  EXPECT_EQ(names(m), (std::vector<std::string>{"old_dead", "main"}));
}

}  // namespace
}  // namespace hhlo
