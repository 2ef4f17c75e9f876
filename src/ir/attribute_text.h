// Literal formatting shared by the attribute and module printers, and the text forms the text
// parser and the bytecode reader both build (internal).
#pragma once

#include <string>
#include <string_view>

#include "hhlo/core/array.h"
#include "hhlo/ir/attribute.h"
#include "hhlo/ir/module.h"

namespace hhlo::detail {
/// Exact MLIR float literal of `v` as element type `t` (decimal with '.', or hex bits for
/// NaN/Inf and for f16, bf16 and the narrow floats).
std::string format_float(double v, DType t);
/// `@name`, or `@"quoted name"` when name is not a bare MLIR identifier.
std::string symbol_ref(std::string_view name);
/// MLIR string literal with quotes and escapes.
std::string escape_string(std::string_view s);
/// `{a = ..., b = ...}` in the order given (function, result and module attributes).
std::string attr_dict(const std::vector<NamedAttr>& attrs);
/// The value of a float given by its bit pattern (`0x7FC00000` in text, the APFloat bits of
/// bytecode) in dtype `t` (f16, bf16, f32, the narrow floats; f64 otherwise).
double float_from_bits(DType t, uint64_t bits);
/// The bits of `v` rounded to the narrow float type `t` (f4E2M1FN ... f8E8M0FNU; dtype.h's
/// narrow_float); 0 for any other type.
uint8_t narrow_float_bits(DType t, double v);
/// A location as the parser keeps it nested in another (`"file":line:col`, else its MLIR text,
/// "unknown" when empty).
std::string location_text(const Location& l);
/// The longest MLIR text a location keeps (4 KiB).
inline constexpr std::size_t kMaxLocationText = 4096;
/// A location kept as its MLIR text (call-site, fused, name): at most kMaxLocationText of it,
/// else unknown (deep alias chains).
Location capped_location(std::string text);
}  // namespace hhlo::detail
