// The MLIR bytecode reader's state (internal; hhlo/ir/bytecode.h is the interface). The reader is
// split by topic: bytecode_reader.cc (cursor, varints, sections, strings, dialects, the
// attribute/type tables, properties), bytecode_builtin.cc (the builtin dialect's types and
// attributes, locations), bytecode_vhlo_types.cc / bytecode_vhlo_attrs.cc (VHLO's),
// bytecode_vhlo_codes.cc (the VHLO attribute and type codes), bytecode_stablehlo.cc (the
// stablehlo and chlo dialects' own encodings, and their ops' attributes as parse_module makes
// them), bytecode_stablehlo_props.cc (the properties of stablehlo, chlo and func ops),
// bytecode_vhlo_ops.cc (the IR section into a Module: VHLO ops mapped to StableHLO, plain
// stablehlo/chlo/func ops as they are), bytecode_resources.cc (the resource sections and
// dense_resource attributes).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hhlo/ir/bytecode.h"
#include "hhlo/ir/module.h"

namespace hhlo::bc {

/// Deepest nesting of attributes, types and regions accepted.
inline constexpr int kMaxDepth = 200;

class Reader;

/// Reads one section (or a sub-range of it) of the bytecode; every read is bounds-checked and a
/// failure throws ParseError naming the section and the absolute byte offset.
class Cursor {
 public:
  Cursor(const Reader* r, std::string_view section, const uint8_t* begin, const uint8_t* end);
  bool empty() const { return p_ == end_; }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }
  /// Absolute offset of the next byte in the whole bytecode.
  size_t offset() const;
  std::string_view section() const { return section_; }
  uint8_t byte();
  /// MLIR's PrefixVarInt (1 to 9 bytes).
  uint64_t varint();
  /// A zigzag-encoded signed varint.
  int64_t svarint();
  /// `(value << 1) | flag`.
  uint64_t varint_flag(bool& flag);
  /// A varint that must be below `limit` (an index or a count), else ParseError naming `what`.
  uint64_t index(uint64_t limit, std::string_view what);
  std::span<const uint8_t> bytes(size_t n);
  std::string_view cstring();
  /// The next `n` bytes as a cursor of their own.
  Cursor sub(size_t n, std::string_view section);
  /// A nested section (header, alignment, data) as a cursor; its id is returned in `id`.
  Cursor section_at(uint8_t& id);
  [[noreturn]] void fail(std::string expected, std::string found) const;
  [[noreturn]] void fail_at(size_t offset, std::string expected, std::string found) const;

 private:
  const Reader* r_;
  std::string_view section_;
  const uint8_t* p_;
  const uint8_t* end_;
};

/// A type read from the attribute/type table.
struct BcType {
  enum class Kind : uint8_t { element, tensor, function, complex, index, none, other };
  Kind kind = Kind::other;
  DType dtype = DType::f32;     // element, tensor, complex (complex: c64 / c128)
  Dims dims;                    // tensor
  bool index_elements = false;  // a tensor of `index` (custom_call layouts); dtype is then i64
  std::vector<const BcType*> inputs, outputs;  // function
  std::string what;   // for `other`: what it is ("vhlo.token_v1"), named by errors when used
  size_t offset = 0;  // where its entry starts (errors)
};

/// An attribute read from the attribute/type table (VHLO or builtin), before it is mapped to the
/// attribute of the op that holds it.
struct BcAttr {
  enum class Kind : uint8_t {
    integer,
    floating,
    boolean,
    string,
    tensor,
    array,
    dict,
    enumeration,
    type,
    unit,
    location,
    opaque,  // kept as MLIR text in `s`, as the text parser keeps it (OpaqueAttr)
    symbol,  // a builtin `@name` (FlatSymbolRefAttr), name in `s`
    sdy,     // a Shardy attribute: `what` its kind ("sharding", ...), `s` its text after the kind
    typed,   // already our attribute (`value`): what the text parser makes of its text
    other
  };
  Kind kind = Kind::other;
  int64_t i = 0;                     // integer, boolean, enumeration (the encoded value)
  double f = 0;                      // floating
  std::string s;                     // string; enumeration: its kind ("comparison_direction", ...)
  const BcType* type = nullptr;      // integer, floating, tensor, type
  std::vector<uint8_t> data;         // tensor: raw little-endian elements (one element for a splat)
  std::vector<const BcAttr*> elems;  // array
  std::vector<std::pair<const BcAttr*, const BcAttr*>> entries;  // dict (keys are strings)
  Location loc;                                                  // location
  Attribute value = UnitAttr{};                                  // typed
  std::string what;                                              // other: what it is
  size_t offset = 0;
};

