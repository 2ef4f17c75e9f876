// Internal to the IR: facts of the StableHLO dialect itself, independent of what hhlo builds.
#pragma once

#include <string_view>
#include <vector>

#include "hhlo/ir/module.h"

namespace hhlo::detail {

/// True when `name` ("stablehlo.add") names an op of the StableHLO dialect (the ops of
/// stablehlo/dialect/StablehloOps.td, including the dynamic and deprecated ones), whether or not
/// hhlo has a shape rule for it. `stablehlo.frobnicate` is not one: the plugin refuses it.
bool is_stablehlo_op(std::string_view name);

/// A cycle of calls between the functions of a module: every reference of an op's attribute to a
/// function is an edge (`func.call` callees, `stablehlo.composite` decompositions, a custom
/// call's `called_computations`, a symbol inside an attribute kept as text, in arrays and
/// dictionaries too). StableHLO has no recursion (a program that calls itself crashed the
/// plugin's compile, more than 2,200 frames deep; through called_computations, SIGSEGV).
struct CallCycle {
  /// The function names along the cycle, the first repeated at the end ({"main", "f", "main"}).
  std::vector<std::string_view> names;
  /// The call that closes the cycle.
  const Op* op = nullptr;
  /// The attribute of `op` that names the callee ("callee", "decomposition",
  /// "called_computations", ...).
  std::string_view attr;
};

/// The first call cycle of `module` in function order, or a CallCycle with no names. Never throws.
CallCycle find_call_cycle(const Module& module);

/// Throws hhlo::Error "function @f calls itself: ..." or "call cycle @main -> @f -> @g -> @f: ..."
/// for the first call cycle of `module`, after setting `*failed_op` (if not null) to the call
/// that closes it; a cycle closed by another reference than a callee or decomposition adds
/// "through 'called_computations'" (the attribute's name).
void check_no_call_cycle(const Module& module, const Op** failed_op);

}  // namespace hhlo::detail
