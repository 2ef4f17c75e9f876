// One declaration per op's attributes (internal to src/ir): the table src/ir/op_attributes.cc
// holds, and the views of it that the text parser, the bytecode reader and the descriptors read.
// Each function below takes the table as a span, so a test can hand it the table plus one row and
// see every reader pick the row up (tests/ir/op_attributes_test.cc).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace hhlo::detail {

/// What an attribute holds in our IR (and, for the VHLO-only kinds, in VHLO alone).
enum class AttrKind : uint8_t {
  i64_array,    ///< array<i64: ..> (I64ArrayAttr); VHLO: a tensor<Nxi64>, legalized to it
  bool_array,   ///< array<i1: ..> (BoolArrayAttr)
  integer,      ///< an IntAttr
  floating,     ///< a FloatAttr
  boolean,      ///< a BoolAttr
  unit,         ///< a UnitAttr, present when true (VHLO: a bool)
  enumeration,  ///< one of StableHLO's enums (the enum the parser reads is named as the attribute)
  dense,        ///< a dense tensor (constant's value, windows' padding [N, 2] of i64)
  precision_list,  ///< an array of Precision (precision_config)
  dims_struct,     ///< a dimension-numbers struct of our IR (dot, gather, scatter, convolution)
  other,           ///< strings, symbols, dictionaries, layouts, ...: the generic mapping
  vhlo_part,       ///< not in our IR: a field of VHLO (and for custom_call's result_tilings
                   ///< of ODS) the op's bytecode reader folds into an attribute of our IR
                   ///< (dimension-number fields, channel_id) or reads and drops or refuses
};

/// An attribute's default: when the VHLO legalization (VhloLegalizeToStablehlo.cpp) drops it,
/// and whether our IR writes it back (fill_op_defaults) where the text or VHLO left it out.
enum class AttrDefault : uint8_t {
  none,               ///< no default: always present
  ones,               ///< dropped when a splat of 1; filled as 1s, one per dim of operand 0
  spatial_ones,       ///< dropped when a splat of 1; filled as 1s, one per spatial dim (conv)
  one,                ///< kept by the legalization; filled as the integer 1
  minus_one,          ///< dropped when the integer -1; filled as -1
  zero,               ///< dropped when the integer 0
  splat_zero,         ///< dropped when a splat of 0 (windows' padding)
  no,                 ///< dropped when false
  empty,              ///< dropped when empty (string, dictionary, array or tensor)
  enum_zero,          ///< dropped when enum value 0 (compare_type NOTYPE)
  enum_one,           ///< dropped when enum value 1 (custom_call api_version ORIGINAL)
  default_precision,  ///< dropped when every element is DEFAULT
  default_accuracy,   ///< dropped when result_accuracy's mode is DEFAULT
};

/// How the op's pretty form writes the value after its keyword, where the kind does not say.
enum class AttrText : uint8_t {
  by_kind,        ///< i64_array `[1, 2]`, integer `1`, enumeration `WORD`, boolean `true`,
                  ///< bool_array `[false, true]`, precision_list `[DEFAULT, HIGH]`,
                  ///< dims_struct of convolution `[b, 0, f]x[0, i, o]->[b, 0, f]`
  pad_pairs,      ///< `[[0, 1], [1, 0]]`: a dense i64 [N, 2]
  dims_pair,      ///< `[0] x [0]`: the lhs and rhs halves of dot_general's dimension numbers
  bits_format,    ///< `e5m10`: exponent_bits (this row) and mantissa_bits
  dot_algorithm,  ///< `<...>`: kept as the text `#stablehlo.dot_algorithm<...>`
};

/// How an op's ODS definition (StablehloOps.td) holds an attribute: what the properties of plain
/// (non-VHLO) MLIR bytecode hold.
enum class OdsForm : uint8_t {
  none,      ///< not an ODS attribute: VHLO's alone, a discardable one producers add, or the
             ///< op's plain form is not stablehlo.<op> (func, call, chlo's top_k)
  required,  ///< always present (an attribute index in the properties)
  optional,  ///< OptionalAttr, DefaultValuedOptionalAttr, UnitAttr: may be absent
};

/// The StableHLO releases 1.x (x: the minor version) whose op definitions hold an attribute.
struct StablehloReleases {
  uint8_t since = 0;  ///< the first 1.x holding it; 0: every release
  uint8_t until = 0;  ///< the last 1.x holding it; 0: every release from `since` on
};