/// One attribute or type entry of the table: its dialect, encoding and bytes.
struct Entry {
  uint32_t dialect = 0;
  bool custom = false;
  const uint8_t* begin = nullptr;
  const uint8_t* end = nullptr;
};

/// One dialect resource of the resource-offset section, in declaration order: the index of the
/// handle that DenseResourceElementsAttr (builtin attribute code 16) refers to.
struct Resource {
  uint32_t dialect = 0;
  std::string_view key;
  uint8_t kind = 0;               // MLIR's AsmResourceEntryKind: 0 blob, 1 bool, 2 string
  bool declared_only = false;     // no data (a declaration: MLIR allows it)
  std::span<const uint8_t> blob;  // a builtin blob's data, its alignment padding skipped
  size_t offset = 0;              // where its data starts in the bytecode (errors)
};

/// An op name of the dialect section.
struct OpName {
  uint32_t dialect = 0;
  std::string_view name;
  bool registered = true;
};

/// The whole reader: sections and tables, filled by bytecode_reader.cc, used by the rest.
class Reader {
 public:
  Reader(std::span<const uint8_t> bytes, const BytecodeOptions& options);
  Module run();

  // ---- bytecode_reader.cc
  const BytecodeOptions& options() const { return opts_; }
  size_t offset_of(const uint8_t* p) const { return static_cast<size_t>(p - bytes_.data()); }
  std::string_view string_at(uint64_t i, const Cursor& c) const;
  std::string_view string(Cursor& c) const { return string_at(c.varint(), c); }
  const std::string& dialect_name(uint32_t i) const { return dialects_[i]; }
  const OpName& op_name(Cursor& c) const;
  uint64_t version() const { return version_; }
  /// The properties blob at index `i` of the properties section.
  Cursor properties(uint64_t i, const Cursor& c) const;

  // ---- bytecode_vhlo_types.cc / bytecode_vhlo_attrs.cc (memoised, read on first use)
  const BcType& type(uint64_t i, const Cursor& c);
  const BcAttr& attr(uint64_t i, const Cursor& c);
  const BcType& type(Cursor& c) { return type(c.varint(), c); }
  const BcAttr& attr(Cursor& c) { return attr(c.varint(), c); }

  // ---- bytecode_vhlo_ops.cc
  Module read_ir(Cursor c);

 private:
  void read_sections();
  void read_strings(Cursor c);
  void read_dialects(Cursor c);
  void read_attr_type_offsets(Cursor c, std::span<const uint8_t> data);
  void read_properties(Cursor c);
  // ---- bytecode_resources.cc: the resource and resource-offset sections, dense_resource
  void read_resources(std::optional<Cursor> data, std::optional<Cursor> offsets);
  void read_resource_group(Cursor& offsets, Cursor& data, std::optional<uint32_t> dialect);
  /// DenseResourceElementsAttr: a shaped type and a resource handle, its blob as a tensor.
  BcAttr read_dense_resource(Cursor& c);
  BcType read_type(const Entry& e, Cursor& c);
  BcAttr read_attr(const Entry& e, Cursor& c);
  BcType read_vhlo_type(Cursor& c);
  BcType read_builtin_type(Cursor& c);
  /// A ranked tensor type's shape and element type (VHLO's and builtin's encodings agree).
  BcType ranked_tensor(Cursor& c);
  BcAttr read_vhlo_attr(Cursor& c);
  BcAttr read_builtin_attr(Cursor& c);
  BcAttr read_sdy_attr(Cursor& c);
  BcAttr read_tensor_data(Cursor& c, const BcType& t);
  BcAttr read_dense_array(Cursor& c);
  /// A result accuracy's fields (atol and rtol as 64-bit APFloats, ulps, the mode attribute), as
  /// VHLO's ResultAccuracyV1Attr and StableHLO's ResultAccuracyAttr both write them: kept as the
  /// text StableHLO prints, `i` = 1 when it is the default (which the legalization drops).
  /// `at` is where the attribute starts, for errors.
  BcAttr read_result_accuracy(Cursor& c, size_t at);
  // ---- bytecode_stablehlo.cc: the stablehlo and chlo dialects' own encodings, and an
  // attribute written as its text (no encoding of its own), read as the text parser reads it
  BcType read_stablehlo_type(Cursor& c);
  BcAttr read_stablehlo_attr(Cursor& c);
  BcAttr read_chlo_attr(Cursor& c);
  BcAttr read_text_attr(std::string_view text, const Cursor& c);

