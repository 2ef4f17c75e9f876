// The StableHLO text parser's state and grammar pieces (internal). One Parser parses one text;
// its member functions are split by topic over parser_types.cc, parser_attrs.cc (+ the readers
// of each attribute kind under attrs/), parser_ops.cc, parser_pretty.cc (+ parser_keywords.cc)
// and parser_module.cc.
#pragma once

#include <charconv>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "hhlo/ir/attribute.h"
#include "hhlo/ir/module.h"
#include "hhlo/ir/parser.h"
#include "parser_lexer.h"

namespace hhlo::parse {

/// Deepest nesting of regions, attributes, dense lists and locations accepted.
inline constexpr int kMaxDepth = 200;

/// The SSA names visible while parsing one function: name (a view into the text) -> the values it
/// binds, which are consecutive value ids of the function (an op's results, or one argument).
/// Open addressing, no heap node per name; a name leaving its region's scope is marked dead and
/// its slot reused when the name is defined again (sibling regions reuse names).
class NameMap {
 public:
  /// What a name binds: `count` values of the function from id `first`.
  struct Binding {
    uint32_t first = 0, count = 0;
    uint32_t gen = 0;  // in use when gen == the map's generation
    bool live = false;
  };
  /// Forgets every name (a new function).
  void clear();
  /// Makes room for about `n` names without rehashing; numbered names `%N` / `%argN` up to about
  /// `max_number` go to flat tables indexed by N instead of the hash table.
  void reserve(size_t n, size_t max_number);
  /// The live binding of `name`, or nullptr.
  const Binding* find(std::string_view name) const;
  /// Binds `name`; returns false when it is already live.
  bool define(std::string_view name, uint32_t first, uint32_t count);
  /// Marks `name` dead (its region closed).
  void kill(std::string_view name);

 private:
  struct Entry {
    const char* ptr = nullptr;  // the name: ptr[0, len) in the text
    uint32_t len = 0, hash = 0;
    Binding b;
  };
  static uint32_t hash(std::string_view s);
  Entry* slot(std::string_view name, uint32_t h);  // the slot of name, or the empty one for it
  /// The flat-table binding of `%N` / `%argN` (grown as needed), or nullptr for other names.
  Binding* numbered(std::string_view name, bool grow);
  void grow();
  std::vector<Entry> slots_ = std::vector<Entry>(64);
  std::vector<Binding> nums_[2];  // %N, %argN
  size_t max_number_ = 1024;
  size_t used_ = 0;
  uint32_t gen_ = 1;
};
/// Shardy forms read into typed attributes (attrs/sdy.cc), from the text of the balanced
/// `<...>` after the attribute's name; nullopt for any form our printer does not write.
std::optional<ShardingAttr> scan_sharding(std::string_view text);
std::optional<ShardingPerValueAttr> scan_sharding_per_value(std::string_view text);
std::optional<ManualAxesAttr> scan_manual_axes(std::string_view text);
/// The mesh of `sdy.mesh @m = <["x"=4], device_ids=[...]>`, from the text of its `<...>`.
std::optional<Mesh> scan_mesh(std::string_view text);

/// One attribute from its MLIR text (`#chlo<comparison_direction EQ>`) as parse_module reads it
/// in an attribute dictionary under `name` (the bytecode reader's attributes written as text).
/// Throws ParseError (source "<attribute>") for a text that is not one attribute.
Attribute parse_attribute_text(std::string_view text, std::string_view name = {});

/// A tuple type, or the tensor type of one element (parser_tuples.cc).
struct TupleTypeTree {
  bool tuple = false;
  TensorType tensor;                    // when !tuple
  std::vector<TupleTypeTree> elements;  // when tuple
  std::string to_string() const;
  bool operator==(const TupleTypeTree&) const = default;
};

/// A tuple value of the text (`stablehlo.tuple`): its elements, each a value of the function or a
/// nested tuple. Tuples live only in the parser: `get_tuple_element` reads an element.
struct TupleValue {
  struct Element {
    Value value;                              // when !tuple
    std::shared_ptr<const TupleValue> tuple;  // a nested tuple
  };
  std::vector<Element> elements;
  TupleTypeTree type() const;
};

/// A parsed `: ...` type signature of a pretty op.
struct TypeSig {
  std::vector<TensorType> ins, outs;
  bool functional = false;  // `(ins) -> outs` or `ins -> outs`
};

class Parser {
 public:
  Parser(std::string_view text, const ParseOptions& options);
  Module run();