/// An attribute in its op's ODS definition.
struct OdsDecl {
  OdsForm form = OdsForm::none;
  std::string_view elided = {};     ///< an optional one's ODS default as MLIR text ("false",
                                    ///< "[]", "DEFAULT": result_accuracy's) where StableHLO's
                                    ///< printer elides it; empty: printed as it is
  StablehloReleases releases = {};  ///< the releases holding it
};

/// The VHLO versions of an op that hold an attribute.
struct VhloVersions {
  uint8_t since = 0;  ///< the first version holding it; 0: not in VHLO
  uint8_t until = 0;  ///< the last version holding it; 0: every version from `since` on
};

/// One attribute of one op: one row of kOpAttributes (op_attributes.cc).
struct AttrDecl {
  std::string_view op;    ///< the op without dialect ("reverse"), as VHLO names it
  std::string_view name;  ///< the attribute's name (VHLO's where kind is vhlo_part)
  AttrKind kind;
  OdsDecl ods;                           ///< how ODS holds it (plain bytecode's properties)
  VhloVersions vhlo = {};                ///< the VHLO versions holding it
  AttrDefault dflt = AttrDefault::none;  ///< its default
  std::string_view keyword = {};         ///< pretty-form keyword(s), space-separated;
                                         ///< "window.stride": a field of `window = {..}`
  AttrText text = AttrText::by_kind;     ///< how the pretty form writes its value
};

/// How the text parser reads an op's pretty form.
enum class OpForm : uint8_t {
  own,       ///< its own form (parser_pretty.cc), or the generic form only
  operands,  ///< `stablehlo.op %a, %b [, key = value]* [{attrs}] : types` (parser_keywords.cc)
};

/// One op: its VHLO versions and the readers that take it.
struct OpDecl {
  std::string_view op;        ///< without dialect ("reverse"), as VHLO names it
  uint8_t vhlo;               ///< the newest VHLO version; 0: not a VHLO op
  bool read;                  ///< the bytecode reader reads its VHLO form
  OpForm form = OpForm::own;  ///< its pretty form
};

/// Every op's attributes, grouped by op, each op's in the order our IR fills its defaults.
std::span<const AttrDecl> op_attributes();
/// Every op that has a VHLO form or a pretty form, sorted by name.
std::span<const OpDecl> op_declarations();

/// The attribute names that version `version` of VHLO op `op` (`reverse`, 1: vhlo.reverse_v1)
/// holds per `attrs`, sorted: the order of its properties. Empty for an op without attributes.
std::vector<std::string_view> vhlo_property_order(std::span<const AttrDecl> attrs,
                                                  std::string_view op, int version);
/// The property layouts of plain (non-VHLO) op `stablehlo.<op>` per `attrs`: one per span of
/// StableHLO releases whose ODS holds the same attributes (oldest first), each the op's rows with
/// an ODS form sorted by name (the order ODS writes them). Empty for an op without ODS attributes.
std::vector<std::vector<const AttrDecl*>> plain_property_layouts(std::span<const AttrDecl> attrs,
                                                                 std::string_view op);
/// The row of attribute `name` of `op` in `attrs`, or nullptr.
const AttrDecl* find_attr(std::span<const AttrDecl> attrs, std::string_view op,
                          std::string_view name);
/// The row of `op` in `attrs` whose keywords include `keyword`, or nullptr.
const AttrDecl* find_keyword(std::span<const AttrDecl> attrs, std::string_view op,
                             std::string_view keyword);

/// The rows of `op` in op_attributes() (one run of rows: the table keeps each op's together), in
/// table order: one hash look-up (empty for an op without attributes).
std::span<const AttrDecl> declared_attrs(std::string_view op);
/// find_attr on op_attributes(): one hash look-up.
const AttrDecl* declared_attr(std::string_view op, std::string_view name);
/// find_keyword on op_attributes(): one hash look-up.
const AttrDecl* declared_attr_keyword(std::string_view op, std::string_view keyword);
/// The row of `op` in op_declarations(), or nullptr: one hash look-up.
const OpDecl* declared_op(std::string_view op);

/// Called with (op name, attribute name) by every attribute look-up of a descriptor
/// (OpInfo::attr) while set; nullptr (the default) turns it off. For tests: they record what the
/// descriptors read and check it against the table.
using AttrReadObserver = void (*)(std::string_view op, std::string_view name);
/// Sets the observer (not thread-safe: tests only).
void set_attr_read_observer(AttrReadObserver observer);
/// The observer set, or nullptr.
AttrReadObserver attr_read_observer();

}  // namespace hhlo::detail
