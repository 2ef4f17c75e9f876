// A program's entry batched by vmap: the per-example `@main` of a program exported without a
// batch dimension becomes a `@main` over a new leading axis (PrepareOptions::vmap_batch), so
// that the model server batches it (docs/serving.md, "Batching by vmap").
#pragma once
#include <cstdint>

#include "hhlo/ir/module.h"

namespace hhlo {

/// Replaces `module`'s `@main` (static argument and result types) with `@main` taking and
/// returning `batch` stacked examples: each argument and result type gains a leading dimension
/// of `batch`, the body is ad::vmap of the old `@main` with in_axes and out_axes 0 (its calls
/// inlined), and the argument and result attributes (JAX's names, donation) are kept. The old
/// `@main` and the private functions only it called are removed. Throws hhlo::Error when
/// `batch` < 1, the module has no `@main` or it has a dynamic argument type, and what ad::vmap
/// throws (an op without a batching rule, named).
void vmap_main(Module& module, int64_t batch);

}  // namespace hhlo
