// The MLIR text of each attribute kind, printer and parser side by side (internal). As MLIR
// defines an attribute once, one file per family under src/ir/attrs/ holds both directions of
// its kinds: `print_attr` (what to_string in attribute.cc calls for the kind) next to the reader
// that Parser::parse_attribute (parser_attrs.cc) calls on the kind's leading token; a
// `keyword<...>` form is found by its keyword in kKeywordAttrs.
//
// A new attribute kind: its struct in the variant of hhlo/ir/attribute.h; its print_attr and its
// reader in its family's file, declared below; a row of kKeywordAttrs when its text starts with a
// keyword (`#dialect.name<`, `name<`).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "hhlo/ir/attribute.h"

namespace hhlo::parse {
class Parser;
}

namespace hhlo::detail {
using parse::Parser;

// Readers of a `keyword<...>` form are called at the keyword (the `<` right after it) and return
// nullopt for a text they have no typed form for, which is then kept opaque (OpaqueAttr).

// ---- builtin.cc: `5 : i32`, `1.5 : f32`, `true`, `unit`, `"text"`, `@sym`, `[a, b]`, `{k = v}`,
// kept text
std::string print_attr(const IntAttr& a);
std::string print_attr(const FloatAttr& a);
std::string print_attr(const BoolAttr& a);
std::string print_attr(const UnitAttr& a);
std::string print_attr(const StringAttr& a);
std::string print_attr(const SymbolRefAttr& a);
std::string print_attr(const ArrayAttr& a);
std::string print_attr(const DictAttr& a);
std::string print_attr(const OpaqueAttr& a);
/// A number, with `: type` when given (`-1`, `2.5 : f32`, `0x7FC00000 : f32`; `0 : index` kept
/// as text). `start` is where the attribute starts.
Attribute parse_number_attr(Parser& p, size_t start);
/// A string; the value of `mhlo.sharding` (`name`) is checked to be a GSPMD sharding; a typed
/// string (`"s" : i32`) is kept as text.
Attribute parse_string_attr(Parser& p, size_t start, std::string_view name);
/// `@name`; a nested `@a::@b` is kept as text.
Attribute parse_symbol_attr(Parser& p, size_t start);
/// `[a, b, ...]`; the value of `operand_layouts` / `result_layouts` (`name`) as a LayoutsAttr.
Attribute parse_list_attr(Parser& p, size_t start, std::string_view name);
/// `{a = 1, b}`
Attribute parse_dict_attr(Parser& p);

// ---- dense_array.cc: `array<i64: 1, 2>`, `array<i1: true>`
std::string print_attr(const I64ArrayAttr& a);
std::string print_attr(const BoolArrayAttr& a);
std::optional<Attribute> parse_dense_array(Parser& p);

// ---- dense.cc: `dense<...> : tensor<...>` (the reader is Parser::parse_dense)
/// Splats as one literal, pred and small integer arrays (<= 16 elements) as nested lists, others
/// as hex bytes. pred is a list at every size because MLIR's hex form of i1 changed (packed bits,
/// 8 a byte, up to the 0.81 plugin; one byte per element in the 0.115 one): a list is read alike
/// by every plugin.
std::string print_attr(const DenseAttr& a);

// ---- layouts.cc: `[dense<[1, 0]> : tensor<2xindex>, ...]` (custom_call layouts)
std::string print_attr(const LayoutsAttr& a);
/// At the '['; nullopt (the caller rewinds) when an entry is not `dense<[..]> : tensor<Nxindex>`.
std::optional<Attribute> parse_layouts(Parser& p);

// ---- enums.cc: `#stablehlo<comparison_direction EQ>`, ... (and Parser::parse_enum_word)
std::string print_attr(ComparisonDirection v);
std::string print_attr(ComparisonType v);
std::string print_attr(Precision v);
std::string print_attr(RngDistribution v);
std::string print_attr(RngAlgorithm v);
std::string print_attr(FftType v);
std::string print_attr(Transpose v);
std::optional<Attribute> parse_stablehlo_enum(Parser& p);

// ---- dimension_numbers.cc: `#stablehlo.dot<...>`, `#stablehlo.gather<...>`,
// `#stablehlo.scatter<...>`, `#stablehlo.conv<[b, f, 0]x[o, i, 0]->[b, f, 0]>` (or `conv<raw
// ...>`; the layouts also Parser::parse_conv_layouts)
std::string print_attr(const DotDimensionNumbers& d);
std::string print_attr(const GatherDimensionNumbers& d);
std::string print_attr(const ScatterDimensionNumbers& d);
std::string print_attr(const ConvDimensionNumbers& d);
std::optional<Attribute> parse_dot_dims(Parser& p);
std::optional<Attribute> parse_gather_dims(Parser& p);
std::optional<Attribute> parse_scatter_dims(Parser& p);
std::optional<Attribute> parse_conv_dims(Parser& p);

// ---- channel_handle.cc: `#stablehlo.channel_handle<handle = 1, type = 0>`
std::string print_attr(const ChannelHandle& c);
std::optional<Attribute> parse_channel_handle(Parser& p);

// ---- sdy.cc: `#sdy.sharding<@mesh, [{"x"}, {}]>`, `#sdy.sharding_per_value<[...]>`,
// `#sdy<manual_axes{"x"}>` (also the mesh of `sdy.mesh`, parse::scan_mesh)
std::string print_attr(const ShardingAttr& a);
std::string print_attr(const ShardingPerValueAttr& a);
std::string print_attr(const ManualAxesAttr& a);
std::optional<Attribute> parse_sharding(Parser& p);
std::optional<Attribute> parse_sharding_per_value(Parser& p);
std::optional<Attribute> parse_manual_axes(Parser& p);

/// A boxed kind prints as its value.
template <typename T>
std::string print_attr(const Boxed<T>& b) {
  return print_attr(*b);
}

/// The reader of the attributes whose text starts `keyword<`.
struct KeywordAttr {
  std::string_view keyword;
  std::optional<Attribute> (*parse)(Parser& p);
};
inline constexpr KeywordAttr kKeywordAttrs[] = {
    {"#stablehlo", parse_stablehlo_enum},
    {"#stablehlo.channel_handle", parse_channel_handle},
    {"#stablehlo.dot", parse_dot_dims},
    {"#stablehlo.gather", parse_gather_dims},
    {"#stablehlo.scatter", parse_scatter_dims},
    {"#stablehlo.conv", parse_conv_dims},
    {"#sdy.sharding", parse_sharding},
    {"#sdy.sharding_per_value", parse_sharding_per_value},
    {"#sdy", parse_manual_axes},
    {"array", parse_dense_array},
};

}  // namespace hhlo::detail
