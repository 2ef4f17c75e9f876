// The hoisting of large constants out of a prepared program (issue 43 item 6): a program-stage
// pass that makes each large `stablehlo.constant` of `@main`'s body a trailing parameter of
// `@main`, its value kept beside the module. The executable then carries no weights (its HLO
// module and object code hold none): hhlo::load binds the values once, as device buffers, to the
// executable (LoadedExecutable::bind_trailing, hhlo/runtime/executable.h), and keeps them beside
// the compile cache's record, so that a warm load reads them once. Opt-in:
// PrepareOptions::hoist_constants_min_bytes (hhlo/program/program.h), `--hoist-constants BYTES`.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/ir/module.h"
#include "hhlo/runtime/client.h"
#include "hhlo/runtime/executable.h"

namespace hhlo {

/// What hoist_constants did.
struct HoistedConstants {
  /// The copied module: `@main` with every call inlined (attributes of the module, of `@main` and
  /// of its arguments and results kept) and one trailing parameter per hoisted constant, without
  /// argument attributes (no alias, no donation); `module` itself when nothing was hoisted
  /// (then left empty: see `values`).
  Module module;
  /// The values of the new parameters, in order (shared with the constants' attributes).
  std::vector<std::shared_ptr<const Array>> values;
};

/// Copies `module`, making each `stablehlo.constant` among the top-level ops of `@main`'s body
/// (not those inside regions or in functions it calls) whose value holds at least `min_bytes`
/// bytes a new trailing parameter of `@main`, in the order of the ops. Nothing is done (an empty
/// `values`, `module` left default) when `min_bytes` is 0 or below, when the module has more
/// than one partition (`mhlo.num_partitions`: the parameters would need shardings), or when no
/// constant is that large. Throws hhlo::Error when the module has no `@main` that returns, and
/// what inline_call throws (hhlo/ir/inline.h).
HoistedConstants hoist_constants(const Module& module, int64_t min_bytes);

/// Binds `values` (PreparedProgram::hoisted) to `exe`, compiled on `client` from the module
/// hoist_constants made, as device buffers on its device (copied from the arrays, which may go
/// afterwards): LoadedExecutable::bind_trailing. Nothing when `values` is empty. Throws what
/// Client::buffer_from_host and bind_trailing throw (a value whose type is not its parameter's).
void bind_hoisted(LoadedExecutable& exe, const Client& client,
                  const std::vector<std::shared_ptr<const Array>>& values);

}  // namespace hhlo