  // ---- tokens (parser_module.cc)
  const Token& tok() const { return tok_; }
  void advance() { tok_ = lex_.next(); }
  /// The token after the current one, without moving.
  Token peek() {
    size_t save = lex_.pos();
    Token next = lex_.next();
    lex_.reset(save);
    return next;
  }
  bool is(Tok k) const { return tok_.kind == k; }
  bool is_id(std::string_view id) const { return tok_.kind == Tok::bare_id && tok_.text == id; }
  bool consume(Tok k);
  bool consume_id(std::string_view id);
  void expect(Tok k, std::string_view what);
  void expect_id(std::string_view id);
  [[noreturn]] void fail(std::string_view expected) const;
  [[noreturn]] void fail_at(size_t pos, std::string_view expected, std::string found) const;
  /// Re-lexes from byte offset `pos`.
  void reset_to(size_t pos);
  /// Offset just past the bracket that closes the one at `open` (`<([{`), skipping strings;
  /// `->` does not close `<`. Throws ParseError when the text ends first.
  size_t scan_balanced(size_t open) const;
  /// Source text from `start` up to the current token, trailing space removed.
  std::string text_from(size_t start) const;
  /// The same text as a view into the source.
  std::string_view view_from(size_t start) const;
  /// RAII nesting guard: throws ParseError past kMaxDepth.
  struct Depth {
    Parser& p;
    explicit Depth(Parser& parser);
    ~Depth() { --p.depth_; }
  };

  // ---- types (parser_types.cc)
  TensorType parse_tensor_type();
  bool at_type() const;
  std::vector<TensorType> parse_paren_types();
  /// `T` or `(T, ...)` (function results; attributes after each type go to `attrs` if given).
  std::vector<TensorType> parse_result_types(std::vector<std::vector<NamedAttr>>* attrs);
  TypeSig parse_type_sig();

  // ---- attributes (parser_attrs.cc; the readers of each kind in attrs/, attrs/syntax.h)
  /// An attribute value; `name` is the key it is the value of (`operand_layouts`, ...), if any.
  Attribute parse_attribute(std::string_view name = {});
  /// `#alias`, `#dialect<...>`, `#dialect.name<...>`, `#word` (`start`: the attribute's offset).
  Attribute parse_hash_attr(std::string_view name, size_t start);
  /// An attribute that starts with a bare word: `true`, `dense<...>`, `array<...>`, `unit`, ...
  Attribute parse_word_attr(size_t start);
  void parse_attr_dict(std::vector<NamedAttr>& out);
  int64_t parse_int();
  std::vector<int64_t> parse_int_list();
  /// `dense<...> : tensor<...>` (attrs/dense.cc).
  Attribute parse_dense();
  /// parse_dense, with small literals spelled alike sharing one Array (a model repeats
  /// `dense<0.000000e+00> : tensor<f32>` once per layer).
  Attribute parse_dense_shared();
  /// `dense_resource<KEY> : tensor<...>` (attrs/dense_resource.cc): a DenseAttr whose data is
  /// filled from the blob of KEY in the file's `dialect_resources` section (resolve_resources).
  Attribute parse_dense_resource();
  /// `{-# dialect_resources: {builtin: {KEY: "0x...", ...}}, external_resources: {...} #-}`
  /// (attrs/dense_resource.cc): keeps each builtin blob (its bytes after the 4-byte alignment);
  /// other dialects' resources and external resources are skipped.
  void parse_file_metadata();
  /// Fills every dense_resource attribute from its blob; a key without a blob, or a blob whose
  /// size is not the tensor's, is a ParseError at the attribute.
  void resolve_resources();
  /// `EQ` / `THREE_FRY` / ... as an enum attribute of the kind `kind` names (attrs/enums.cc).
  Attribute parse_enum_word(std::string_view kind);
  /// `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]` (attrs/dimension_numbers.cc).
  ConvDimensionNumbers parse_conv_layouts();

