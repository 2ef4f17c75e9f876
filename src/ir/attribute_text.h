// Literal formatting shared by the attribute and module printers (internal).
#pragma once

#include <string>
#include <string_view>

#include "hhlo/core/array.h"
#include "hhlo/ir/attribute.h"

namespace hhlo::detail {
/// Exact MLIR float literal of `v` as element type `t` (decimal with '.', or hex bits for
/// NaN/Inf and for f16/bf16).
std::string format_float(double v, DType t);
/// `@name`, or `@"quoted name"` when name is not a bare MLIR identifier.
std::string symbol_ref(std::string_view name);
/// MLIR string literal with quotes and escapes.
std::string escape_string(std::string_view s);
/// `dense<...> : tensor<...>`: splats as one literal, pred and small integer arrays (<= 16
/// elements) as nested lists, others as hex bytes. pred is a list at every size because MLIR's
/// hex form of i1 changed (packed bits, 8 a byte, up to the 0.81 plugin; one byte per element in
/// the 0.115 one): a list is read alike by every plugin.
std::string dense_literal(const Array& a);
/// `{a = ..., b = ...}` in the order given (function, result and module attributes).
std::string attr_dict(const std::vector<NamedAttr>& attrs);
}  // namespace hhlo::detail
