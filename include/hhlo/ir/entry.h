// Choosing the function a PJRT plugin runs, and the argument conventions of `jax.export` that no
// plugin knows. Plugins always run `@main` (PJRT_Client_Compile); these make any public function
// the entry and bind a multi-platform export's `_platform_index` argument. See docs/ir.md
// "Entry functions".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "hhlo/ir/module.h"

namespace hhlo {

/// The name of the function to run as the entry of `module`: `requested` when given (it must be
/// a public function), else `main`, else the module's only public function.
/// Throws hhlo::Error naming the public functions when `requested` is not one of them, or when
/// nothing was requested, there is no `@main` and the module has zero or several public
/// functions ("choose one").
std::string resolve_entry(const Module& module, std::string_view requested = "");

/// Makes resolve_entry(module, requested) the module's `@main`: another function already named
/// `@main` is renamed `@main_N` (the first free N) and made private, then the entry is renamed
/// `@main`; every func.call and symbol reference follows (Module::rename_func). Returns the
/// entry's original name. Throws as resolve_entry.
std::string select_entry(Module& module, std::string_view requested = "");

/// True when argument `i` of `f` is read by an op of its body (or of a nested region).
/// Throws std::out_of_range when `i` is not an argument index.
bool uses_argument(const Func& f, size_t i);

/// True when the first argument of `f` is the platform index of a multi-platform `jax.export`:
/// a rank-0 integer tensor with `{jax.global_constant = "_platform_index"}`.
bool has_platform_index(const Func& f);

/// Binds the platform index of a multi-platform `jax.export` (has_platform_index(@main)) to
/// `index`, the position of the running platform in the export's platforms list
/// (`Exported.platforms`): the old `@main` becomes the private `@main_N` (first free N) and a
/// new public `@main`, with the other arguments and every argument and result attribute, calls it
/// with `index` as a constant of the argument's type.
/// Throws hhlo::Error when the module has no `@main`, when `@main` has no platform index
/// argument, or when `index` is negative.
void bind_platform_index(Module& module, int64_t index);

/// bind_platform_index with `index` when given (the running platform's position, e.g. from
/// platform_index_for in hhlo/ir/refine.h), else with 0 when @main's code never reads its
/// platform index (JAX's exports that differ only in platform-independent ways). The one place
/// both the runtime's compile and shape refinement bind it. Throws hhlo::Error, naming `source`
/// ("the program" when empty),
/// when no index is given and the code reads it (saying to give the export's platforms), and what
/// bind_platform_index throws.
void bind_platform_index(Module& module, std::optional<int64_t> index, std::string_view source);

}  // namespace hhlo