  // ---- module and functions (parser_module.cc)
  /// `module [@name] [attributes {...}] { (func.func | sdy.mesh)* }`; false (after the
  /// attributes) when only the header is wanted.
  bool parse_module_op();
  /// `func.func [private] @name(%arg0: T, ...) -> R [attributes {...}] { ... }`
  void parse_func();
  /// The body `{ ... }` of function `f`, its arguments named `arg_names`, its declared results
  /// `results`; `fpos` is where the function starts.
  void parse_func_body(Func& f, const std::vector<std::string_view>& arg_names,
                       const std::vector<TensorType>& results, size_t fpos);
  /// `sdy.mesh @name = <...>`
  void parse_mesh();
  /// The checks after parsing: the verifier (ParseOptions::verify), else call cycles only; an
  /// error names the op's position.
  void check_parsed();

  // ---- locations (parser_module.cc)
  /// `loc(...)` if present.
  std::optional<Location> parse_opt_loc();
  Location parse_loc_body();

  // ---- ops and regions (parser_ops.cc, parser_pretty.cc)
  void parse_ops_until_rbrace(bool func_body);
  void parse_op();
  std::unique_ptr<Block> parse_region(const std::vector<std::string_view>* arg_names,
                                      const std::vector<TensorType>* arg_types);
  /// Appends the op (converting IR errors to ParseError at `pos`) and binds result names.
  std::vector<Value> append(OpState st, size_t pos);
  void parse_generic_op(std::string name, size_t pos);
  /// Pretty form of `name` (the table in parser_pretty.cc); returns false when the op has no
  /// pretty parser here.
  bool parse_pretty_op(std::string_view name, size_t pos);
  void parse_unknown_pretty(std::string_view name, size_t pos);
  Value parse_value_use();
  std::vector<Value> parse_value_list();

  // ---- tuple values (parser_tuples.cc)
  /// `stablehlo.tuple` / `stablehlo.get_tuple_element` in pretty (`generic` false: the name read)
  /// or generic form (the quoted name read): a tuple is bound to its result name as a TupleValue,
  /// an element read from one is bound as the element itself; neither becomes an op.
  void parse_tuple_op(std::string_view name, size_t pos, bool generic);
  /// The tuple `name` binds (its NameMap binding has count 0), or nullptr.
  std::shared_ptr<const TupleValue> find_tuple(std::string_view name) const;
  /// `tensor<...>` or `tuple<...>`.
  TupleTypeTree parse_tuple_type_tree();
  TupleValue::Element parse_tuple_operand();
  std::unordered_map<std::string, std::shared_ptr<const TupleValue>> tuples_;  // per function
  /// Binds `name` (a view into the text) to `count` consecutive values of the function from
  /// `first`; throws ParseError at `pos` on a redefinition.
  void define(std::string_view name, Value first, size_t count, size_t pos);
  /// Offset just past the `=` of the top-level alias definition `id` (`#loc3`, `!t`), or nullptr.
  /// The text is scanned for alias definitions on the first call.
  const size_t* find_alias(std::string_view id);
  /// Records where op `op` starts in the text (for verifier messages).
  void note_pos(const Op* op, size_t pos) { op_pos_.emplace_back(op, pos); }
  void fill_defaults(OpState& st);

  // pending result names of the op being parsed: (name, count)
  std::vector<std::pair<std::string_view, size_t>> defs_;
  size_t num_defs() const;

