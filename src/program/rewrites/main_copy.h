// The copy of a prepared module that the program stage's opt-in rewrites (oneDNN convolutions,
// loop unrolling) make: `@main` with every call inlined and a rewrite consulted for each of its
// ops (inline_call's InlineRewrite), everything else of the module kept (internal to
// src/program).
#pragma once

#include <string_view>

#include "hhlo/ir/inline.h"
#include "hhlo/ir/module.h"

namespace hhlo::detail {

/// A module with `module`'s name, attributes and meshes, whose one function `@main` is
/// `module`'s `@main` inlined (every func.call too) with `rewrite` consulted for each op of its
/// body (and, with `scope` regions_too, of its regions), its argument and result attributes,
/// function attributes and return location kept. Throws hhlo::Error naming `who` when the module
/// has no `@main` that returns, and what inline_call throws.
Module copy_main(const Module& module, const InlineRewrite& rewrite, std::string_view who,
                 RewriteScope scope = RewriteScope::bodies);

}  // namespace hhlo::detail