  std::span<const uint8_t> bytes_;
  BytecodeOptions opts_;
  uint64_t version_ = 0;
  std::string producer_;
  std::optional<Cursor> sections_[9];
  std::vector<std::string_view> strings_;
  std::vector<std::string> dialects_;
  std::vector<OpName> op_names_;
  std::vector<Entry> attr_entries_, type_entries_;
  std::vector<std::unique_ptr<BcAttr>> attrs_;
  std::vector<std::unique_ptr<BcType>> types_;
  std::vector<uint8_t> busy_attrs_, busy_types_;
  std::vector<std::pair<const uint8_t*, const uint8_t*>> props_;
  std::vector<Resource> resources_;
  int depth_ = 0;
  friend class Cursor;
  friend struct Depth;
};

/// RAII nesting guard: ParseError past kMaxDepth.
struct Depth {
  int& d;
  Depth(int& depth, const Cursor& c);
  ~Depth() { --d; }
};

/// The attribute names of VHLO op `op` (`add_v1`), sorted: the order of its properties; nullptr
/// for an op VHLO does not have.
const std::vector<std::string_view>* vhlo_attr_names(std::string_view op);

/// Every VHLO op name of that table (`add_v1`, ...), in no particular order.
std::vector<std::string_view> vhlo_op_names();

/// The newest version of VHLO op `base` (`add`, no version suffix) this reader knows (1 for add:
/// `vhlo.add_v1`), or 0 when VHLO has no op of that name. Never throws.
int newest_vhlo_version(std::string_view base);

/// Throws ParseError at `at` when `op` (a VHLO op name without dialect, `add_v9`) is an op VHLO
/// has, of a version this reader does not know: "vhlo.add_v9: version 9 of add, newer than the
/// newest this reader knows (version 1, vhlo.add_v1)" (written by a newer StableHLO, whose op may
/// mean something else). Returns for known versions and for names VHLO has no op of.
void check_vhlo_version(std::string_view op, const Cursor& c, size_t at);

/// A VHLO attribute or type code of the bytecode and its mnemonic (`tensor_v1`).
struct VhloCode {
  uint64_t code;
  std::string_view name;
};
/// Every VHLO attribute code (VhloBytecode.cpp's AttributeCode, 1 to 25), read here or not.
std::span<const VhloCode> vhlo_attr_codes();
/// Every VHLO type code (VhloBytecode.cpp's TypeCode, 0 to 42), read here or not.
std::span<const VhloCode> vhlo_type_codes();
/// What an error says of an attribute code not read: "attribute code 18 (vhlo.type_extensions_v1)",
/// or for a code above the newest known "attribute code 26, newer than the newest this reader
/// knows (25, vhlo.mesh_v1): written by a newer StableHLO".
std::string vhlo_attr_code_text(uint64_t code);
/// The same for a type code ("type code 6 (vhlo.f8E4M3FN_v1)").
std::string vhlo_type_code_text(uint64_t code);

/// An op's attributes by name (the dictionary's, then the properties').
using NamedBcAttrs = std::vector<std::pair<std::string_view, const BcAttr*>>;

/// The name `key` (a string attribute) of an attribute-dictionary entry, which must be an MLIR
/// bare identifier (letters, digits, `_`, `$`, `.`; not starting with a digit, `$` or `.`), the
/// form the printer writes: ParseError otherwise.
std::string_view attr_name(const BcAttr& key, const Cursor& c);

/// A Shardy attribute (Kind::sdy) as the text parser makes it: the typed form where the parser
/// has one (ShardingAttr, ShardingPerValueAttr, ManualAxesAttr), else OpaqueAttr of its text.
Attribute sdy_attribute(const BcAttr& a, const Cursor& c);
/// The mesh of a Shardy mesh attribute, as the text parser reads `sdy.mesh @m = <...>`.
Mesh sdy_mesh(const BcAttr& a, const Cursor& c);