  // ---- state
  ParseOptions opts_;
  Lexer lex_;
  Token tok_;
  int depth_ = 0;
  long alias_budget_ = 100000;
  bool aliases_scanned_ = false;
  std::unordered_map<std::string_view, size_t> aliases_;  // `#x` / `!x` -> offset of its value
  std::unordered_map<std::string, Location> loc_memo_;
  std::unordered_map<std::string_view, Attribute> dense_memo_;  // literal text -> its DenseAttr
  /// A dense_resource attribute waiting for its blob: the key, the array it fills, where it is.
  struct PendingResource {
    std::string key;
    std::shared_ptr<Array> array;
    size_t pos;
  };
  std::vector<PendingResource> pending_resources_;
  std::unordered_map<std::string, std::string> resource_blobs_;  // builtin key -> its data
  std::string_view last_file_tok_;  // the quoted file of the last `loc("file":l:c)`
  IString last_file_;               // ... and its interned name
  std::unordered_set<std::string> loc_busy_;
  Module module_;
  Func* f_ = nullptr;
  std::vector<TensorType> declared_results_;
  NameMap names_;
  std::vector<std::vector<std::string_view>> scopes_;
  std::vector<std::pair<const Op*, size_t>> op_pos_;  // in append order
  std::vector<Value> value_scratch_;                  // operand lists being gathered
};

/// The pretty forms of the `op %a, %b [, key = value]* [{attrs}] : types` family
/// (parser_keywords.cc), rows of parse_pretty_op's table: `st.name` holds the op's name, `op` is it
/// without the dialect, `pos` is where the op starts; each appends the op.
void form_operands(Parser& p, OpState& st, std::string_view op, size_t pos);
/// `compare GT, %a, %b[, FLOAT]`
void form_compare(Parser& p, OpState& st, std::string_view op, size_t pos);
/// `convolution(%a, %b) dim_numbers = ..., window = {...}`
void form_convolution(Parser& p, OpState& st, std::string_view op, size_t pos);
/// `top_k(%x, k = 2)`
void form_top_k(Parser& p, OpState& st, std::string_view op, size_t pos);
/// `slice %x [0:4:2, 1:3]`
void form_slice(Parser& p, OpState& st, std::string_view op, size_t pos);

/// An integer literal: sign and magnitude.
struct IntLit {
  bool neg = false;
  uint64_t mag = 0;
};

/// The digits `t` (decimal, or hex after `0x`) as a 64-bit magnitude; false when they are not
/// digits or do not fit.
inline bool parse_uint(std::string_view t, uint64_t& out) {
  int base = 10;
  if (t.size() > 2 && t[0] == '0' && t[1] == 'x') {
    t.remove_prefix(2);
    base = 16;
  }
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), out, base);
  return ec == std::errc() && p == t.data() + t.size();
}

/// Signed range check of an integer literal for `t`; the value as stored (bit pattern for ui64)
/// in `out`.
inline bool int_in_range(const IntLit& v, DType t, int64_t& out) {
  if (t == DType::pred) {
    if (v.neg || v.mag > 1) return false;
    out = static_cast<int64_t>(v.mag);
    return true;
  }
  int bits = bit_width(t);
  if (is_unsigned_int(t)) {
    if (v.neg && v.mag != 0) return false;
    if (bits < 64 && v.mag >> bits) return false;
    out = static_cast<int64_t>(v.mag);
    return true;
  }
  uint64_t lim = uint64_t{1} << (bits - 1);
  if (v.neg ? v.mag > lim : v.mag >= lim) return false;
  out = v.neg ? static_cast<int64_t>(0 - v.mag) : static_cast<int64_t>(v.mag);
  return true;
}

/// The DType spelled `name` (`f32`, `ui8`, `i1`, `bf16`), or nullopt.
std::optional<DType> dtype_named(std::string_view name);

}  // namespace hhlo::parse