/// The elements of a 1-D i64 (or index) tensor attribute, a splat expanded; ParseError naming
/// `name` for another attribute.
std::vector<int64_t> i64s(const BcAttr& a, const Cursor& c, std::string_view name);
/// Our tensor type of `t`; ParseError at `at` naming `what` for any other type.
TensorType tensor_type(const BcType& t, const Cursor& c, size_t at, std::string_view what);
/// The attribute `a` as parse_module gives it where it is not special to its op (ParseError
/// naming `name` for an attribute not read yet).
Attribute to_attribute(const BcAttr& a, const Cursor& c, std::string_view name);
/// True for the StableHLO ops (`add`, by name without dialect) whose VHLO form is read here.
bool is_op_read(std::string_view base);
/// The StableHLO attributes of op `base` from its VHLO attributes (bytecode_vhlo_legalize.cc).
std::vector<NamedAttr> legalize_attrs(std::string_view base, const NamedBcAttrs& named,
                                      const Cursor& c, size_t at);

// ---- bytecode_builtin.cc: helpers shared by the dialects' readers

/// An element type.
BcType element_type(DType d);
/// A type we have no IR form for, named `what` where it is used.
BcType other_type(std::string what);
/// An attribute of kind `k`, nothing else set.
BcAttr make_attr(BcAttr::Kind k);
/// An enumeration attribute of kind `kind` ("comparison_direction") holding value `v`.
BcAttr enum_attr(std::string kind, int64_t v);
/// MLIR's readAPIntWithKnownWidth: one byte up to 8 bits, else a signed varint (up to 64 bits);
/// ParseError for wider integers.
uint64_t read_apint(Cursor& c, int width);
/// `bits` as a value of integer dtype `t` (sign-extended for the signed ones).
int64_t sign_fit(uint64_t bits, DType t);
/// The MLIR text of a type of the table (`f32`, `tensor<2xf32>`, `(tensor<f32>) -> tensor<f32>`,
/// the text kept for others).
std::string type_text(const BcType& t);
/// `#stablehlo.output_operand_alias<...>` as StableHLO prints it.
std::string output_operand_alias_text(const std::vector<int64_t>& outputs, int64_t operand,
                                      const std::vector<int64_t>& operand_indices);
/// `#stablehlo.result_accuracy<...>` as StableHLO prints it (each parameter at its default
/// elided); mode 0 DEFAULT, 1 HIGHEST, 2 TOLERANCE.
std::string result_accuracy_text(double atol, double rtol, int64_t ulps, int64_t mode);
/// ParseError at `at` unless input, kernel and output each name every dimension of `d` once (what
/// `#stablehlo.conv<..>` can print).
void check_conv_dims(const ConvDimensionNumbers& d, const Cursor& c, size_t at);

// ---- bytecode_stablehlo_props.cc: the properties of plain (non-VHLO) ops

/// One attribute of an op's properties: its name, whether it may be absent, and for those with an
/// ODS default the default's MLIR text ("false", "-1", "{}", "[]", "\"\"", "DEFAULT" for
/// result_accuracy) that the StableHLO printer elides.
struct PropAttr {
  std::string_view name;
  bool optional = false;
  std::string_view default_text;
};

/// The attributes, sorted by name, that the properties of op `full` (`stablehlo.sort`,
/// `chlo.top_k`, `func.func`) hold when they hold `count` of them: one layout per StableHLO or MLIR
/// release that changed the op's attributes (StablehloOps.td, ChloOps.td and func's FuncOps.td
/// from StableHLO 1.17 to 1.25); nullptr for an op or a count this reader does not know.
const std::vector<PropAttr>* plain_prop_attrs(std::string_view full, size_t count);
/// Any layout of op `full` (its attributes and their defaults, the same in every layout), or
/// nullptr: what an op of bytecode before version 5 (attributes in its dictionary) is read by.
const std::vector<PropAttr>* plain_prop_any(std::string_view full);
/// The attribute counts this reader knows for op `full` (an empty list when none).
std::vector<size_t> plain_prop_counts(std::string_view full);
/// Every op of the plain table with each of its layouts, for the table's test.
std::vector<std::pair<std::string_view, const std::vector<PropAttr>*>> plain_prop_table();

// ---- bytecode_stablehlo.cc: plain ops' attributes

/// The attributes `named` of plain op `full` (`stablehlo.compare`, `chlo.erf`, `mhlo.x`) as
/// parse_module makes them from its text: properties and discardable attributes alike, those of
/// the op's layout (`props`, else any layout of `full`) equal to their ODS default dropped as
/// the StableHLO printer elides them. ParseError for an attribute not read yet.
std::vector<NamedAttr> plain_attrs(std::string_view full, const NamedBcAttrs& named,
                                   const std::vector<PropAttr>* props, const Cursor& c);

/// Name of section `id` ("string", "dialect", "IR", ...).
std::string_view section_name(uint8_t id);

}  // namespace hhlo::bc
